// Package sqlite is the one way the project opens its SQLite database.
//
// It owns: choosing the file (DefaultPath: $DIALECT_DB, else the XDG state
// directory), the connection settings every user needs (the pure-Go
// modernc.org/sqlite driver, WAL journal, a busy timeout, foreign keys,
// BEGIN IMMEDIATE transactions), versioned migrations that any package
// registers for itself, and retrying writes that meet a lock held by another
// process.
//
// Migrations are grouped by owner ("failures", "memory", ...). Each owner
// numbers its own migrations from 1; the versions applied are recorded in the
// table dialect_migrations together with a checksum of their SQL, so a
// migration that was edited after it ran is reported instead of silently
// skipped. All pending migrations are applied in one IMMEDIATE transaction,
// which makes it safe for many processes to open a fresh file at once: the
// first applies them, the others wait on the lock and then find nothing to do.
//
// It deliberately does not own any table other than dialect_migrations, and
// knows nothing of the schemas that its callers migrate.
package sqlite
