package failures

import (
	"context"

	"github.com/pattern-dialect/dialect/internal/sqlite"
)

// testLog is a Log over its own SQLite file, as the store keeps one.
type testLog struct {
	*Log
	db *sqlite.DB
}

// Open opens a SQLite file holding only the log's tables, for the tests
// of this package (the runtime reaches the log through its store).
func Open(ctx context.Context, path string, opts ...Option) (*testLog, error) {
	var ms []sqlite.Migration
	for _, s := range Schema() {
		ms = append(ms, sqlite.Migration{Owner: "failures", Version: s.Version, Name: s.Name, SQL: s.SQL})
	}
	db, err := sqlite.Open(ctx, path, ms...)
	if err != nil {
		return nil, err
	}
	return &testLog{Log: New(db, opts...), db: db}, nil
}

// DB returns the database, for tests that count rows directly.
func (l *testLog) DB() *sqlite.DB { return l.db }

// Close closes the log and its database.
func (l *testLog) Close() error {
	l.Log.Close()
	return l.db.Close()
}
