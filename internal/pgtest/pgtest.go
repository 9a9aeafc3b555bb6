// Package pgtest gives tests a PostgreSQL database of their own on the
// server named by $DIALECT_TEST_POSTGRES (a postgres:// URL; .ci/run starts
// a throwaway server and sets it).
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Env is the variable that names the test server.
const Env = "DIALECT_TEST_POSTGRES"

// SkipMessage is what a test that needs PostgreSQL says when Env is unset.
const SkipMessage = "PostgreSQL not configured: set " + Env + " to a postgres:// URL (.ci/run starts a server and sets it)"

// Available reports whether Env is set.
func Available() bool { return os.Getenv(Env) != "" }

// Location returns a postgres:// URL for a new, empty schema on the test
// server, which is dropped when t ends: the URL sets search_path to it, so
// everything the test creates lands there and tests running at once do not
// meet. Without Env, t is skipped with SkipMessage; with Env set, a server
// that cannot be reached fails t.
func Location(t testing.TB) string {
	t.Helper()
	base := os.Getenv(Env)
	if base == "" {
		t.Skip(SkipMessage)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	defer db.Close()
	schema := fmt.Sprintf("t_%016x", rand.Uint64())
	if _, err := db.ExecContext(context.Background(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("%s: create schema: %v", Env, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		if _, err := db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
