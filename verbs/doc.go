// Package verbs owns the verb registry and the parsing of arguments into
// typed intents (docs/language.md §3, §5, §6).
//
// A Registry holds the built-in verbs of the Pattern Dialect — their
// aliases, strictness, descriptions, few-shot examples, authority and an
// argument grammar each — and the custom verbs and alias extensions a
// dialect.toml adds (Extension). It is built once with NewRegistryWith and
// is then immutable and safe for concurrent use.
//
// Each built-in verb's argument forms are a TypeAgent .agr grammar embedded
// from grammars/ and compiled by grammarbridge. Before matching, the
// arguments are lexed (quoted strings, @names, URLs, references, CTX
// filters) and rendered so that the grammar sees its own keywords and one
// placeholder per other token; captured placeholders are mapped back to
// the text as written, so punctuation and quotes survive exactly. Go code
// turns the grammar's value into the verb's intent.Intent, inferring what
// the grammar cannot know (recall NAME reads when a Blocks lookup knows
// the block, and searches otherwise).
//
// A custom verb runs as a built-in verb (parsed by that verb's grammar,
// with default_target and template applied, giving intent.Custom with the
// built-in intent inside) or as a configured tool, and may bring its own
// TypeAgent grammar and start rule. An alias several verbs claim is settled
// by argument shape, then priority (Settle, ParseAction).
//
// Failures are *ParseError values with the codes of docs/language.md §6, a
// column, and a sentence for the model saying what would have been
// accepted. WriteInstructions and WriteTable describe the registry for a
// system prompt and for people.
//
// The package deliberately does not resolve misspelled verb tokens (fuzzy
// does), find actions in text (detect does), resolve references such as
// @last.output or check permissions (the runtime does), or execute intents:
// it declares the Executor hook, and the runtime supplies executors.
package verbs
