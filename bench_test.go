package dialect

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkRunAction measures whole actions executed in-process: detect,
// resolve, parse, gate, execute against the SQLite store, log.
func BenchmarkRunAction(b *testing.B) {
	for _, bc := range []struct{ name, msg string }{
		{"recall-append", "Saving.\n/recall notes + \"deadline is friday\"\n"},
		{"recall-search", "Looking.\n/recall friday deadline\n"},
		{"calc", "Computing.\n/calc 20% of 350\n"},
		{"mention-only", "I could /recall the notes but won't; see /etc/hosts.\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg, err := ParseConfig("bench", []byte("[store]\nlog_messages = false\n"))
			if err != nil {
				b.Fatal(err)
			}
			cfg.Store.Path = filepath.Join(b.TempDir(), "bench.db")
			rt, err := Open(context.Background(), cfg)
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
