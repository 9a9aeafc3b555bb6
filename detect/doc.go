// Package detect owns the first stage of the Pattern Dialect pipeline:
// finding slash actions in model output and deciding which of them the
// model meant to run (docs/language.md §1–§3).
//
// A Scanner is an io.Writer that takes a message in chunks of any size and
// reports, when the message ends, every detected Action — its span, verb
// token, arguments, content block, permission marker and chain tail — with
// the execution-position rules applied: trailing runs, the /do marker,
// reconsideration phrases and a trailing /cancel. What is code or hidden as
// CommonMark renders it (fenced code and code spans, in block quotes and
// list items too, and HTML comments) never runs: a verb found there is
// reported with the reason InsideCode or InsideComment. The result never
// depends on where chunks split, work is linear in the message length, and
// memory is bounded by the longest open line, content block or paragraph
// held back to learn whether a code span closes. Opt-in early execution
// hands /do actions with a read-only intent to the host before the message
// ends; Filter hides action lines from text shown to a person.
//
// The package deliberately does not resolve misspelled verbs, parse
// arguments with grammars, know intents or permissions, or execute
// anything: it learns verbs through the small Vocabulary interface (a
// StaticVocabulary for fixed sets), asks the host whether an intent is
// read-only through Options.ReadOnly, and imports no other package of the
// project. Design decisions where docs/language.md is silent are in docs/detect.md.
package detect
