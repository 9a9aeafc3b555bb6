package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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

// Messages are written many to a statement; one the database refuses
// loses only itself, the messages of its statement are tried alone, and
// every written one is found by the full-text search.
func TestBatchedMessageRefused(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	ss := s.(*sqlStore)
	if err := ss.write(ctx, func(tx txn) error {
		_, err := tx.exec(ctx, `CREATE TRIGGER refuse BEFORE INSERT ON messages WHEN new.content LIKE '%refused%' BEGIN SELECT RAISE(ABORT, 'refused'); END`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var errs []error
	b, _ := NewBatched(s, 1024, func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() })
	defer b.Close()
	const n = 300 // more than one statement's rows
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("logged answer %d", i)
		if i%97 == 5 {
			text = fmt.Sprintf("refused answer %d", i)
		}
		b.LogMessage(ctx, Message{Session: "s", Role: "assistant", Content: text})
	}
	hits, err := b.SearchMessages(ctx, "logged", MessageQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hits) != n-4 || len(errs) != 4 {
		t.Fatalf("%d hits, want %d; errors %v", len(hits), n-4, errs)
	}
	var count int
	if err := ss.db.QueryRowContext(ctx, `SELECT count(*) FROM messages`).Scan(&count); err != nil || count != n-4 {
		t.Fatalf("%d rows (%v), want %d", count, err, n-4)
	}
}

// A Flush returns once what was queued before it is written, without
// waiting out the writer's linger; a Flush that races Close returns too.
func TestBatchedFlushAndClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := 0; i < 5; i++ {
		path := filepath.Join(t.TempDir(), fmt.Sprint(i, ".db"))
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := NewBatched(s, 64, nil)
		b.LogMessage(ctx, Message{Session: "s", Role: "assistant", Content: "first"})
		if err := b.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if m, err := b.Store.LastMessage(ctx, "s", ""); err != nil || m.Content != "first" {
			t.Fatalf("after Flush: %+v, %v", m, err)
		}
		b.LogMessage(ctx, Message{Session: "s", Role: "assistant", Content: "second"})
		done := make(chan error, 1)
		go func() { done <- b.Flush(ctx) }()
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("Flush racing Close: %v", err)
		}
		s2, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := s2.LastMessage(ctx, "s", "")
		s2.Close()
		if err != nil || m.Content != "second" {
			t.Fatalf("after Close: %+v, %v", m, err)
		}
	}
}

// benchText is an assistant answer of about 1.6 KB, the median size of
// the real answers in ../shared/data/llm_outputs, with words varied per
// message so that the full-text index grows as it does on real text.
func benchText(i int) string {
	var b strings.Builder
	for b.Len() < 1600 {
		fmt.Fprintf(&b, "Revenue in region %d grew by %d percent while costs in quarter %d stayed flat; ", i%97, i%13, i%7)
		b.WriteString("the team should review the forecast, the hiring plan and the vendor contracts before the board meeting. ")
	}
	return b.String()
}

// BenchmarkBatchedLogMessage is the cost of logging one message through
// Batched from 8 goroutines, written (Flush) before the clock stops: the
// writer's CPU per message, the price a logging proxy pays for each
// answer.
func BenchmarkBatchedLogMessage(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "b.db"))
	if err != nil {
		b.Fatal(err)
	}
	bs, err := NewBatched(s, 4096, func(err error) { b.Error(err) })
	if err != nil {
		b.Fatal(err)
	}
	defer bs.Close()
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = benchText(i)
	}
	b.SetBytes(int64(len(texts[0])))
	b.ReportAllocs()
	b.SetParallelism(4)
	cpu0 := cpuTime()
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			if _, err := bs.LogMessage(ctx, Message{Session: "s", Role: "assistant", Agent: "a", Model: "m", Content: texts[i%64]}); err != nil {
				b.Error(err)
			}
		}
	})
	if err := bs.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time the process has used (user and system): on a
