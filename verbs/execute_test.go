package verbs

import (
	"context"
	"errors"
	"testing"

	"github.com/pattern-dialect/dialect/intent"
)

func TestExecuteHook(t *testing.T) {
	var got []string
	rec := ExecutorFunc(func(_ context.Context, verb string, in intent.Intent) (Output, error) {
		got = append(got, verb+":"+in.Kind())
		return Output{Text: "ok"}, nil
	})
	r := mustRegistry(t, []Extension{{Name: "notify", MapsTo: "send"}, {Name: "ticket", MapsTo: "tracker"}},
		&Options{Tools: []string{"tracker"}, Executors: map[string]Executor{"calc": rec, "send": rec, "tracker": rec}})
	ctx := context.Background()
	for _, verb := range []string{"calc", "notify", "ticket"} {
		if out, err := r.Execute(ctx, verb, intent.Calc{Expr: "1"}); err != nil || out.Text != "ok" {
			t.Errorf("%s: %v %v", verb, out, err)
		}
	}
	if len(got) != 3 || got[1] != "notify:calc" {
		t.Errorf("calls %v", got)
	}
	if _, err := r.Execute(ctx, "web", intent.Web{Query: "x"}); !errors.Is(err, ErrNoExecutor) {
		t.Errorf("web: %v", err)
	}
	if r.Grammar("search") == nil || r.Grammar("notify") != nil || r.Grammar("nope") != nil {
		t.Error("Grammar accessor")
	}
}
