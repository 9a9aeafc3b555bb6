package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/internal/migrate"
	"github.com/pattern-dialect/dialect/internal/sqlite"
)

// TestLazyIndexFindsEveryMessage logs messages on SQLite without
// indexing them, more than one catch-up transaction takes, and searches:
// the first and the last are found, and so is a message another handle
// on the same file (another process) logged after the first search.
func TestLazyIndexFindsEveryMessage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "d.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := st.(*sqlStore)
	n := catchUpRows*2 + 17
	for i := range n {
		content := fmt.Sprint("filler number ", i)
		switch i {
		case 0:
			content = "the aardvark came first"
		case n - 1:
			content = "the zebra came last"
		}
		if _, err := s.LogMessage(ctx, Message{Session: "s", Role: "assistant", Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	if mark, top := marks(t, s); mark != 0 || top != int64(n) {
		t.Fatalf("before a search: mark %d, top %d; want 0, %d (logging wrote the index)", mark, top, n)
	}
	for _, word := range []string{"aardvark", "zebra"} {
		hits, err := s.SearchMessages(ctx, word, MessageQuery{})
		if err != nil || len(hits) != 1 {
			t.Fatalf("search %q: %d hits, %v", word, len(hits), err)
		}
	}
	if mark, top := marks(t, s); mark != top {
		t.Fatalf("after a search: mark %d, top %d", mark, top)
	}

	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.LogMessage(ctx, Message{Session: "t", Role: "user", Content: "a quokka from elsewhere"}); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchMessages(ctx, "quokka", MessageQuery{})
	if err != nil || len(hits) != 1 || hits[0].Session != "t" {
		t.Fatalf("message from another handle: %+v, %v", hits, err)
	}
	// Filler is in the index once: a message indexed twice would be
	// counted twice by FTS5.
	var count int
	if err := s.queryRow(ctx, `SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'filler'`).Scan(&count); err != nil || count != n-2 {
		t.Fatalf("filler in the index %d times (%v), want %d", count, err, n-2)
	}
}

// TestBatchedIndexesWhileIdle logs through a batched writer and waits: the
// index catches up with no search asking for it.
func TestBatchedIndexesWhileIdle(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	var failed error
	b, err := NewBatched(st, 1024, func(err error) { failed = err })
	if err != nil {
		t.Fatal(err)
	}
	const n = idleRows*3 + 5
	for i := range n {
		if _, err := b.LogMessage(ctx, Message{Session: "s", Role: "assistant", Content: fmt.Sprint("word ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := st.(*sqlStore)
	deadline := time.Now().Add(10 * time.Second)
	for {
		mark, top := marks(t, s)
		if top == n && mark == top {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("idle writer left the index at %d of %d", mark, top)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := b.Close(); err != nil || failed != nil { // failed is read after the writer has stopped
		t.Fatal(err, failed)
	}
}

// TestMigrationIndexMark opens a conversation log written by store/3,
// whose messages were indexed as they were written: they are found, and
// none is indexed a second time as the index catches up.
func TestMigrationIndexMark(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "d.db")
	ms := sqliteMigrations()[:3]
	for _, step := range failures.Schema() {
		ms = append(ms, migrate.Migration{Owner: "failures", Version: step.Version, Name: step.Name, SQL: step.SQL})
	}
	db, err := sqlite.Open(ctx, path, ms...)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO messages (session, role, content, at) VALUES ('s', 'user', 'an old pelican', 1), ('s', 'user', 'another old pelican', 2)`)
		return err
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := st.(*sqlStore)
	if mark, top := marks(t, s); mark != 2 || top != 2 {
		t.Fatalf("after migration: mark %d, top %d; want 2, 2", mark, top)
	}
	if _, err := s.LogMessage(ctx, Message{Session: "s", Role: "user", Content: "a new pelican"}); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchMessages(ctx, "pelican", MessageQuery{})
	if err != nil || len(hits) != 3 {
		t.Fatalf("pelicans: %d hits, %v", len(hits), err)
	}
}

// marks returns the index's mark and the newest message's id.
func marks(t *testing.T, s *sqlStore) (mark, top int64) {
	t.Helper()
	mark, top, err := s.messageMark(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return mark, top
}

// TestBatchedIndexBoundedUnderLoad logs through a batched writer faster
// than it is ever idle: the messages waiting for the index stay within
// maxBehind and one batch.
func TestBatchedIndexBoundedUnderLoad(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBatched(st, 1024, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const n = maxBehind + 4*maxBatch
	for i := range n {
		if _, err := b.LogMessage(ctx, Message{Session: "s", Role: "assistant", Content: fmt.Sprint("word ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	mark, top := marks(t, st.(*sqlStore))
	if top != n || top-mark > maxBehind+maxBatch {
		t.Fatalf("%d messages, %d of them waiting for the index; want at most %d", top, top-mark, maxBehind+maxBatch)
	}
}
