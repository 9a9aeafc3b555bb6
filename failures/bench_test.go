package failures

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// benchRows makes n failures like the runtime logs them: unknown verbs
// from a long tail, and argument failures, across eight models.
func benchRows(n int, seed uint64) []Failure {
	rng := rand.New(rand.NewPCG(seed, 2))
	fs := make([]Failure, n)
	for i := range fs {
		tok := fmt.Sprintf("tok%d", int(rng.ExpFloat64()*300))
		f := Failure{Time: fixedNow.Add(-time.Duration(rng.Int64N(int64(7 * 24 * time.Hour)))),
			Model: fmt.Sprintf("model-%d", rng.IntN(8)), Agent: "agent", Session: fmt.Sprintf("s%d", rng.IntN(10000)),
			Raw: "/" + tok + " project deadlines for the launch", Token: tok, Context: "Let me check what we discussed."}
		if rng.IntN(3) == 0 {
			f.Token, f.Verb, f.Detail = "fetch", "fetch", MissingArgDetail{"fetch", "url"}
		} else {
			f.Detail = UnknownVerbDetail{Attempted: tok}
			f.Candidates = []Candidate{{Verb: "search", Score: 0.5, Tier: "edit"}}
		}
		fs[i] = f
	}
	// A log is written in time order.
	slices.SortFunc(fs, func(a, b Failure) int { return a.Time.Compare(b.Time) })
	return fs
}

// BenchmarkRecordBatch inserts batches of 1000 rows into a growing log;
// rows/s is the throughput target of issue 8 (≥ 100k rows/s).
func BenchmarkRecordBatch(b *testing.B) {
	l := openTest(b)
	rows := benchRows(1000, 1)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := l.RecordBatch(ctx, rows); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(rows))/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkRecord is one row per transaction, as a runtime that does not
// buffer would write.
func BenchmarkRecord(b *testing.B) {
	l := openTest(b)
	rows := benchRows(1000, 1)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := l.Record(ctx, rows[i%len(rows)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReport builds the weekly report over a log of
// $DIALECT_BENCH_ROWS rows (default 100,000; the 1M-row figure comes from
// go run ./internal/eval/failures).
func BenchmarkReport(b *testing.B) {
	n := 100000
	if s := os.Getenv("DIALECT_BENCH_ROWS"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			n = v
		}
	}
	l := openTest(b)
	ctx := context.Background()
	rows := benchRows(n, 3)
	for i := 0; i < n; i += 5000 {
		if err := l.RecordBatch(ctx, rows[i:min(i+5000, n)]); err != nil {
			b.Fatal(err)
		}
	}
	rows = nil
	cfg := ReportConfig{Suggest: testSuggest()}
	since := StartOfDay(fixedNow.Add(-7 * 24 * time.Hour))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := l.Report(ctx, since, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if r.Failures != n {
			b.Fatalf("report counts %d of %d rows", r.Failures, n)
		}
	}
	b.ReportMetric(float64(n), "rows")
}
