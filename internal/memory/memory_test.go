package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

func TestSummary(t *testing.T) {
	v := func(op, content string) store.Version { return store.Version{Op: op, Content: content} }
	for _, tt := range []struct {
		prev  string
		v     store.Version
		first bool
		want  string
	}{
		{"", v("create", "deadline is Monday\nbudget"), true, `new: "deadline is Monday …"`},
		{"a", v("append", "a\nb"), false, `+1 -0 lines: + "b"`},
		{"a\nb\nc", v("patch", "a\nc"), false, `+0 -1 lines: - "b"`},
		{"a\nb", v("replace", "a\nB"), false, `+1 -1 lines: + "B"`},
		{"same", v("restore v1", "same"), false, "no change to the text"},
		{"x", v("delete", "x"), false, "deleted"},
		{"", v("create", strings.Repeat("long ", 30)), true, "new: \"long long"},
	} {
		if got := Summary(tt.prev, tt.v, tt.first); !strings.HasPrefix(got, tt.want) {
			t.Errorf("Summary(%q → %q) = %q, want %q", tt.prev, tt.v.Content, got, tt.want)
		}
	}
	if got := Summary("", v("create", strings.Repeat("x", 200)), true); len([]rune(got)) > 60 {
		t.Errorf("a summary is not clipped: %d characters", len([]rune(got)))
	}
}

func TestFormatHistoryShowsTheLatest(t *testing.T) {
	var vs []store.Version
	for i := 1; i <= 25; i++ {
		vs = append(vs, store.Version{Version: i, Op: "append", At: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Agent: "scout", Content: strings.Repeat("x\n", i)})
	}
	out := FormatHistory("log", vs, 20)
	if !strings.HasPrefix(out, "log: 25 versions (current v25)\n(5 earlier versions not shown") || strings.Contains(out, "\nv5 ") || !strings.Contains(out, "\nv6 ") {
		t.Errorf("history:\n%s", out)
	}
	if n := strings.Count(out, "\nv"); n != 20 {
		t.Errorf("%d versions listed, want 20", n)
	}
	if all := FormatHistory("log", vs, 0); strings.Count(all, "\nv") != 25 {
		t.Error("shown 0 does not list all")
	}
}

func TestLimitsOf(t *testing.T) {
	l := Limits{Archival: 100, Working: 10, Blocks: map[string]int{"human": 3}}
	for _, tt := range []struct {
		kind store.Kind
		name string
		want int
	}{{store.Archival, "plan", 100}, {store.Working, "persona", 10}, {store.Working, "human", 3}, {store.Archival, "human", 3}, {store.Archival, "", 100}} {
		if got := l.Of(tt.kind, tt.name); got != tt.want {
			t.Errorf("Of(%s, %q) = %d, want %d", tt.kind, tt.name, got, tt.want)
		}
	}
	if err := l.check(store.Working, "human", "äöü"); err != nil {
		t.Errorf("3 characters (6 bytes) were refused: limits count characters: %v", err)
	}
	if err := l.check(store.Working, "human", "abcd"); codes.Of(err) != codes.BlockFull {
		t.Errorf("4 characters: %v", err)
	}
}

// TestWriteRecordsTheAgent: every write through the executor names the
// agent of the call in the history.
func TestWriteRecordsTheAgent(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x := Executor{Store: func(context.Context) (store.Store, error) { return st, nil }}
	for i, it := range []intent.Intent{
		intent.Recall{Op: intent.RecallAppend, Block: "plan", Content: "a"},
		intent.Recall{Op: intent.RecallAppend, Block: "plan", Content: "b"},
		intent.Recall{Op: intent.RecallRestore, Block: "plan", Version: 1},
		intent.Recall{Op: intent.RecallDelete, Block: "plan"},
	} {
		if _, err := x.Execute(ctx, verbs.Call{Verb: "recall", Runs: "recall", Intent: it, Agent: fmt.Sprint("agent", i)}); err != nil {
			t.Fatal(err)
		}
	}
	vs, _ := st.History(ctx, store.Archival, "plan")
	for i, v := range vs {
		if v.Agent != fmt.Sprint("agent", i) {
			t.Errorf("v%d was made by %q, want agent%d", v.Version, v.Agent, i)
		}
	}
}
