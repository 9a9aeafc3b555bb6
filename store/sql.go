package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/failures"
)

// database is what the SQL store needs of a backend: a pool for reads, a
// retried write transaction, and Rebind for the portable `?` placeholders
// of the store's SQL. *sqlite.DB (through sqliteDB) and *postgres.DB
// provide it; it is also what the failure log needs (failures.DB).
type database interface {
	failures.DB
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
	Close() error
}

// flavor is what differs between the backends beyond placeholders: the
// full-text search queries and what follows a copy.
type flavor struct {
	name string // "sqlite" or "postgres"
	// searchBlocks and searchMessages return the SQL and arguments of a
	// full-text search for any of words, among the rows that the
	// condition where (on the alias b for blocks, m for messages, with
	// its args) admits, best first, at most limit; the columns are those
	// of Hit and MessageHit.
	searchBlocks   func(words []string, where string, args []any, limit int) (string, []any)
	searchMessages func(words []string, where string, args []any, limit int) (string, []any)
	// strpos is the function that finds a substring, strpos(s, sub) > 0
	// when s holds sub.
	strpos string
	// snapshot is how Copy reads a source: a read-only transaction that
	// sees one state of the database.
	snapshot *sql.TxOptions
	// afterCopy runs in the copy's transaction once the rows are in (on
	// PostgreSQL: moving the id sequences past the copied ids).
	afterCopy func(ctx context.Context, tx txn, tables []table) error
	// lazyMessageIndex: the conversation log's full-text index is
	// written when it is needed, not with each message (store/4 on
	// SQLite; see index.go).
	lazyMessageIndex bool
}

// sqlStore is a Store in a SQL database, SQLite or PostgreSQL. The SQL is
// written once, portably, with `?` placeholders; the flavor holds what
// cannot be. Many processes may use one store at once: every change is one
// write transaction that behaves as if it ran alone (SQLite's write lock;
// PostgreSQL's SERIALIZABLE level, retried).
type sqlStore struct {
	db       database
	flavor   flavor
	location string
	log      *failures.Log
	now      func() time.Time
}

func newSQLStore(db database, f flavor, location string) *sqlStore {
	return &sqlStore{db: db, flavor: f, location: location, log: failures.New(db), now: time.Now}
}

// Failures implements Store.
func (s *sqlStore) Failures() *failures.Log { return s.log }

// Location implements Store: the file's path, or the URL without its
// password.
func (s *sqlStore) Location() string { return s.location }

// Close implements Store.
func (s *sqlStore) Close() error {
	s.log.Close()
	return s.db.Close()
}

func (s *sqlStore) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return s.db.QueryContext(ctx, s.db.Rebind(q), cleanArgs(args)...)
}

func (s *sqlStore) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, s.db.Rebind(q), cleanArgs(args)...)
}

// cleanArgs makes every string argument valid UTF-8 without NUL, in
// place: invalid bytes and NUL become U+FFFD. PostgreSQL refuses both in
// text, SQLite keeps them; cleaning them on every backend makes the stores
// keep the same text.
func cleanArgs(args []any) []any {
	for i, a := range args {
		if s, ok := a.(string); ok && (!utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0) {
			args[i] = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
		}
	}
	return args
}

// write runs fn in one write transaction (see database.Write: fn may run
// more than once).
func (s *sqlStore) write(ctx context.Context, fn func(tx txn) error) error {
	return s.db.Write(ctx, func(t *sql.Tx) error { return fn(txn{t, s.db.Rebind}) })
}

// txn is a write transaction whose statements are rebound for the backend.
type txn struct {
	tx     *sql.Tx
	rebind func(string) string
}

func (t txn) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, t.rebind(q), cleanArgs(args)...)
}

func (t txn) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(ctx, t.rebind(q), cleanArgs(args)...)
}

func (t txn) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(ctx, t.rebind(q), cleanArgs(args)...)
}
