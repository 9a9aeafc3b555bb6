package verbs

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestRegistryExtensions(t *testing.T) {
	r, err := NewRegistryWith([]Extension{
		{Name: "recall", ExtraAliases: []string{"memorize", "Jot  Down", "note to self"}},
		{Name: "notify", Aliases: []string{"alert", "ping", "heads up"}, MapsTo: "send",
			DefaultTarget: &Target{Type: "agent", ID: "anchor"}, Description: "Quick notification",
			Examples: []string{"/notify something weird happened"}},
		{Name: "shame", Aliases: []string{"call out", "roast"}, MapsTo: "send", Template: "shame post template: {content}", RequiresPermission: true},
		{Name: "greenlight", MapsTo: "approve"},
		{Name: "player", MapsTo: "music", Grammar: &GrammarRef{File: "lights.agr", Start: "Start"}},
	}, Options{Tools: []string{"music"}, GrammarDir: "testdata/grammars"})
	if err != nil {
		t.Fatal(err)
	}
	rc := r.Verb("recall")
	for _, a := range []string{"remember", "memorize", "jot down", "note to self"} {
		if !slices.Contains(rc.Aliases, a) {
			t.Errorf("recall lacks alias %q: %v", a, rc.Aliases)
		}
	}
	if rc.Custom || rc.Strictness != Loose {
		t.Errorf("recall changed kind: %+v", rc)
	}
	n := r.Verb("notify")
	if n == nil || !n.Custom || n.MapsTo != "send" || n.DefaultTarget.ID != "anchor" || n.Strictness != Normal || len(n.Examples) != 1 {
		t.Fatalf("notify = %+v", n)
	}
	if s := r.Verb("shame"); !s.RequiresPermission || s.Template == "" {
		t.Errorf("shame = %+v", s)
	}
	if g := r.Verb("greenlight"); g.Strictness != Strict || !g.Authority {
		t.Errorf("a verb mapped to approve must be strict and need authority: %+v", g)
	}
	if p := r.Verb("player"); p.MapsTo != "music" || p.Grammar.Start != "Start" {
		t.Errorf("player = %+v", p)
	}
	if got := r.Claimants("REMEMBER"); !slices.Equal(got, []string{"recall", "context"}) {
		t.Errorf("Claimants(remember) = %v", got)
	}
	if got := r.Claimants("heads  up"); !slices.Equal(got, []string{"notify"}) {
		t.Errorf("Claimants(heads up) = %v", got)
	}
	names := []string{}
	for _, v := range r.Verbs() {
		names = append(names, v.Name)
	}
	if !slices.Equal(names[len(names)-4:], []string{"greenlight", "notify", "player", "shame"}) {
		t.Errorf("custom verbs not appended in name order: %v", names)
	}
}

func TestRegistryErrors(t *testing.T) {
	for _, tt := range []struct {
		ext Extension
		key string
		msg string
	}{
		{Extension{Name: "recall", Aliases: []string{"x"}}, "dialect.verbs.recall.aliases", "extra_aliases"},
		{Extension{Name: "recall", MapsTo: "send"}, "dialect.verbs.recall", "only be given"},
		{Extension{Name: "notify", Aliases: []string{"ping"}}, "dialect.verbs.notify.maps_to", "needs maps_to"},
		{Extension{Name: "notify", ExtraAliases: []string{"ping"}, MapsTo: "send"}, "dialect.verbs.notify.extra_aliases", "custom verb takes aliases"},
		{Extension{Name: "notify", MapsTo: "teleport"}, "dialect.verbs.notify.maps_to", "neither"},
		{Extension{Name: "notify", MapsTo: "send", Strictness: "lax"}, "dialect.verbs.notify.strictness", "loose, normal or strict"},
		{Extension{Name: "notify", MapsTo: "send", Aliases: []string{"/ping"}}, "dialect.verbs.notify.aliases", "not a verb phrase"},
		{Extension{Name: "9lives", MapsTo: "send"}, "dialect.verbs.9lives", "letter"},
	} {
		_, err := NewRegistry([]Extension{tt.ext}, nil)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
			t.Errorf("%+v: error %v, want key %s mentioning %q", tt.ext, err, tt.key, tt.msg)
		}
	}
	_, err := NewRegistry([]Extension{{Name: "a", MapsTo: "send"}, {Name: "b", MapsTo: "a"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "itself a custom verb") {
		t.Errorf("custom → custom: %v", err)
	}
}

// TestBuiltinGrammarsCompile: the built-in grammars compile on a verb's
// first parse, so a broken one would show only then; this compiles every
// one now.
func TestBuiltinGrammarsCompile(t *testing.T) {
	r := mustRegistry(t, nil, nil)
	for name, b := range r.builtins {
		if err := b.load(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if b.grammar == nil || b.keywords == nil {
			t.Errorf("%s: grammar %v, keywords %v", name, b.grammar != nil, b.keywords)
		}
	}
}
