package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pattern-dialect/dialect/internal/migrate"
)

// DefaultMaxConns is the pool's size when the location does not set
// pool_max_conns.
const DefaultMaxConns = 10

// retryWindow is how long Write keeps retrying a transaction that meets a
// serialization failure or a deadlock before giving up.
const retryWindow = 60 * time.Second

// IsLocation reports whether location names a PostgreSQL database: a
// postgres:// or postgresql:// URL.
func IsLocation(location string) bool {
	l := strings.ToLower(location)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// DB is an open database: a pool of connections, plus the location it was
// opened from. Use Write for transactions that modify the database.
type DB struct {
	*sql.DB
	location string
}

// Location returns the URL the database was opened from, without its
// password.
func (db *DB) Location() string { return db.location }

// Open connects to the database at location (a postgres:// URL, with any
// parameter pgx accepts; pool_max_conns sets the pool's size), and applies
// the migrations that have not been applied yet.
func Open(ctx context.Context, location string, migrations ...migrate.Migration) (*DB, error) {
	if err := migrate.Validate(migrations); err != nil {
		return nil, err
	}
	u, err := url.Parse(location)
	if err != nil || !IsLocation(location) {
		return nil, fmt.Errorf("postgres: %q is not a postgres:// URL", redact(location))
	}
	maxConns := DefaultMaxConns
	q := u.Query()
	if v := q.Get("pool_max_conns"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("postgres: pool_max_conns=%q is not a positive number", v)
		}
		maxConns = n
		q.Del("pool_max_conns")
		u.RawQuery = q.Encode()
	}
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	sdb := stdlib.OpenDB(*cfg)
	sdb.SetMaxOpenConns(maxConns)
	sdb.SetMaxIdleConns(maxConns)
	sdb.SetConnMaxIdleTime(5 * time.Minute)
	db := &DB{DB: sdb, location: u.Redacted()}
	if err := sdb.PingContext(ctx); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("postgres: connect to %s: %w", db.location, err)
	}
	if err := db.migrate(ctx, migrations); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

// redact removes the password from a location that does not parse as a
// URL, for messages.
func redact(location string) string {
	if u, err := url.Parse(location); err == nil {
		return u.Redacted()
	}
	if at := strings.LastIndexByte(location, '@'); at >= 0 {
		return "…" + location[at:]
	}
	return location
}

// Write runs fn in a SERIALIZABLE transaction and commits it, so that fn
// behaves as if no other transaction ran beside it, as on SQLite. A
// transaction that PostgreSQL aborts for a serialization failure or a
// deadlock is rolled back and run again, with a jittered backoff, for up to
// a minute or until ctx is done. fn must therefore be safe to run more than
// once: it should only touch the database through tx.
func (db *DB) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	deadline := time.Now().Add(retryWindow)
	backoff := time.Millisecond
	for {
		err := db.try(ctx, fn)
		if err == nil || !IsRetryable(err) || time.Now().After(deadline) {
			return err
		}
		wait := backoff/2 + rand.N(backoff)
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
		if backoff < 200*time.Millisecond {
			backoff *= 2
		}
	}
}

func (db *DB) try(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// IsRetryable reports whether err is a serialization failure (40001) or a
// deadlock (40P01): the transaction met another and may succeed when run
// again.
func IsRetryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// IsUniqueViolation reports whether err is a unique constraint violation
// (23505).
func IsUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// Rebind turns the `?` placeholders of query into $1, $2, ... in order.
// A `?` inside a string literal, a quoted identifier or a comment is left
// alone.
func Rebind(query string) string {
	if strings.IndexByte(query, '?') < 0 {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(query) && query[j] != c {
				j++
			}
			end := min(j+1, len(query))
			b.WriteString(query[i:end])
			i = end - 1
		case c == '-' && i+1 < len(query) && query[i+1] == '-':
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				j = len(query) - i
			}
			b.WriteString(query[i : i+j])
			i += j - 1
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Rebind is the package function Rebind, as a method so that DB offers
// what callers that write portable SQL need.
func (db *DB) Rebind(query string) string { return Rebind(query) }
