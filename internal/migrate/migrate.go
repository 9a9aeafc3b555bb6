// Package migrate holds what the project's database packages share about
// versioned migrations: the Migration type, the checks of a migration list
// and of what a database has applied, and the errors they report.
// internal/sqlite and internal/postgres each keep the bookkeeping table
// dialect_migrations and apply the steps in their own way (SQLite under its
// write lock, PostgreSQL under an advisory lock).
//
// Migrations are grouped by owner ("store", "failures", ...). Each owner
// numbers its own migrations from 1; the versions applied are recorded
// together with a checksum of their SQL, so a migration that was edited
// after it ran is reported instead of silently skipped.
package migrate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Migration is one step of one owner's schema. Owners number their
// migrations 1, 2, 3... with no gaps; a migration, once released, is never
// edited (add a new one instead): a checksum of SQL is compared with the
// one recorded when it ran.
type Migration struct {
	Owner   string // the package that owns the tables, e.g. "failures"
	Version int    // 1-based, contiguous per owner
	Name    string // a few words for people reading dialect_migrations
	SQL     string // one or more statements, run in the migration transaction
}

// Checksum identifies the text of a migration.
func (m Migration) Checksum() string {
	h := sha256.Sum256([]byte(m.SQL))
	return hex.EncodeToString(h[:8])
}

// Errors about migrations, usable with errors.Is. They come wrapped in a
// *Error that names the migration.
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

// Error says which migration failed and why.
type Error struct {
	Owner   string
	Version int
	Name    string
	Err     error
}

func (e *Error) Error() string {
	return fmt.Sprintf("migration %s/%d (%s): %v", e.Owner, e.Version, e.Name, e.Err)
}

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// Validate checks that every owner's versions run 1..n.
func Validate(ms []Migration) error {
	byOwner := map[string][]Migration{}
	for _, m := range ms {
		if strings.TrimSpace(m.Owner) == "" || strings.TrimSpace(m.SQL) == "" {
			return &Error{m.Owner, m.Version, m.Name, fmt.Errorf("%w: owner and SQL are required", ErrInvalidMigrations)}
		}
		byOwner[m.Owner] = append(byOwner[m.Owner], m)
	}
	for owner, list := range byOwner {
		sort.Slice(list, func(i, j int) bool { return list[i].Version < list[j].Version })
		for i, m := range list {
			if m.Version != i+1 {
				return &Error{owner, m.Version, m.Name, fmt.Errorf("%w: versions of %q must run 1..%d without gaps or duplicates", ErrInvalidMigrations, owner, len(list))}
			}
		}
	}
	return nil
}

// Applied is what a database's dialect_migrations says: the checksum of
// each applied version, by owner.
type Applied map[string]map[int]string

// Add records one applied version.
func (a Applied) Add(owner string, version int, checksum string) {
	if a[owner] == nil {
		a[owner] = map[int]string{}
	}
	a[owner][version] = checksum
}

// Querier is what both *sql.DB and *sql.Tx offer for reading.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// ReadApplied reads the rows of dialect_migrations that belong to owners;
// the caller has checked that the table exists.
func ReadApplied(ctx context.Context, q Querier, owners map[string]bool) (Applied, error) {
	rows, err := q.QueryContext(ctx, `SELECT owner, version, checksum FROM dialect_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := Applied{}
	for rows.Next() {
		var owner, sum string
		var v int
		if err := rows.Scan(&owner, &v, &sum); err != nil {
			return nil, err
		}
		if owners[owner] {
			out.Add(owner, v, sum)
		}
	}
	return out, rows.Err()
}

// Owners returns the distinct owners of ms.
func Owners(ms []Migration) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		out[m.Owner] = true
	}
	return out
}

// Pending checks the applied set against ms and returns the migrations still
// to run, in (owner, version) order. Only the owners of ms are checked:
// other owners' rows belong to other programs.
func Pending(ms []Migration, done Applied) ([]Migration, error) {
	count := map[string]int{}
	for _, m := range ms {
		count[m.Owner]++
	}
	var todo []Migration
	for _, m := range ms {
		sum, ok := done[m.Owner][m.Version]
		if !ok {
			todo = append(todo, m)
			continue
		}
		if sum != m.Checksum() {
			return nil, &Error{m.Owner, m.Version, m.Name, ErrMigrationChanged}
		}
	}
	for owner, vs := range done {
		if count[owner] == 0 {
			continue
		}
		for v := range vs {
			if v > count[owner] {
				return nil, &Error{owner, v, "", fmt.Errorf("%w: version %d applied, this program knows %d", ErrSchemaTooNew, v, count[owner])}
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
