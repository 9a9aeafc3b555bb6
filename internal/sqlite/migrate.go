package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/pattern-dialect/dialect/internal/migrate"
)

// Migration is one step of one owner's schema (see package migrate).
type Migration = migrate.Migration

// MigrationError says which migration failed and why.
type MigrationError = migrate.Error

// Errors returned by Open about migrations, usable with errors.Is. They come
// wrapped in a *MigrationError that names the migration.
var (
	// ErrInvalidMigrations: the list passed to Open is malformed.
	ErrInvalidMigrations = migrate.ErrInvalidMigrations
	// ErrMigrationChanged: an applied migration has different SQL now.
	ErrMigrationChanged = migrate.ErrMigrationChanged
	// ErrSchemaTooNew: the database was written by a newer program.
	ErrSchemaTooNew = migrate.ErrSchemaTooNew
)

const createMigrations = `CREATE TABLE IF NOT EXISTS dialect_migrations (
	owner      TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	name       TEXT    NOT NULL,
	checksum   TEXT    NOT NULL,
	applied_at TEXT    NOT NULL,
	PRIMARY KEY (owner, version)
) WITHOUT ROWID`

// readApplied returns the applied migrations of the given owners; a database
// without the bookkeeping table has none.
func readApplied(ctx context.Context, q migrate.Querier, owners map[string]bool) (migrate.Applied, error) {
	out := migrate.Applied{}
	exists, err := q.QueryContext(ctx, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dialect_migrations'`)
	if err != nil {
		return nil, err
	}
	found := exists.Next()
	exists.Close()
	if !found {
		return out, exists.Err()
	}
	return migrate.ReadApplied(ctx, q, owners)
}

// migrate applies the pending migrations in one IMMEDIATE transaction. The
// check is made first without a lock (the usual case: nothing to do), and
// again under the lock, because another process may have migrated between.
func (db *DB) migrate(ctx context.Context, ms []Migration) error {
	if len(ms) == 0 {
		return nil
	}
	owners := migrate.Owners(ms)
	var done migrate.Applied
	err := retryBusy(ctx, func() (err error) {
		done, err = readApplied(ctx, db.DB, owners)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: read migrations: %w", err)
	}
	todo, err := migrate.Pending(ms, done)
	if err != nil || len(todo) == 0 {
		return err
	}
	return db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, createMigrations); err != nil {
			return fmt.Errorf("sqlite: create dialect_migrations: %w", err)
		}
		done, err := readApplied(ctx, tx, owners)
		if err != nil {
			return fmt.Errorf("sqlite: read migrations: %w", err)
		}
		todo, err := migrate.Pending(ms, done)
		if err != nil {
			return err
		}
		now := time.Now().UTC().Format(time.RFC3339)
		for _, m := range todo {
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return &MigrationError{Owner: m.Owner, Version: m.Version, Name: m.Name, Err: err}
			}
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO dialect_migrations (owner, version, name, checksum, applied_at) VALUES (?, ?, ?, ?, ?)`,
				m.Owner, m.Version, m.Name, m.Checksum(), now); err != nil {
				return &MigrationError{Owner: m.Owner, Version: m.Version, Name: m.Name, Err: err}
			}
		}
		return nil
	})
}
