// Package failures owns the failure log of the Pattern Dialect: every action
// in an executable position that could not run (docs/language.md §6) becomes a row
// in SQLite, with its raw text, agent, model, session, time, failure code and
// typed details, the matcher's candidates and a context hint (the sentence
// before the action). It also counts successful actions per model and day,
// cheaply, so that failure rates can be computed.
//
// On top of the log it answers the questions of the weekly report: which
// unknown verbs models write (with examples), failures per model as a rate
// of the actions seen, the most common failure patterns with a suggested
// fix, and alias suggestions — unknown tokens seen often, close to an
// existing verb, not yet aliases, ranked by count × confidence. Report
// gathers all of it and renders Markdown, JSON or HTML with inline SVG
// charts; AddAliases writes accepted aliases into dialect.toml without
// disturbing its comments or layout.
//
// Rows are written in IMMEDIATE transactions, and each transaction also
// updates a daily roll-up by (day, model, code, verb, subject); reports read
// the roll-up, so their cost does not grow with the number of rows.
//
// It deliberately does not decide what is a failure (the scanner, resolver
// and grammars do), nor how similar a token is to a verb: that is the
// Matcher interface, which the runtime fills with its verb resolver
// (EditMatcher is a small stand-in). It does not know the verb registry:
// callers pass the existing verbs and aliases in.
package failures
