package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pattern-dialect/dialect"
)

// benchServer opens a runtime on toml and returns it with the message to
// run; the servers are not started.
func benchOpen(b *testing.B, toml string) *dialect.Runtime {
	cfg, err := dialect.ParseConfig("bench.toml", []byte(toml))
	if err != nil {
		b.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(b.TempDir(), "d.db")
	cfg.Store.LogMessages = false
	rt, err := dialect.Open(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return rt
}

func benchRun(b *testing.B, rt *dialect.Runtime, msg string) {
	res, err := rt.Run(context.Background(), dialect.Message{Text: msg})
	if err != nil || len(res) != 1 || res[0].Status != dialect.StatusOK {
		b.Fatalf("%+v %v", res, err)
	}
}

// benchMCP measures one action of an MCP tool through the whole pipeline:
// first, in a new runtime (the server starts, lists its tools, then the
// call: what a one-shot `dialect run` pays), and warm, in a runtime whose
// server is running (what a proxy or a loop pays per call).
func benchMCP(b *testing.B, toml, msg string) {
	b.Run("first", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			rt := benchOpen(b, toml)
			benchRun(b, rt, "/calc 1+1\n") // the store is opened outside the timing
			b.StartTimer()
			benchRun(b, rt, msg)
			b.StopTimer()
			rt.Close()
			b.StartTimer()
		}
	})
	b.Run("warm", func(b *testing.B) {
		rt := benchOpen(b, toml)
		defer rt.Close()
		benchRun(b, rt, msg)
		b.ReportAllocs()
		for b.Loop() {
			benchRun(b, rt, msg)
		}
	})
}

func BenchmarkMCPGoServer(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "plan.txt"), []byte("ship friday"), 0o644)
	benchMCP(b, notesServer("notes", dir), "/notes read_note plan\n")
}

func BenchmarkMCPFilesystem(b *testing.B) {
	npmDir := npmPackages(b)
	root := b.TempDir()
	os.WriteFile(filepath.Join(root, "todo.txt"), []byte("ship the MCP support\n"), 0o644)
	benchMCP(b, fsConfig(npmDir, root, ""), "/fs read_text_file "+root+"/todo.txt\n")
}
