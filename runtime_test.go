package dialect

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func mustRuntime(t *testing.T, toml string) *Runtime {
	t.Helper()
	cfg, err := ParseConfig("test.toml", []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "never-opened.db")
	rt, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

func TestRuntimeDetectResolves(t *testing.T) {
	rt := mustRuntime(t, `
[dialect.verbs.recall]
extra_aliases = ["jot down"]

[dialect.verbs.notify]
aliases = ["heads up"]
maps_to = "send"
`)
	msg := "Let me look.\n/serch budget\n/heads up partner seems stressed\n/jot down buy milk\n/look up the weather\n"
	acts := rt.Detect(msg)
	want := []struct{ token, verb, args string }{
		{"serch", "search", "budget"},
		{"heads up", "notify", "partner seems stressed"},
		{"jot down", "recall", "buy milk"},
		{"look up", "web", "the weather"},
	}
	if len(acts) != len(want) {
		t.Fatalf("got %d actions: %+v", len(acts), acts)
	}
	for i, w := range want {
		a := acts[i]
		if a.Token != w.token || a.Verb != w.verb || a.Action.Args != w.args || !a.Action.Executable {
			t.Errorf("action %d = token %q verb %q args %q executable %v (%s), want %+v",
				i, a.Token, a.Verb, a.Action.Args, a.Action.Executable, a.Reason, w)
		}
	}
}

func TestRuntimeStrictNeverFuzzy(t *testing.T) {
	rt := mustRuntime(t, "")
	for _, tok := range []string{"aprove", "approved", "dney", "hlat"} {
		acts := rt.Detect("/" + tok + " 12\n")
		if len(acts) != 1 || acts[0].Action.Executable || acts[0].Verb != "" {
			t.Errorf("/%s: %+v — a near miss of a strict verb must not resolve", tok, acts)
		}
	}
}

func TestRuntimeConfigErrorPosition(t *testing.T) {
	cfg, err := ParseConfig("v.toml", []byte(`
[dialect.verbs.a]
aliases = ["x"]
maps_to = "send"

[dialect.verbs.notify]
aliases = ["ping"]
maps_to = "teleport"
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), cfg)
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *ConfigError", err)
	}
	if ce.File != "v.toml" || ce.Line != 8 || ce.Column != 1 || ce.Key != "dialect.verbs.notify.maps_to" {
		t.Errorf("error at %s:%d:%d key %q, want v.toml:8:1 dialect.verbs.notify.maps_to (%v)", ce.File, ce.Line, ce.Column, ce.Key, err)
	}
}
