package main

import (
	"slices"
	"testing"

	"github.com/pattern-dialect/dialect/grammarbridge"
)

const testGrammar = `<Start> = <Play> | <Set>;
<Play> = (<Polite>)? play $(song:wildcard) -> { song } | (<Polite>)? play $(song:wildcard) by $(artist:wildcard) -> { song, artist };
<Set> = set volume to $(n:number) (percent)? -> { n } | pick the $(o:Ordinal) one -> { o };
`

// TestInputs checks that the inputs are as many as asked, distinct,
// the same for the same seed, and that the expansions match the grammar
// (every fifth of the first twelve in twenty is one, by inputs' order).
func TestInputs(t *testing.T) {
	f, err := grammarbridge.Parse("t.agr", testGrammar)
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammarbridge.CompileString("t.agr", "import { Ordinal };\n"+testGrammar, grammarbridge.Options{PhraseSets: true})
	if err != nil {
		t.Fatal(err)
	}
	a := inputs(f, 40, 3)
	if len(a) != 40 {
		t.Fatalf("%d inputs, want 40", len(a))
	}
	if b := inputs(f, 40, 3); !slices.Equal(a, b) {
		t.Errorf("the same seed gave other inputs:\n%q\n%q", a, b)
	}
	if c := inputs(f, 40, 4); slices.Equal(a, c) {
		t.Errorf("another seed gave the same inputs")
	}
	seen := map[string]bool{}
	matched := 0
	for i, in := range a {
		if seen[in] {
			t.Errorf("%q twice", in)
		}
		seen[in] = true
		if i%20 < 12 { // an expansion (inputs' first case)
			ms, err := g.Match(in)
			if err != nil || len(ms) == 0 {
				t.Errorf("expansion %q does not match: %v", in, err)
			}
			matched++
		}
	}
	if matched == 0 {
		t.Fatal("no expansion checked")
	}
}
