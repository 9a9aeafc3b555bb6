package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/pattern-dialect/dialect/internal/migrate"
	"github.com/pattern-dialect/dialect/internal/pgtest"
)

func TestRebind(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE a = ? AND b IN (?, ?)`, `SELECT a FROM t WHERE a = $1 AND b IN ($2, $3)`},
		{`SELECT '?', "?x", ? -- what?` + "\n" + `, ?`, `SELECT '?', "?x", $1 -- what?` + "\n" + `, $2`},
		{`SELECT 'it''s ?', ?`, `SELECT 'it''s ?', $1`},
		{`SELECT '?`, `SELECT '?`}, // unterminated: left as written
	} {
		if got := Rebind(c.in); got != c.want {
			t.Errorf("Rebind(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestIsLocation(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://h/db": true, "POSTGRESQL://u@h/db": true, "/tmp/x.db": false, "postgres.db": false, "": false,
	} {
		if IsLocation(in) != want {
			t.Errorf("IsLocation(%q) = %v", in, !want)
		}
	}
}

var notes = migrate.Migration{Owner: "notes", Version: 1, Name: "notes", SQL: `CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT NOT NULL)`}

// TestConcurrentMigrations opens one fresh database from many goroutines
// at once, each with its own pool: the migration runs once, under the
// advisory lock, and every opener succeeds.
func TestConcurrentMigrations(t *testing.T) {
	loc := pgtest.Location(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := Open(ctx, loc, notes)
			if err == nil {
				db.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i, err)
		}
	}
	db, err := Open(ctx, loc, notes)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM dialect_migrations`).Scan(&n); err != nil || n != 1 {
		t.Errorf("dialect_migrations has %d rows (%v), want 1", n, err)
	}
	edited := notes
	edited.SQL += " -- edited"
	if _, err := Open(ctx, loc, edited); !errors.Is(err, migrate.ErrMigrationChanged) {
		t.Errorf("edited migration: %v", err)
	}
	if _, err := Open(ctx, loc, migrate.Migration{Owner: "notes", Version: 2, Name: "x", SQL: "SELECT 1"}); !errors.Is(err, migrate.ErrInvalidMigrations) {
		t.Errorf("gap: %v", err)
	}
}

// TestWriteRetriesSerializationFailures increments one counter from many
// goroutines in read-then-write transactions: without the SERIALIZABLE
// level and the retry, increments are lost or fail.
func TestWriteRetriesSerializationFailures(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, pgtest.Location(t), migrate.Migration{Owner: "c", Version: 1, Name: "c", SQL: `CREATE TABLE c (id INT PRIMARY KEY, n INT NOT NULL); INSERT INTO c VALUES (1, 0)`})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const workers, each = 6, 20
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := db.Write(ctx, func(tx *sql.Tx) error {
					var n int
					if err := tx.QueryRowContext(ctx, db.Rebind(`SELECT n FROM c WHERE id = ?`), 1).Scan(&n); err != nil {
						return err
					}
					_, err := tx.ExecContext(ctx, db.Rebind(`UPDATE c SET n = ? WHERE id = ?`), n+1, 1)
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var n int
	db.QueryRow(`SELECT n FROM c`).Scan(&n)
	if n != workers*each {
		t.Errorf("counter = %d, want %d", n, workers*each)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, "postgres://u:secret@127.0.0.1:1/db?connect_timeout=2"); err == nil {
		t.Fatal("connected to nothing")
	} else if s := fmt.Sprint(err); contains(s, "secret") {
		t.Errorf("error shows the password: %s", s)
	}
	if _, err := Open(ctx, "postgres://h/db?pool_max_conns=0"); err == nil {
		t.Error("pool_max_conns=0 accepted")
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
