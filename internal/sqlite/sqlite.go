package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/pattern-dialect/dialect/internal/migrate"
)

// BusyTimeout is how long one statement waits inside SQLite for a lock held
// by another connection or process before it reports SQLITE_BUSY.
const BusyTimeout = 10 * time.Second

// retryWindow is how long Write and Open keep retrying a transaction that
// still met SQLITE_BUSY after BusyTimeout, before giving up.
const retryWindow = 60 * time.Second

// DB is an open database: a *sql.DB configured by Open, plus the path it was
// opened from. Use Write for transactions that modify the database so that
// lock contention with other processes is retried instead of failing.
type DB struct {
	*sql.DB
	path string
}

// Path returns the file the database was opened from.
func (db *DB) Path() string { return db.path }

// DefaultPath returns the default database file: $DIALECT_DB if
// set, else $XDG_STATE_HOME/dialect/dialect.db, else
// ~/.local/state/dialect/dialect.db. It does not create anything; Open
// creates the directory.
func DefaultPath() (string, error) {
	if p := os.Getenv("DIALECT_DB"); p != "" {
		return p, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "dialect", "dialect.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("sqlite: no $DIALECT_DB and no home directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", "dialect", "dialect.db"), nil
}

// Open opens (creating if needed) the SQLite database at path, configures
// it, and applies the migrations that have not been applied yet. The path
// ":memory:" opens a private in-memory database on a single connection.
//
// Every connection gets WAL journaling, synchronous=NORMAL (durable across a
// crash of the process; the last commits may be lost on power failure),
// foreign keys on, a busy timeout of BusyTimeout, and BEGIN IMMEDIATE for
// transactions, so that a writer takes the write lock up front and never
// fails half-way on a lock upgrade.
func Open(ctx context.Context, path string, migrations ...Migration) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	if err := migrate.Validate(migrations); err != nil {
		return nil, err
	}
	memory := path == ":memory:"
	if !memory {
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("sqlite: create directory for %s: %w", path, err)
			}
		}
	}
	sdb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if memory {
		sdb.SetMaxOpenConns(1)
	}
	db := &DB{DB: sdb, path: path}
	// The first connection sets the journal mode, which needs a lock on a
	// fresh file that other processes may be creating at the same moment.
	if err := retryBusy(ctx, func() error { return sdb.PingContext(ctx) }); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if err := db.migrate(ctx, migrations); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

// dsn builds the driver's data source name. The path is written as a
// file: URI so that '?', '#' and '%' in it cannot be read as parameters.
func dsn(path string) string {
	params := "_busy_timeout=" + fmt.Sprint(BusyTimeout.Milliseconds()) +
		"&_foreign_keys=1&_synchronous=NORMAL&_txlock=immediate" +
		"&_pragma=cache_size(-65536)&_pragma=temp_store(MEMORY)"
	if path == ":memory:" {
		return "file::memory:?" + params
	}
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + esc + "?" + params + "&_journal_mode=WAL"
}

// Write runs fn in an IMMEDIATE transaction and commits it. If the
// transaction meets SQLITE_BUSY (another process held the write lock longer
// than BusyTimeout) it is rolled back and run again, with a jittered backoff,
// for up to a minute or until ctx is done. fn must therefore be safe to run
// more than once: it should only touch the database through tx.
func (db *DB) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return retryBusy(ctx, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// IsBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED (in
// any extended form): the database was locked by another connection.
func IsBusy(err error) bool {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

// retryBusy calls f until it returns something other than a busy error, ctx
// is done, or retryWindow has passed.
func retryBusy(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(retryWindow)
	backoff := 5 * time.Millisecond
	for {
		err := f()
		if err == nil || !IsBusy(err) || time.Now().After(deadline) {
			return err
		}
		wait := backoff/2 + rand.N(backoff)
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
		if backoff < 500*time.Millisecond {
			backoff *= 2
		}
	}
}

// Rebind returns query unchanged: SQLite takes the `?` placeholders that
// the project's portable SQL is written with (internal/postgres rewrites
// them for PostgreSQL).
func (db *DB) Rebind(query string) string { return query }
