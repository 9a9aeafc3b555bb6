package turn_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/turn"
)

func openRuntime(t *testing.T, toml string) *dialect.Runtime {
	t.Helper()
	cfg, err := dialect.ParseConfig("test.toml", []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "t.db")
	rt, err := dialect.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

func run(t *testing.T, rt *dialect.Runtime, text string) []dialect.Result {
	t.Helper()
	res, err := rt.Run(context.Background(), dialect.Message{Text: text, Agent: "scout", Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestText(t *testing.T) {
	rt := openRuntime(t, "")
	cases := []struct {
		name string
		msg  string
		want string
	}{
		{"ok", "Let me work it out.\n/calc 6 * 7\n",
			"Results of your actions:\n/calc 6 * 7 → ok\n  42"},
		{"did you mean", "Approving.\n/aprove 3\n",
			"Results of your actions:\n/aprove 3 → error UNKNOWN_VERB: /aprove is not a verb — did you mean /approve? Write: /approve 3"},
		{"no candidate", "/xyzzy now\n",
			"Results of your actions:\n/xyzzy now → error UNKNOWN_VERB: /xyzzy is not a verb. Fix it and write the action again."},
		{"pending", "Telling them.\n/send @user \"the build is green\" !\n",
			"Results of your actions:\n/send @user \"the build is green\" ! → pending #1: /send needs approval (marked ! (serious)) — queued as #1. It runs once the owner approves it; do not write it again."},
		{"denied", "/approve 1\n",
			"Results of your actions:\n/approve 1 → denied: agent \"scout\" does not hold the approve role. It will not run; do not write it again."},
		{"chain", "/calc 2 + 3 -> /calc @last.output * 2\n",
			"Results of your actions:\n/calc 2 + 3 → ok\n  5\n  rest of the chain, not run: /calc @last.output * 2 — write it again to run it (@last.output is the output above)"},
		{"skipped only", "I could /calc 1 + 1 but no need.\n", ""},
		{"reconsidered", "/calc 1 + 1\nActually, never mind.\n", ""},
		{"world failure has no fix", "/recall read no_such_block\n",
			"Results of your actions:\n/recall read no_such_block → error NOT_FOUND: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := turn.Text(run(t, rt, c.msg), turn.Options{})
			if c.name == "world failure has no fix" {
				if !strings.HasPrefix(got, c.want) || strings.Contains(got, "Write") || strings.Contains(got, "Fix it") {
					t.Fatalf("got %q, want prefix %q and no fix", got, c.want)
				}
				return
			}
			if got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
			if turn.Needed(run(t, rt, "")) {
				t.Fatal("Needed on no results")
			}
		})
	}
}

func TestTextMalformedNamesForm(t *testing.T) {
	rt := openRuntime(t, "")
	got := turn.Text(run(t, rt, "/fetch\n"), turn.Options{})
	if !strings.Contains(got, "error MISSING_ARG") || !strings.Contains(got, "Fix it and write the action again.") {
		t.Fatalf("got %q", got)
	}
}

func TestTextCutsLongOutput(t *testing.T) {
	rt := openRuntime(t, "")
	st, err := rt.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("line of the notes é\n", 400) // 8,400 bytes
	if _, err := store.Put(context.Background(), st, store.Archival, "notes", long); err != nil {
		t.Fatal(err)
	}
	res := run(t, rt, "/recall read notes\n")
	got := turn.Text(res, turn.Options{MaxOutput: 1000})
	if len(got) > 1200 || !strings.Contains(got, "[cut: ") || !strings.Contains(got, " of 8") {
		t.Fatalf("not cut (%d bytes):\n%s", len(got), got)
	}
	if strings.Contains(got, "\uFFFD") {
		t.Fatal("cut inside a rune")
	}
	if full := turn.Text(res, turn.Options{MaxOutput: -1}); strings.Contains(full, "[cut") {
		t.Fatal("cut with no limit")
	}
}

func TestCarried(t *testing.T) {
	got := turn.Carried("Results of your actions:\n/x → ok\n  a --> b")
	if strings.Count(got, "-->") != 1 || !strings.HasSuffix(strings.TrimSpace(got), "-->") {
		t.Fatalf("comment can end early: %q", got)
	}
	if turn.Carried("") != "" {
		t.Fatal("empty text carried")
	}
}
