package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
)

func TestDemo(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-demo", "-db", filepath.Join(t.TempDir(), "s.db")}, &out); err != nil {
		t.Fatal(err)
	}
	want := "Let me compute that.\n  [/calc ok: 397.8]\nIt is 397.8.\n(2 turns, stopped: done, "
	if got := out.String(); len(got) < len(want) || got[:len(want)] != want {
		t.Fatalf("got %q", got)
	}
}
