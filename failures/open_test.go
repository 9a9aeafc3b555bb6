package failures

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/internal/migrate"
	"github.com/pattern-dialect/dialect/internal/pgtest"
	"github.com/pattern-dialect/dialect/internal/postgres"
	"github.com/pattern-dialect/dialect/internal/sqlite"
)

// testDB is the database under a test's log: SQLite or PostgreSQL.
type testDB interface {
	DB
	QueryRow(query string, args ...any) *sql.Row
	Close() error
}

// testLog is a Log over a database of its own, as the store keeps one.
type testLog struct {
	*Log
	db testDB
}

// Open opens a database holding only the log's tables, for the tests of
// this package (the runtime reaches the log through its store): a SQLite
// file, or PostgreSQL for a postgres:// location.
func Open(ctx context.Context, location string, opts ...Option) (*testLog, error) {
	var ms []migrate.Migration
	pg := postgres.IsLocation(location)
	for _, s := range Schema() {
		m := migrate.Migration{Owner: "failures", Version: s.Version, Name: s.Name, SQL: s.SQL}
		if pg {
			m.SQL = s.Postgres
		}
		ms = append(ms, m)
	}
	var db testDB
	var err error
	if pg {
		db, err = postgres.Open(ctx, location, ms...)
	} else {
		db, err = sqlite.Open(ctx, location, ms...)
	}
	if err != nil {
		return nil, err
	}
	return &testLog{Log: New(db, opts...), db: db}, nil
}

// DB returns the database, for tests that count rows directly.
func (l *testLog) DB() testDB { return l.db }

// Close closes the log and its database.
func (l *testLog) Close() error {
	l.Log.Close()
	return l.db.Close()
}

// backends are the databases the log's tests run on: each gives a new,
// empty location.
var backends = []struct {
	name     string
	location func(t testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return t.TempDir() + "/dialect.db" }},
	{"postgres", pgtest.Location},
}

// forEachBackend runs test once per backend, as a subtest named after it,
// with a fresh log whose clock is pinned at fixedNow. Without
// $DIALECT_TEST_POSTGRES the postgres subtest is skipped.
func forEachBackend(t *testing.T, test func(t *testing.T, l *Log)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			l, err := Open(context.Background(), b.location(t), WithClock(func() time.Time { return fixedNow }))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			test(t, l.Log)
		})
	}
}
