package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

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
