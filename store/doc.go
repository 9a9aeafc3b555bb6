// Package store keeps the runtime's state: memory blocks (archival, for
// /recall, and working, for /context) with a full-text index, labels
// (tags, a project) and a version for every change — numbered per block
// name, with its author — logged conversation messages (searchable, with
// labels), sessions with the outputs of their actions (for @last.output),
// the pending-approval queue with standing rules (agent, verb, operation,
// target, argument pattern), and the failure log.
//
// The package's helpers work over any Store: Put, Append, Move, Restore,
// and Export/ReadRecords/Import (JSON Lines of whole histories, which
// round-trip exactly). MatchArgs is the one reading of a rule's argument
// pattern, and NormTags/NormProject the one spelling of labels, for every
// backend.
//
// Store is the interface the runtime uses; Open returns the implementation
// a location names: a SQLite file (the default), or a PostgreSQL database
// for a postgres:// URL (docs/store.md). It knows nothing of verbs,
// intents or permission policy: callers decide, the store records.
package store
