// Package mcp makes every configured MCP server a dialect verb:
// `/NAME TOOL ARGUMENTS` calls one of the server's tools.
//
// A Manager owns the servers of one runtime. A server starts on the first
// action that needs it (parsing /NAME TOOL needs its tool list), within its
// start timeout, and is kept for the life of the Manager; Close stops every
// stdio server it started, with its whole process group. The tool named is
// resolved like a verb (package fuzzy, the same tiers and allowances); the
// arguments are mapped onto the tool's JSON Schema (args.go); the result is
// rendered for the model (result.go). Each server becomes a
// verbs.Definition whose ParseCall, Approval, Operations and Executor are
// the Manager's, so the runtime's one pipeline resolves, parses, gates and
// executes MCP tools like any verb.
//
// The package does not decide permission: it says, from a tool's
// annotations and the server's approve setting, why a call needs approval,
// and the runtime's gate asks. It does not serve MCP either: `dialect mcp
// serve` lives in cmd/dialect.
package mcp
