package dialect_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/verbs"
)

// A cancellation while a message's actions run lets the action that
// writes finish, and starts none after it.
func TestCancelStopsBetweenActions(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sawCancelled []bool
	write := verbs.Definition{
		Name: "jot", Description: "writes",
		Executor: verbs.ExecutorFunc(func(ctx context.Context, c verbs.Call) (verbs.Output, error) {
			cancel() // the host gives up while this write runs
			sawCancelled = append(sawCancelled, ctx.Err() != nil)
			return verbs.Output{Text: "written"}, nil
		}),
	}
	cfg, err := dialect.ParseConfig("t.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "t.db")
	rt, err := dialect.Open(context.Background(), cfg, dialect.WithVerb(write))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	res, err := rt.Run(ctx, dialect.Message{Text: "/jot one\n/jot two\n"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sawCancelled) != 1 || sawCancelled[0] {
		t.Fatalf("the write ran %d times, saw a cancelled context: %v", len(sawCancelled), sawCancelled)
	}
	if res[0].Status != dialect.StatusOK || res[0].Output != "written" {
		t.Fatalf("first: %+v", res[0])
	}
	if res[1].Status != dialect.StatusError || res[1].Code != codes.Cancelled {
		t.Fatalf("second: %+v", res[1])
	}
}
