package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/loop"
)

func openRuntime(t *testing.T) *dialect.Runtime {
	t.Helper()
	cfg, err := dialect.ParseConfig("test.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "s.db")
	rt, err := dialect.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// The hand-written loop and loop.Run hold the same conversation with the
// scripted model: the question, the reply that acts, its results, the
// answer made from them.
func TestHandWrittenAndLoopAgree(t *testing.T) {
	for name, run := range map[string]func(context.Context, *dialect.Runtime, loop.Model, string) ([]loop.Message, error){
		"hand-written": handWritten, "loop.Run": withLoop,
	} {
		t.Run(name, func(t *testing.T) {
			var sys []string
			m := loop.ModelFunc(func(ctx context.Context, req loop.Request, w io.Writer) (loop.Reply, error) {
				sys = append(sys, req.System)
				return scripted{}.Reply(ctx, req, w)
			})
			msgs, err := run(context.Background(), openRuntime(t), m, "What is 17% of 2,340?")
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 4 || msgs[1].Text != "Let me compute that.\n/calc 17% of 2340\n" || msgs[3].Text != "It is 397.8." {
				t.Fatalf("conversation %q", msgs)
			}
			if r := msgs[2]; r.Role != loop.User || !strings.HasPrefix(r.Text, "Results of your actions:\n/calc") || !strings.Contains(r.Text, "→ ok\n  397.8") {
				t.Fatalf("results turn %q", r.Text)
			}
			for _, s := range sys {
				if !strings.HasPrefix(s, "You are a careful assistant.\n\n# Actions") {
					t.Fatalf("system prompt %.60q", s)
				}
			}
		})
	}
}
