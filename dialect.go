// Package dialect is the runtime of the Pattern Dialect: models write small
// slash actions at the end of what they say, and a Runtime finds them in the
// output (whole or streamed), decides which the model meant to run, resolves
// misspelled verbs, parses arguments, checks permission, executes and hands
// results back in words the model can read.
//
// This package is the Runtime's API and nothing else: Open with a Config
// and Options, Run a whole Message or a Stream, Detect and Parse without
// running, and decide queued actions with Approve and Deny. Every way in —
// the CLI, middleware in front of a model API, an MCP server — goes
// through the one pipeline documented in pipeline.go: detect, resolve,
// parse, references, bind, gate, execute, result.
//
// The stages live in their own packages (detect, fuzzy, morph,
// grammarbridge, intent, verbs, patch, executor, store, failures); package
// middleware puts the runtime in the path of model calls.
package dialect