// shared machine, a steadier measure of work than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMessageLog is what logging one real answer costs in SQLite,
// by how many messages share a transaction ("batch"): the row alone, as
// the log path writes it now that the full-text index catches up later
// ("log"), and the row with its index entry written by a trigger as it
// is inserted, as every message was before store/4 ("eager"). cpu-ns/op
// is CPU per message. BenchmarkMessageCatchUp is the other half of the
// lazy log's cost. Needs the real answers in ../shared/data/llm_outputs.
func BenchmarkMessageLog(b *testing.B) {
	texts := realAnswers(b)
	var size int
	for _, t := range texts {
		size += len(t)
	}
	for _, bc := range []struct {
		name  string
		eager bool
		batch int
	}{{"log/batch=1", false, 1}, {"log/batch=8", false, 8}, {"log/batch=64", false, 64}, {"log/batch=512", false, 512},
		{"eager/batch=1", true, 1}, {"eager/batch=8", true, 8}, {"eager/batch=64", true, 64}, {"eager/batch=512", true, 512}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			s := openBench(b)
			if bc.eager {
				if err := s.write(ctx, func(tx txn) error {
					_, err := tx.exec(ctx, `DROP TRIGGER messages_ai; CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
						INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content); END`)
					return err
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(size / len(texts)))
			b.ReportAllocs()
			cpu0 := cpuTime()
			for i := 0; i < b.N; {
				i = logBench(b, s, texts, i, min(bc.batch, b.N-i))
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkMessageCatchUp is what indexing one logged real answer costs
// when the conversation log's index catches up with b.N messages written
// without it (untimed), at most "rows" of them to a transaction (the
// search's catch-up takes catchUpRows, an idle writer idleRows).
// cpu-ns/op is CPU per message.
func BenchmarkMessageCatchUp(b *testing.B) {
	texts := realAnswers(b)
	var size int
	for _, t := range texts {
		size += len(t)
	}
	for _, rows := range []int{64, 256, 1024, 4096} {
		b.Run(fmt.Sprint("rows=", rows), func(b *testing.B) {
			ctx := context.Background()
			s := openBench(b)
			for i := 0; i < b.N; {
				i = logBench(b, s, texts, i, min(512, b.N-i))
			}
			b.SetBytes(int64(size / len(texts)))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			_, top, err := s.messageMark(ctx)
			for mark := int64(0); err == nil && mark < top; {
				mark, err = s.indexMessages(ctx, top, rows)
			}
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			if hits, err := s.SearchMessages(ctx, "the", MessageQuery{Limit: 1}); err != nil || len(hits) != 1 {
				b.Fatalf("%d hits, %v", len(hits), err)
			}
		})
	}
}

// openBench opens a fresh SQLite store for a benchmark.
func openBench(b *testing.B) *sqlStore {
	st, err := Open(context.Background(), filepath.Join(b.TempDir(), "m.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st.(*sqlStore)
}

// logBench writes n of texts, from the i-th on, in one transaction as
// the batched writer does, and returns the next i.
func logBench(b *testing.B, s *sqlStore, texts []string, i, n int) int {
	ctx := context.Background()
	items := make([]item, n)
	for k := range items {
		items[k] = item{msg: &Message{Session: "s", Role: "assistant", Content: texts[(i+k)%len(texts)], At: time.Now()}}
	}
	errs := make([]error, n)
	err := s.write(ctx, func(tx txn) error { return insertMessages(ctx, tx, items, errs) })
	if err == nil {
		err = errors.Join(errs...)
	}
	if err != nil {
		b.Fatal(err)
	}
	return i + n
}

// realAnswers reads the texts of ../shared/data/llm_outputs (or
// $DIALECT_DATA), skipping when they are absent.
func realAnswers(tb testing.TB) []string {
	dir := os.Getenv("DIALECT_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "llm_outputs", "*.jsonl"))
	if len(files) == 0 {
		tb.Skipf("no real model outputs under %s (set DIALECT_DATA)", dir)
	}
	sort.Strings(files)
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var rec struct{ Text string }
			if json.Unmarshal(line, &rec) == nil && rec.Text != "" {
				out = append(out, rec.Text)
			}
		}
	}
	return out
}

// A batched message keeps its labels, as LogMessage keeps them: the
// conversation search's #tag and *project filters find it.
func TestBatchedMessageLabels(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, be.location(t))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			b, _ := NewBatched(s, 16, nil)
			defer b.Close()
			b.LogMessage(ctx, Message{Session: "s", Role: "assistant", Content: "shipped the release", Tags: []string{"release"}, Project: "apollo"})
			b.LogMessage(ctx, Message{Session: "s", Role: "assistant", Content: "shipped the fix"})
			for _, q := range []MessageQuery{{Tags: []string{"release"}}, {Project: "apollo"}} {
				hits, err := b.SearchMessages(ctx, "shipped", q)
				if err != nil || len(hits) != 1 || hits[0].Content != "shipped the release" {
					t.Errorf("%+v: %d hits %v", q, len(hits), err)
				}
			}
		})
	}
}
