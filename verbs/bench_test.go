package verbs

import (
	"context"
	"strings"
	"testing"
)

// benchActions is one typical action per built-in verb.
var benchActions = []struct {
	verb string
	in   Input
}{
	{"recall", Input{Args: `project_notes + "deadline moved to Friday, see @last.output"`}},
	{"context", Input{Args: `human "likes tea" -> "likes coffee"`}},
	{"search", Input{Args: "budget review in conversations > 2 weeks #work ^5 role:assistant"}},
	{"send", Input{Args: `@agent @anchor "the report is ready for review"`}},
	{"reply", Input{Args: `"Done, see the summary above."`}},
	{"post", Input{Args: `@bluesky "Shipped the new release today."`}},
	{"dm", Input{Args: `"Your build finished."`}},
	{"tell", Input{Args: `@anchor "the partner seems stressed"`}},
	{"fetch", Input{Args: "https://go.dev/doc/go1.26 html"}},
	{"web", Input{Args: "go 1.26 release notes"}},
	{"calc", Input{Args: "radius = 5; pi * radius^2"}},
	{"approve", Input{Args: "12 always"}},
	{"deny", Input{Args: `12 "too risky"`}},
	{"escalate", Input{Args: `12 "needs a human decision"`}},
	{"cancel", Input{Args: "12"}},
	{"halt", Input{Args: `"runaway loop"`, Marker: "!"}},
}

// BenchmarkParse measures parse time per action for each built-in verb:
// lexing, matching the verb's grammar and building the intent.
func BenchmarkParse(b *testing.B) {
	r := mustRegistry(b, nil, nil)
	ctx := context.Background()
	for _, a := range benchActions {
		b.Run(a.verb, func(b *testing.B) {
			a.in.Blocks = testBlocks
			if _, err := r.Parse(ctx, a.verb, a.in); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(a.in.Args)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Parse(ctx, a.verb, a.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewRegistry measures building a registry: compiling every
// built-in grammar.
func BenchmarkNewRegistry(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewRegistryWith(nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseAdversarial measures long arguments made of nothing but
// grammar keywords and symbols, the worst case for wildcard matching
// (about 12–20 KB each).
func BenchmarkParseAdversarial(b *testing.B) {
	r := mustRegistry(b, nil, nil)
	ctx := context.Background()
	for _, c := range []struct{ name, verb, args string }{
		{"recall-plus", "recall", strings.Repeat("x + ", 2000)},
		{"context-arrows", "context", "x " + strings.Repeat(`"a" -> `, 2000)},
		{"search-mods", "search", strings.Repeat("in all > 2 weeks ", 800)},
		{"approve-always", "approve", strings.Repeat("from now on ", 1500)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.args)))
			b.ReportAllocs()
			for b.Loop() {
				r.Parse(ctx, c.verb, Input{Args: c.args})
			}
		})
	}
}
