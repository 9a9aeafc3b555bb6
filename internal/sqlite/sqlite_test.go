package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

var (
	notesV1 = Migration{Owner: "notes", Version: 1, Name: "notes", SQL: `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`}
	notesV2 = Migration{Owner: "notes", Version: 2, Name: "tags", SQL: `CREATE TABLE tags (note INTEGER NOT NULL REFERENCES notes(id), tag TEXT NOT NULL);
CREATE INDEX tags_tag ON tags (tag)`}
	otherV1 = Migration{Owner: "other", Version: 1, Name: "kv", SQL: `CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)`}
)

func appliedList(t *testing.T, db *DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT owner, version FROM dialect_migrations ORDER BY owner, version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o string
		var v int
		rows.Scan(&o, &v)
		out = append(out, fmt.Sprintf("%s/%d", o, v))
	}
	return out
}

func TestOpenMigratesAndReopens(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "dir", "test.db") // directories are created
	db, err := Open(ctx, path, notesV1, otherV1)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(appliedList(t, db)); got != "[notes/1 other/1]" {
		t.Errorf("applied %s", got)
	}
	if _, err := db.Exec(`INSERT INTO notes (body) VALUES ('a')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// Reopen with a new migration of one owner and without the other owner:
	// only notes/2 runs, other/1 is left alone, data is kept.
	db, err = Open(ctx, path, notesV2, notesV1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := fmt.Sprint(appliedList(t, db)); got != "[notes/1 notes/2 other/1]" {
		t.Errorf("applied %s", got)
	}
	var n int
	db.QueryRow(`SELECT count(*) FROM notes`).Scan(&n)
	if n != 1 {
		t.Errorf("%d notes after reopening, want 1", n)
	}
	if db.Path() != path {
		t.Errorf("Path() = %q", db.Path())
	}
}

func TestOpenSettings(t *testing.T) {
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "x?y#z%.db"), notesV1, notesV2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(3) // every connection has the settings, not only the first
	var conns []*sql.Conn
	for i := 0; i < 3; i++ {
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
		var mode string
		var fk, busy int
		conn.QueryRowContext(context.Background(), `PRAGMA journal_mode`).Scan(&mode)
		conn.QueryRowContext(context.Background(), `PRAGMA foreign_keys`).Scan(&fk)
		conn.QueryRowContext(context.Background(), `PRAGMA busy_timeout`).Scan(&busy)
		if mode != "wal" || fk != 1 || busy != int(BusyTimeout.Milliseconds()) {
			t.Errorf("conn %d: journal_mode %s, foreign_keys %d, busy_timeout %d", i, mode, fk, busy)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	// Foreign keys are enforced.
	if _, err := db.Exec(`INSERT INTO tags (note, tag) VALUES (42, 'x')`); err == nil {
		t.Error("a tag for a missing note was accepted")
	}
}

func TestMigrationErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bad := []struct {
		name string
		ms   []Migration
	}{
		{"gap", []Migration{notesV2}},
		{"duplicate", []Migration{notesV1, notesV1}},
		{"no owner", []Migration{{Version: 1, SQL: "SELECT 1"}}},
		{"no SQL", []Migration{{Owner: "x", Version: 1}}},
	}
	for _, c := range bad {
		_, err := Open(ctx, filepath.Join(dir, c.name+".db"), c.ms...)
		if !errors.Is(err, ErrInvalidMigrations) {
			t.Errorf("%s: got %v, want ErrInvalidMigrations", c.name, err)
		}
	}
	path := filepath.Join(dir, "db.db")
	db, err := Open(ctx, path, notesV1, notesV2)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	edited := notesV1
	edited.SQL += " -- edited"
	_, err = Open(ctx, path, edited, notesV2)
	var me *MigrationError
	if !errors.Is(err, ErrMigrationChanged) || !errors.As(err, &me) || me.Owner != "notes" || me.Version != 1 {
		t.Errorf("edited migration: got %v", err)
	}
	if _, err = Open(ctx, path, notesV1); !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("older program: got %v, want ErrSchemaTooNew", err)
	}
	// A migration that fails leaves nothing behind: not even the first of
	// the pending ones.
	broken := Migration{Owner: "notes", Version: 3, Name: "broken", SQL: "CREATE TABLE z (a); SELECT nonsense FROM nowhere"}
	if _, err = Open(ctx, path, notesV1, notesV2, broken, Migration{Owner: "third", Version: 1, SQL: "CREATE TABLE t3 (a)"}); err == nil {
		t.Fatal("broken migration applied")
	}
	db, err = Open(ctx, path, notesV1, notesV2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name IN ('z', 't3')`).Scan(&n)
	if n != 0 || fmt.Sprint(appliedList(t, db)) != "[notes/1 notes/2]" {
		t.Errorf("a failed migration left %d tables and %v applied", n, appliedList(t, db))
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("DIALECT_DB", "/tmp/x/dialect.db")
	if p, _ := DefaultPath(); p != "/tmp/x/dialect.db" {
		t.Errorf("with $DIALECT_DB: %q", p)
	}
	t.Setenv("DIALECT_DB", "")
	t.Setenv("XDG_STATE_HOME", "/state")
	if p, _ := DefaultPath(); p != "/state/dialect/dialect.db" {
		t.Errorf("with $XDG_STATE_HOME: %q", p)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if p, _ := DefaultPath(); p != "/home/u/.local/state/dialect/dialect.db" {
		t.Errorf("default: %q", p)
	}
}

// TestConcurrentOpenAndWrite opens one fresh file from 8 separate pools at
// once (each its own connections, as separate processes would have), all
// racing to migrate it, then each writes rows through Write. The
// failures package has the same test with real processes.
func TestConcurrentOpenAndWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "race.db")
	const writers, rows = 8, 100
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			db, err := Open(context.Background(), path, notesV1, notesV2, otherV1)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			for i := 0; i < rows; i++ {
				err := db.Write(context.Background(), func(tx *sql.Tx) error {
					_, err := tx.Exec(`INSERT INTO notes (body) VALUES (?)`, fmt.Sprintf("w%d-%d", w, i))
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	db.QueryRow(`SELECT count(DISTINCT body) FROM notes`).Scan(&n)
	if n != writers*rows {
		t.Errorf("%d rows, want %d", n, writers*rows)
	}
	if got := fmt.Sprint(appliedList(t, db)); got != "[notes/1 notes/2 other/1]" {
		t.Errorf("applied %s", got)
	}
}

func TestWriteRollsBackOnError(t *testing.T) {
	db, err := Open(context.Background(), ":memory:", notesV1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	boom := errors.New("boom")
	err = db.Write(context.Background(), func(tx *sql.Tx) error {
		tx.Exec(`INSERT INTO notes (body) VALUES ('x')`)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("got %v", err)
	}
	var n int
	db.QueryRow(`SELECT count(*) FROM notes`).Scan(&n)
	if n != 0 {
		t.Errorf("rolled-back row is there")
	}
	if IsBusy(boom) || IsBusy(nil) {
		t.Error("IsBusy on a non-SQLite error")
	}
}
