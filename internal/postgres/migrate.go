package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/pattern-dialect/dialect/internal/migrate"
)

// lockKey is the advisory lock that migrations run under: any 64-bit
// number no other program uses ("dialect" in ASCII). Advisory locks are
// per database.
const lockKey int64 = 0x6469616c656374

const createMigrations = `CREATE TABLE IF NOT EXISTS dialect_migrations (
	owner      TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	name       TEXT    NOT NULL,
	checksum   TEXT    NOT NULL,
	applied_at TEXT    NOT NULL,
	PRIMARY KEY (owner, version)
)`

// readApplied returns the applied migrations of the given owners; a
// database without the bookkeeping table has none.
func readApplied(ctx context.Context, q migrate.Querier, owners map[string]bool) (migrate.Applied, error) {
	out := migrate.Applied{}
	rows, err := q.QueryContext(ctx, `SELECT to_regclass('dialect_migrations') IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	var found bool
	if rows.Next() {
		err = rows.Scan(&found)
	}
	rows.Close()
	if err != nil || !found {
		return out, err
	}
	return migrate.ReadApplied(ctx, q, owners)
}

// migrate applies the pending migrations in one transaction, holding the
// advisory lock lockKey on the connection that runs it, so that of many
// processes starting at once one migrates and the others wait and then
// find nothing to do. The check is made first without the lock (the usual
// case: nothing to do).
func (db *DB) migrate(ctx context.Context, ms []migrate.Migration) error {
	if len(ms) == 0 {
		return nil
	}
	owners := migrate.Owners(ms)
	done, err := readApplied(ctx, db.DB, owners)
	if err != nil {
		return fmt.Errorf("postgres: read migrations: %w", err)
	}
	if todo, err := migrate.Pending(ms, done); err != nil || len(todo) == 0 {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		return fmt.Errorf("postgres: migration lock: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, createMigrations); err != nil {
		return fmt.Errorf("postgres: create dialect_migrations: %w", err)
	}
	done, err = readApplied(ctx, tx, owners)
	if err != nil {
		return fmt.Errorf("postgres: read migrations: %w", err)
	}
	todo, err := migrate.Pending(ms, done)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	for _, m := range todo {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return &migrate.Error{Owner: m.Owner, Version: m.Version, Name: m.Name, Err: err}
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO dialect_migrations (owner, version, name, checksum, applied_at) VALUES ($1, $2, $3, $4, $5)`,
			m.Owner, m.Version, m.Name, m.Checksum(), now); err != nil {
			return &migrate.Error{Owner: m.Owner, Version: m.Version, Name: m.Name, Err: err}
		}
	}
	return tx.Commit()
}
