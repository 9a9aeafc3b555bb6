package store

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func testRules(t *testing.T, s Store) {
	ctx := context.Background()
	save := func(r Rule) Rule {
		t.Helper()
		got, err := s.SaveRule(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	any := Rule{Agent: "*", Verb: "*", Op: "*", Target: "*", Args: "*"}
	with := func(r Rule, f func(*Rule)) Rule { f(&r); return r }
	denyPosts := save(with(any, func(r *Rule) { r.Verb, r.Decision = "send", Deny; r.Op = "post" }))
	save(with(any, func(r *Rule) { r.Agent, r.Verb, r.Target, r.Decision = "scout", "send", "bluesky", Allow }))
	// The case: a denial of one search must not deny inserts.
	save(with(any, func(r *Rule) {
		r.Agent, r.Verb, r.Op, r.Target, r.Decision, r.Note = "worker", "recall", "search", "", Deny, "no digging"
	}))
	save(with(any, func(r *Rule) {
		r.Agent, r.Verb, r.Op, r.Target, r.Args, r.Decision = "scout", "fetch", "", "fetch", "https://go.dev/*", Allow
	}))
	for _, tt := range []struct {
		name string
		a    Action
		want Decision // "" for no rule
	}{
		{"allow beats the broader deny", Action{"scout", "send", "post", "bluesky", "hi"}, Allow},
		{"the broader deny", Action{"scout", "send", "post", "discord", "hi"}, Deny},
		{"another agent", Action{"other", "send", "post", "bluesky", "hi"}, Deny},
		{"another operation", Action{"other", "send", "tell", "agent:anchor", "hi"}, ""},
		{"the denied search", Action{"worker", "recall", "search", "", "anything"}, Deny},
		{"an insert is another operation", Action{"worker", "recall", "insert", "", "important fact"}, ""},
		{"argument pattern", Action{"scout", "fetch", "", "fetch", "https://GO.dev/doc/"}, Allow},
		{"outside the pattern", Action{"scout", "fetch", "", "fetch", "https://go.dev.evil.example/"}, ""},
	} {
		r, ok, err := s.MatchRule(ctx, tt.a)
		if err != nil {
			t.Fatal(err)
		}
		if got := map[bool]Decision{true: r.Decision}[ok]; got != tt.want {
			t.Errorf("%s: %+v → %q (rule %+v), want %q", tt.name, tt.a, got, r, tt.want)
		}
	}
	r, _, _ := s.MatchRule(ctx, Action{"worker", "recall", "search", "", "x"})
	if r.Note != "no digging" || r.ID == 0 || r.Created.IsZero() {
		t.Errorf("the matched rule carries its note, id and time: %+v", r)
	}
	// Saving the same coverage again replaces the decision.
	again := save(with(denyPosts, func(r *Rule) { r.ID, r.Decision = 0, Allow }))
	if again.ID != denyPosts.ID {
		t.Errorf("same coverage got a new id %d (was %d)", again.ID, denyPosts.ID)
	}
	list, _ := s.Rules(ctx)
	if len(list) != 4 || list[0].Decision != Allow {
		t.Errorf("Rules = %+v", list)
	}
	if err := s.RemoveRule(ctx, denyPosts.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveRule(ctx, denyPosts.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("removing a removed rule: %v", err)
	}
	if _, ok, _ := s.MatchRule(ctx, Action{"scout", "send", "post", "discord", "hi"}); ok {
		t.Error("a removed rule still decides")
	}
	for _, bad := range []Rule{with(any, func(r *Rule) { r.Decision = "maybe" }), with(any, func(r *Rule) { r.Decision, r.Args = Deny, "" })} {
		if _, err := s.SaveRule(ctx, bad); err == nil {
			t.Errorf("saved a bad rule %+v", bad)
		}
	}
}

func testRulePrecedence(t *testing.T, s Store) {
	ctx := context.Background()
	base := Rule{Agent: "a", Verb: "v", Op: "*", Target: "*", Args: "*"}
	allow, deny := base, base
	allow.Decision, deny.Decision = Allow, Deny
	deny.Target = "t"
	allow.Op = "o"
	s.SaveRule(ctx, allow)
	s.SaveRule(ctx, deny)
	if r, _, _ := s.MatchRule(ctx, Action{"a", "v", "o", "t", ""}); r.Decision != Deny {
		t.Errorf("equally specific rules: %q decided, want the denial", r.Decision)
	}
}

func TestMatchArgs(t *testing.T) {
	for _, tt := range []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"*", "anything", true},
		{"", "", true},
		{"", "x", false},
		{"abc", "ABC", true},
		{"a*c", "abbbc", true},
		{"a*c", "abbbd", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{`a\*c`, "a*c", true},
		{`a\*c`, "abc", false},
		{QuoteArgs("what? *all* of it\\"), "what? *all* of it\\", true},
		{QuoteArgs("what? *all*"), "what! *all*", false},
		{"https://go.dev/*", "https://go.dev/doc/", true},
		{"https://go.dev/*", "https://go.dev.evil/x", false},
		{"*a*a*a*a*a*b", strings.Repeat("a", 200), false},
		{"ünï*", "ÜNÏCODE", true},
	} {
		if got := MatchArgs(tt.pattern, tt.s); got != tt.want {
			t.Errorf("MatchArgs(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// globRegexp is the reference reading of a pattern.
func globRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?is)^")
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; {
		case c == '*':
			b.WriteString(".*")
		case c == '?':
			b.WriteString(".")
		case c == '\\' && i+1 < len(rs):
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func FuzzMatchArgs(f *testing.F) {
	f.Add("a*c", "abc")
	f.Add(`\*?x*`, "*yx")
	f.Add("*a*a*b", "aaaaaaaa")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if !utf8.ValidString(pattern) || !utf8.ValidString(s) || len(pattern) > 64 || len(s) > 256 {
			return
		}
		// The reference lower-cases the same way MatchArgs does.
		want := globRegexp(strings.ToLower(pattern)).MatchString(strings.ToLower(s))
		if got := MatchArgs(pattern, s); got != want {
			t.Fatalf("MatchArgs(%q, %q) = %v, regexp says %v", pattern, s, got, want)
		}
		if !MatchArgs(QuoteArgs(s), s) {
			t.Fatalf("QuoteArgs(%q) does not match itself", s)
		}
	})
}
