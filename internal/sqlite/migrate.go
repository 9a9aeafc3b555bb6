package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Migration is one step of one owner's schema. Owners number their
// migrations 1, 2, 3... with no gaps; a migration, once released, is never
// edited (add a new one instead): Open compares a checksum of SQL with the
// one recorded when it ran.
type Migration struct {
	Owner   string // the package that owns the tables, e.g. "failures"
	Version int    // 1-based, contiguous per owner
	Name    string // a few words for people reading dialect_migrations
	SQL     string // one or more statements, run in the migration transaction
}

// checksum identifies the text of a migration.
func (m Migration) checksum() string {
	h := sha256.Sum256([]byte(m.SQL))
	return hex.EncodeToString(h[:8])
}

// Errors returned by Open about migrations, usable with errors.Is. They come
// wrapped in a *MigrationError that names the migration.
var (
	// ErrInvalidMigrations: the list passed to Open is malformed (empty
	// owner or SQL, duplicate or missing version).
	ErrInvalidMigrations = errors.New("invalid migration list")
	// ErrMigrationChanged: a migration already applied to this database has
	// different SQL now.
	ErrMigrationChanged = errors.New("applied migration has been edited")
	// ErrSchemaTooNew: the database has migrations of this owner that this
	// program does not know; it was written by a newer version.
	ErrSchemaTooNew = errors.New("database schema is newer than this program")
)

// MigrationError says which migration failed and why.
type MigrationError struct {
	Owner   string
	Version int
	Name    string
	Err     error
}

func (e *MigrationError) Error() string {
	return fmt.Sprintf("sqlite: migration %s/%d (%s): %v", e.Owner, e.Version, e.Name, e.Err)
}

func (e *MigrationError) Unwrap() error { return e.Err }

// validate checks that every owner's versions run 1..n.
func validate(ms []Migration) error {
	byOwner := map[string][]Migration{}
	for _, m := range ms {
		if strings.TrimSpace(m.Owner) == "" || strings.TrimSpace(m.SQL) == "" {
			return &MigrationError{m.Owner, m.Version, m.Name, fmt.Errorf("%w: owner and SQL are required", ErrInvalidMigrations)}
		}
		byOwner[m.Owner] = append(byOwner[m.Owner], m)
	}
	for owner, list := range byOwner {
		sort.Slice(list, func(i, j int) bool { return list[i].Version < list[j].Version })
		for i, m := range list {
			if m.Version != i+1 {
				return &MigrationError{owner, m.Version, m.Name, fmt.Errorf("%w: versions of %q must run 1..%d without gaps or duplicates", ErrInvalidMigrations, owner, len(list))}
			}
		}
	}
	return nil
}

const createMigrations = `CREATE TABLE IF NOT EXISTS dialect_migrations (
	owner      TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	name       TEXT    NOT NULL,
	checksum   TEXT    NOT NULL,
	applied_at TEXT    NOT NULL,
	PRIMARY KEY (owner, version)
) WITHOUT ROWID`

// applied is what dialect_migrations says about one owner version.
type applied struct{ checksum string }

// querier is what both *sql.DB and *sql.Tx offer for reading.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readApplied returns the applied migrations of the given owners; a database
// without the bookkeeping table has none.
func readApplied(ctx context.Context, q querier, owners []string) (map[string]map[int]applied, error) {
	out := map[string]map[int]applied{}
	exists, err := q.QueryContext(ctx, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dialect_migrations'`)
	if err != nil {
		return nil, err
	}
	found := exists.Next()
	exists.Close()
	if !found {
		return out, exists.Err()
	}
	rows, err := q.QueryContext(ctx, `SELECT owner, version, checksum FROM dialect_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	want := map[string]bool{}
	for _, o := range owners {
		want[o] = true
	}
	for rows.Next() {
		var owner, sum string
		var v int
		if err := rows.Scan(&owner, &v, &sum); err != nil {
			return nil, err
		}
		if !want[owner] {
			continue
		}
		if out[owner] == nil {
			out[owner] = map[int]applied{}
		}
		out[owner][v] = applied{sum}
	}
	return out, rows.Err()
}

// pending checks the applied set against ms and returns the migrations still
// to run, in (owner, version) order.
func pending(ms []Migration, done map[string]map[int]applied) ([]Migration, error) {
	count := map[string]int{}
	for _, m := range ms {
		count[m.Owner]++
	}
	var todo []Migration
	for _, m := range ms {
		a, ok := done[m.Owner][m.Version]
		if !ok {
			todo = append(todo, m)
			continue
		}
		if a.checksum != m.checksum() {
			return nil, &MigrationError{m.Owner, m.Version, m.Name, ErrMigrationChanged}
		}
	}
	for owner, vs := range done {
		for v := range vs {
			if v > count[owner] {
				return nil, &MigrationError{owner, v, "", fmt.Errorf("%w: version %d applied, this program knows %d", ErrSchemaTooNew, v, count[owner])}
			}
		}
	}
	sort.Slice(todo, func(i, j int) bool {
		if todo[i].Owner != todo[j].Owner {
			return todo[i].Owner < todo[j].Owner
		}
		return todo[i].Version < todo[j].Version
	})
	return todo, nil
}

// migrate applies the pending migrations in one IMMEDIATE transaction. The
// check is made first without a lock (the usual case: nothing to do), and
// again under the lock, because another process may have migrated between.
func (db *DB) migrate(ctx context.Context, ms []Migration) error {
	if len(ms) == 0 {
		return nil
	}
	owners := make([]string, 0, len(ms))
	for _, m := range ms {
		owners = append(owners, m.Owner)
	}
	var done map[string]map[int]applied
	err := retryBusy(ctx, func() (err error) {
		done, err = readApplied(ctx, db.DB, owners)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: read migrations: %w", err)
	}
	todo, err := pending(ms, done)
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
		todo, err := pending(ms, done)
		if err != nil {
			return err
		}
		now := time.Now().UTC().Format(time.RFC3339)
		for _, m := range todo {
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return &MigrationError{m.Owner, m.Version, m.Name, err}
			}
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO dialect_migrations (owner, version, name, checksum, applied_at) VALUES (?, ?, ?, ?, ?)`,
				m.Owner, m.Version, m.Name, m.checksum(), now); err != nil {
				return &MigrationError{m.Owner, m.Version, m.Name, err}
			}
		}
		return nil
	})
}
