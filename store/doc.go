// Package store keeps the runtime's state: memory blocks (archival, for
// /recall, and working, for /context) with a full-text index and a version
// for every change, logged conversation messages (searchable), sessions
// with the outputs of their actions (for @last.output), the
// pending-approval queue with standing rules, and the failure log.
//
// Store is the interface the runtime uses; Open returns the implementation
// a location names (a SQLite file, the default). It knows nothing of verbs,
// intents or permission policy: callers decide, the store records.
package store
