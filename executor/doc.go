// Package executor carries out the intents that touch the world outside
// the runtime: /calc (a bounded calculator over expr-lang/expr, with
// percentages and unit conversions), /fetch (HTTP GET with size, time and
// redirect limits, HTML made readable, and a guard that refuses private
// addresses when the socket is dialled), /web (a configured search
// provider: a URL template returning JSON, or a command), /send and its
// shorthands (targets: stdout, a JSON-lines file, a webhook, a command),
// and custom verbs mapped to tools (a command or an HTTP endpoint that
// receives the intent as JSON).
//
// Every executor takes a context and honours its cancellation, bounds what
// it reads and returns, strips control and terminal-escape characters from
// text that may reach a terminal (Clean), and fails with an *codes.Error whose
// Code a program can switch on and whose message a model can act on.
// Commands are always started from an argv array, never through a shell.
//
// The package deliberately does not decide whether an intent may run
// (permission, approval, early execution), keep session state (the fetch
// Cursor is returned to the caller, which stores it), touch memory, or
// read dialect.toml: the runtime maps its [exec] table onto Config.
package executor
