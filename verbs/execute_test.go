package verbs

import (
	"context"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

func TestExecuteDispatches(t *testing.T) {
	var got []string
	rec := ExecutorFunc(func(_ context.Context, c Call) (Output, error) {
		got = append(got, c.Verb+":"+c.Runs+":"+c.Intent.Kind())
		return Output{Text: "ok"}, nil
	})
	r := mustRegistry(t, []Extension{{Name: "notify", MapsTo: "send"}, {Name: "ticket", MapsTo: "tracker"}},
		&Options{Tools: []string{"tracker"}, Executors: map[string]Executor{"calc": rec, "send": rec, "tracker": rec}})
	ctx := context.Background()
	calls := []struct {
		verb string
		in   intent.Intent
		runs string
	}{
		{"calc", intent.Calc{Expr: "1"}, "calc"},
		{"notify", intent.Custom{Verb: "notify", MapsTo: "send", Inner: intent.Send{Domain: "user", Content: "x"}}, "send"},
		{"tell", intent.Send{Domain: "agent", Target: "a", Content: "x", Via: "tell"}, "send"},
		{"ticket", intent.Custom{Verb: "ticket", MapsTo: "tracker"}, "tracker"},
	}
	for _, c := range calls {
		runs := r.Runs(c.verb, c.in)
		if runs != c.runs {
			t.Errorf("Runs(%s) = %q, want %q", c.verb, runs, c.runs)
		}
		if out, err := r.Execute(ctx, Call{Verb: c.verb, Runs: runs, Intent: c.in}); err != nil || out.Text != "ok" {
			t.Errorf("%s: %v %v", c.verb, out, err)
		}
	}
	if len(got) != 4 || got[1] != "notify:send:custom" || got[2] != "tell:send:send" {
		t.Errorf("calls %v", got)
	}
	if _, err := r.Execute(ctx, Call{Verb: "web", Runs: "web", Intent: intent.Web{Query: "x"}}); codes.Of(err) != codes.NotConfigured {
		t.Errorf("web with no executor: %v", err)
	}
	if r.Grammar("search") == nil || r.Grammar("notify") != nil || r.Grammar("nope") != nil {
		t.Error("Grammar accessor")
	}
}
