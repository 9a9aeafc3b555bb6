package dialect

import (
	"context"
	"path/filepath"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/pattern-dialect/dialect/internal/pgtest"
)

// BenchmarkRunAction measures whole actions executed in-process: detect,
// resolve, parse, gate, execute against the store, log; on SQLite and (with
// $DIALECT_TEST_POSTGRES) PostgreSQL, with telemetry off, and for calc with
// telemetry on (in-memory SDK providers: the cost of recording, without an
// exporter's).
func BenchmarkRunAction(b *testing.B) {
	for _, store := range []struct {
		name     string
		location func(testing.TB) string
	}{
		{"sqlite", func(b testing.TB) string { return filepath.Join(b.TempDir(), "bench.db") }},
		{"postgres", pgtest.Location},
	} {
		for _, bc := range []struct {
			name, msg string
			tel       bool
		}{
			{"recall-append", "Saving.\n/recall notes + \"deadline is friday\"\n", false},
			{"recall-search", "Looking.\n/recall friday deadline\n", false},
			{"calc", "Computing.\n/calc 20% of 350\n", false},
			{"calc-telemetry", "Computing.\n/calc 20% of 350\n", true},
			{"mention-only", "I could /recall the notes but won't; see /etc/hosts.\n", false},
		} {
			b.Run(store.name+"/"+bc.name, func(b *testing.B) {
				cfg, err := ParseConfig("bench", []byte("[store]\nlog_messages = false\n"))
				if err != nil {
					b.Fatal(err)
				}
				cfg.Store.Path = store.location(b)
				var opts []Option
				if bc.tel {
					opts = append(opts, WithTracerProvider(sdktrace.NewTracerProvider()),
						WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))))
				}
				rt, err := Open(context.Background(), cfg, opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer rt.Close()
				msg := Message{Text: bc.msg, Model: "bench", Session: "s"}
				b.ReportAllocs()
				b.SetBytes(int64(len(bc.msg)))
				for b.Loop() {
					if _, err := rt.Run(context.Background(), msg); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "actions/s")
			})
		}
	}
}

// BenchmarkOpen measures what `dialect run` pays before its first action:
// building the registry and resolver and opening an existing SQLite file.
func BenchmarkOpen(b *testing.B) {
	cfg, err := ParseConfig("embedded default", nil)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(b.TempDir(), "open.db")
	rt, err := Open(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	rt.Close()
	b.ReportAllocs()
	for b.Loop() {
		rt, err := Open(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := rt.Store(context.Background()); err != nil {
			b.Fatal(err)
		}
		rt.Close()
	}
}
