package failures

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
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
