// Package postgres is the one way the project opens a PostgreSQL database,
// as internal/sqlite is for SQLite.
//
// It owns: recognising a PostgreSQL location (a postgres:// or
// postgresql:// URL), the connection pool (database/sql over
// github.com/jackc/pgx/v5, sized for long-lived processes), versioned
// migrations (package migrate) applied once under an advisory lock when
// many processes start together, SERIALIZABLE write transactions retried
// when PostgreSQL reports a serialization failure or a deadlock, and
// Rebind, which turns the project's portable `?` placeholders into
// PostgreSQL's $1, $2, ...
//
// Like internal/sqlite it knows nothing of the tables its callers migrate
// except dialect_migrations.
package postgres
