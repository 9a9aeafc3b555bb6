// Package dialect is the runtime of the Pattern Dialect: models write small
// slash actions at the end of what they say, and a Runtime finds them in the
// output (whole or streamed), decides which the model meant to run, resolves
// misspelled verbs, parses arguments, checks permission, executes and hands
// results back in words the model can read.
//
// The stages live in their own packages (detect, fuzzy, morph,
// grammarbridge, intent, verbs, patch, failures); this package loads
// dialect.toml and wires them together. It also puts the runtime in the
// path of model calls: Transport and Middleware wrap an OpenAI-compatible
// chat-completions client (JSON and SSE), and NewProxy serves the same as
// an HTTP proxy (`dialect proxy`).
package dialect
