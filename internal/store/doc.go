// Package store keeps the runtime's state in the project's SQLite file:
// memory blocks (archival, for /recall, and working, for /context) with an
// FTS5 index and a version for every change, logged conversation messages
// (searchable), sessions with the outputs of their actions (for
// @last.output), and the pending-approval queue with standing rules.
//
// It opens the database through internal/sqlite and registers its own
// migrations under the owner "store". It knows nothing of verbs, intents or
// permission policy: callers decide, the store records.
package store
