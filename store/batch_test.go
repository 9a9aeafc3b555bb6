package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/failures"
)

// Every queued write is in the database after Close, however many
// writers raced, and a read sees the writes queued before it.
func TestBatchedLosesNothing(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) { batchedLosesNothing(t, be.location(t)) })
	}
}

func batchedLosesNothing(t *testing.T, path string) {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	var mu sync.Mutex
	b, err := NewBatched(s, 4096, func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.LogMessage(ctx, Message{Session: "s0", Role: "assistant", Content: "first words"}); err != nil {
		t.Fatal(err)
	}
	if m, err := b.LastMessage(ctx, "s0", ""); err != nil || m.Content != "first words" {
		t.Fatalf("read after a queued write: %+v, %v", m, err)
	}
	const writers, each = 8, 100
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := b.LogMessage(ctx, Message{Session: fmt.Sprint("s", w), Role: "assistant", Content: fmt.Sprint("message ", i)}); err != nil {
					t.Error(err)
				}
				if i%50 == 0 {
					f := failures.Failure{Time: time.Now(), Code: codes.UnknownVerb, Raw: "/serch x", Token: "serch", Agent: "a"}
					if _, err := b.Failures().Record(ctx, f); err != nil {
						t.Error(err)
					}
				}
			}
		}(w)
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.LogMessage(ctx, Message{Content: "late"}); err != ErrClosed {
		t.Fatalf("write after Close: %v", err)
	}
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	ss := s2.(*sqlStore)
	var n int
	if err := ss.db.QueryRowContext(ctx, `SELECT count(*) FROM messages`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != writers*each+1 {
		t.Fatalf("%d messages in the database, want %d", n, writers*each+1)
	}
	c, err := s2.Failures().Count(ctx, failures.Filter{})
	if err != nil || c != writers*each/50 {
		t.Fatalf("%d failures, want %d (%v)", c, writers*each/50, err)
	}
}

// One write that fails loses only itself.
func TestBatchedFailedWriteAlone(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) { batchedFailedWriteAlone(t, be.location(t)) })
	}
}

func batchedFailedWriteAlone(t *testing.T, loc string) {
	ctx := context.Background()
	s, err := Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	b, _ := NewBatched(s, 4, func(err error) { errs = append(errs, err) })
	defer b.Close()
	b.LogMessage(ctx, Message{Session: "s", Content: "kept one"})
	b.LogMessage(ctx, Message{Session: "s", Content: "kept two"})
	b.enqueue(ctx, item{fn: func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO no_such_table VALUES (1)`)
		return err
	}})
	b.LogMessage(ctx, Message{Session: "s", Content: "kept three"})
	hits, err := b.SearchMessages(ctx, "kept", MessageQuery{})
	if err != nil || len(hits) != 3 || len(errs) != 1 {
		t.Fatalf("%d hits, errors %v, %v", len(hits), errs, err)
	}
}
