package grammarbridge

import "testing"

// minLenGrammar has wildcards followed by parts that need input of
// various least lengths: literals of several tokens, numbers, nested and
// optional rules, recursion, non-ASCII literals.
const minLenGrammar = `
<Start> = <Two> | <Nest> | <Rec> | <Opt> | <Wide> | <Tight>;
<Two> = two $(a:wildcard) $(b:wildcard) end -> [a, b];
<Nest> = nest $(a:wildcard) <Mid> $(b:wildcard) -> [a, b];
<Mid> = (with the | by) $(n:number);
<Rec> = rec $(a:wildcard) <R> -> a;
<R> = x <R> | y;
<Opt> = opt $(a:wildcard) (tail end)? $(b:wildcard)? -> [a, b];
<Wide> = wide $(a:wildcard) café ok -> a;
<Tight> [spacing=none] = t $(a:wildcard) $(n:number) z -> [a, n];
`

// TestEngineMinLen compares the optimized matcher, which drops a
// wildcard when the input left cannot hold it and the parts after it,
// with the plain search, on inputs that end just where the parts need or
// a little before (spacing=none: no separators to spare).
func TestEngineMinLen(t *testing.T) {
	fast := mustCompile(t, minLenGrammar, Options{})
	slow := mustCompile(t, minLenGrammar, Options{naive: true, WorkLimit: 1 << 22})
	inputs := []string{
		"two a b end", "two a end", "two ab end", "two a b c end", "two a  b end ",
		"nest a with the 3 b", "nest a by 3 b", "nest a by 3", "nest a with the 3", "nest a b by 12 c d",
		"rec a y", "rec a x y", "rec a x x y", "rec y", "rec a x", "rec a b x y",
		"opt a", "opt a tail end", "opt a tail end b", "opt a b", "opt tail end",
		"wide a café ok", "wide a CAFÉ ok", "wide café ok", "wide a caf ok", "wide é café ok",
		"two x y z end", "two 1 2 end", "nest q by 7 r s", "nest q r with the 4 s", "rec q x x x y",
		"tq5z", "tqq5z", "t5z", "tq5", "tq55z", "tqz",
		"opt q r s", "opt q tail end r", "wide a b café ok", "wide abc café ok  ", "two a b end end",
	}
	sameAsPlain(t, fast, slow, inputs)
	g := mustCompile(t, minLenGrammar, Options{})
	for _, r := range reachable(g.start, g.nrules) {
		for _, a := range r.alts {
			if len(a.minFrom) != len(a.parts)+1 || a.minFrom[len(a.parts)] != 0 {
				t.Fatalf("rule %s: minFrom %v for %d parts", r.name, a.minFrom, len(a.parts))
			}
		}
	}
}

// TestMinLens checks the least lengths of a few rules.
func TestMinLens(t *testing.T) {
	g := mustCompile(t, minLenGrammar, Options{naive: true})
	want := map[string]int32{"Two": 8, "Mid": 3, "R": 1, "Wide": 11}
	for _, r := range reachable(g.start, g.nrules) {
		if n, ok := want[r.name]; ok && r.minLen != n {
			t.Errorf("%s: minLen %d, want %d", r.name, r.minLen, n)
		}
	}
}
