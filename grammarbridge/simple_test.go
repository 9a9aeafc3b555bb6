package grammarbridge

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// simpleGrammar has rule parts that are simple (silent, literals and
// keywords only: nested, optional, nullable, with ends reached twice,
// another spacing mode, after an open wildcard) and some that are not
// (captured, repeated, with a capture inside, recursive, a nullable
// or optional first part after a wildcard).
const simpleGrammar = `
<Start> = <Make> | <Find> | <Make2> | <Rev> | <Pair> | <Loop>;
<Make> = <Verb> $(what:wildcard) <With> $(cap:wildcard) -> { what, cap }
       | <Verb> $(what:wildcard) (<Opt>)? now -> { opt: what };
<Make2> = just <Verb> <Single> $(what:wildcard) -> { what };
<Verb> = (can you | please)? (create | make (me)? | make me a);
<With> = (with (the)? caption | caption (it | them | should be)? | use <The> caption | captioned | a a | a);
<The> = (the | the);
<Single> = (an | a | single) <Image> (of | showing)?;
<Image> = (image | images | photo);
<Opt> = (maybe)? (later | soon);
<Find> = find $(x:wildcard) <Tight> $(y:wildcard) -> [x, y]
       | find <Again>* $(x:wildcard) -> x
       | find $(n:<Kw>) $(x:wildcard) -> [n, x];
<Tight> [spacing=none] = x y | x (z)?;
<Again> = again;
<Kw> = (alpha | beta);
<Pair> = pair $(x:wildcard) <Mid> $(y:wildcard) -> [x, y] | pairc $(x:wildcard) $(c:<Cap>)? -> [x, c];
<Cap> = (cc | copy) $(x:wildcard) -> x | $(n:number) items -> n | blind copy -> "b";
<Mid> = (to | and) (then)? | (so)? (too | also);
<Loop> = loop <L1> -> "loop";
<Rev> = rev $(x:wildcard) (<W2>)? (<W2>)? (<W2>)? $(y:wildcard) -> [x, y];
<W2> = (with | use) (the)? caption | captioned;
<L1> = (<L2>)? end;
<L2> = again <L1> | more;
`

// TestEngineSimple compares the optimized matcher, which matches simple
// rule parts without entering their rules, with the plain search, on
// inputs made of the grammar's words.
func TestEngineSimple(t *testing.T) {
	fast := mustCompile(t, simpleGrammar, Options{})
	slow := mustCompile(t, simpleGrammar, Options{naive: true, WorkLimit: 1 << 22})
	inputs := []string{
		"create a cat with caption a dog", "make me a cat caption it a dog", "make me a single image of a dog", "just make me a single image of a dog", "just create an image x",
		"please make me a an image showing dogs", "can you create a photo", "make a cat with the caption x",
		"create cat use the caption dog", "create cat captioned dog", "create x a a y", "create x a y a z",
		"make me cat maybe later now", "make me cat soon now", "make me cat now",
		"find a xy b", "find a x y b", "find axyb", "find again again it", "find alpha it",
		"pair a to b", "pairc a", "pairc a cc b", "pairc a b copy", "pairc a 3 items", "pairc 3 items", "pairc a blind copy", "pairc cc", "find a xz b", "find a x z y b", "pair a to then b", "pair a so too b", "pair a also b", "pair to to then to b",
		"loop more end", "rev a with caption b", "rev a use the caption with caption b", "rev a captioned c captioned d", "rev a b", "rev with caption caption", "loop end", "loop again more end end", "loop again end end",
	}
	words := strings.Fields("create make me a an the with caption captioned it them should be use single image images " +
		"photo of showing maybe later soon now find x y z xy xz again alpha pair to and then so too also loop more end cat please rev captioned")
	rng := rand.New(rand.NewPCG(4, 4))
	for range 600 {
		n := 2 + rng.IntN(7)
		ws := make([]string, n)
		for j := range ws {
			ws[j] = words[rng.IntN(len(words))]
		}
		switch rng.IntN(7) {
		case 0:
			ws[0] = "create"
		case 1:
			ws[0] = "pair"
		case 2:
			ws[0] = "make"
		case 3:
			ws[0] = "pairc"
		case 4:
			ws[0] = "just"
		case 5:
			ws[0] = "rev"
		}
		inputs = append(inputs, strings.Join(ws, " "))
	}
	sameAsPlain(t, fast, slow, inputs)
	// The parts this grammar is made for are simple, or not (<Verb>,
	// <Single> and <With> are spliced: their groups are the parts).
	want := map[string]uint8{"Opt": simpleShut, "Tight": simpleOpen, "Mid": simpleShut, "Again": simpleNo, "L2": simpleLead, "Cap": simpleLead}
	seen := map[string]bool{}
	groups := map[uint8]int{}
	walkRules(fast.start, fast.nrules, func(r *crule) {
		for _, a := range r.alts {
			for i := range a.parts {
				p := &a.parts[i]
				if p.kind != partRules {
					continue
				}
				if p.rule.name == "(group)" {
					groups[p.simple]++
				}
				if w, ok := want[p.rule.name]; ok {
					seen[p.rule.name] = true
					if p.simple != w {
						t.Errorf("<%s> in <%s>: simple %d, want %d", p.rule.name, r.name, p.simple, w)
					}
				}
			}
		}
	})
	for name := range want {
		if !seen[name] {
			t.Errorf("no part <%s> left to check", name)
		}
	}
	// <Make>'s first two alternatives share the parts of <Verb> and a
	// wildcard: walked (walkShared).
	walks := 0
	var count func(nodes []shareNode)
	count = func(nodes []shareNode) {
		for i := range nodes {
			if nodes[i].walkWild != nil {
				walks++
			}
			count(nodes[i].kids)
		}
	}
	walkRules(fast.start, fast.nrules, func(r *crule) {
		count(r.tree)
		for _, t := range r.firstTrees {
			count(t)
		}
	})
	if walks == 0 {
		t.Errorf("no prefix-tree node walks its parts up to a wildcard")
	}
	if groups[simpleOpen] < 3 {
		t.Errorf("simple groups: %v, want 3 or more simpleOpen (those of <Verb>, <Single>, <With>)", groups)
	}
}

// TestEngineSharedLead: alternatives that begin alike with a captured rule
// whose alternatives begin with a literal (a rule part simpleLead marks,
// not simple) are stepped, not walked as trail-free shared parts: the walk
// does not take its number (a nil rule there crashed verbs' /deny).
func TestEngineSharedLead(t *testing.T) {
	const src = `
<Start> = $(id:<Word>) $(always:<Always>)? $(reason:wildcard)? -> { id, always, reason }
    | $(id:<Word>) $(reason:wildcard) $(always:<Always>) -> { id, always, reason };
<Word> = zw $(i:number) -> i;
<Always> = always -> true | from now on -> true;
`
	fast := mustCompile(t, src, Options{})
	slow := mustCompile(t, src, Options{naive: true})
	for _, in := range []string{"zw1", "zw 1 zq 2", "zw0 zq1 always", "zw4 from now on", "zw", "always"} {
		compareNaive(t, fast, slow, in)
	}
	if ms, err := fast.Match("zw0 zq1 always"); err != nil || len(ms) != 2 {
		t.Fatalf("zw0 zq1 always: %d matches, %v; want 2", len(ms), err)
	}
}

// keepGrammar walks the simple rule <With> with a wildcard open from
// several starts of one input: after each way <Verb> ends ("make" and
// "make me"), and after the first wildcard's "x". WITH is replaced by
// <With>'s alternatives.
const keepGrammar = `
<Start> = <Verb> $(a:wildcard) <With> $(b:wildcard) -> [a, b]
        | <Verb> x $(a:wildcard) <With> $(b:wildcard) -> { a, b }
        | <Verb> $(a:wildcard) <With> $(b:wildcard) <With> $(c:wildcard) -> [a, b, c];
<Verb> = (make (me)? | me);
<With> = (WITH);
`

// TestEngineSimpleKeep compares the optimized matcher, which takes the
// ends of a simple rule walked from a later wildcard start from its first
// walk (simpleKeep), and those of a walk from an earlier start after the
// later one's start (simpleAfterKept), with the plain search, on inputs
// where the first literals are found before, at and after each start.
//
// In the second grammar a first literal of <With> can begin again inside
// a match of itself ("me me" in "me me me"). Its search after a wildcard
// then skips places (skipInside), and which depends on where it began: a
// walk from an earlier start that skips one is made again in full, and a
// walk that skips one is not kept.
func TestEngineSimpleKeep(t *testing.T) {
	for _, tc := range []struct {
		with, words string
		inputs      []string
		rewalks     bool // some walk from kept ends is made again
	}{
		{"with (the)? caption | caption | me too", "make me x y with the caption caption me too", []string{
			"make me caption x caption y", "make caption me caption y", "make me me too x", "make me me too caption y",
			"make x with caption y caption z", "make x caption caption", "make me x  caption y",
			// Walks from 'make' after walks from 'make me': a literal right
			// after the later start (the wildcard from there holds nothing),
			// one after it, and the ends of each lead in order.
			"make me caption x", "make me  with caption x caption y", "make me me too caption x with the caption y"}, false},
		{"with (the)? caption | caption | me me", "make me me x y with the caption caption me", []string{
			"make me me me x", "make me me me caption y", "make me x me me me y", "make me me me me x me me y"}, true},
	} {
		src := strings.Replace(keepGrammar, "WITH", tc.with, 1)
		fast := mustCompile(t, src, Options{})
		slow := mustCompile(t, src, Options{naive: true, WorkLimit: 1 << 22})
		inputs := tc.inputs
		words := strings.Fields(tc.words)
		rng := rand.New(rand.NewPCG(6, 8))
		for range 500 {
			ws := []string{"make"}
			for range 2 + rng.IntN(8) {
				ws = append(ws, words[rng.IntN(len(words))])
			}
			inputs = append(inputs, strings.Join(ws, " "))
		}
		kept, earlier, rewalks := 0, 0, 0
		for _, in := range inputs {
			compareNaive(t, fast, slow, in)
			m := fast.newMatcher(in, false)
			k0, r0 := m.sKeptWalks, m.sRewalks
			m.run()
			earlier += m.sKeptWalks - k0
			rewalks += m.sRewalks - r0
			for _, k := range m.sRules {
				if k.gen == m.sGen && k.n > 0 {
					kept++
				}
			}
			fast.release(m)
		}
		if kept == 0 || earlier == 0 || tc.rewalks && rewalks == 0 {
			t.Fatalf("<With> = %s: %d ends kept, %d walks from kept ends from a later start, %d made again: the test does not reach simpleKeep, simpleAfterKept or the walk made again", tc.with, kept, earlier, rewalks)
		}
	}
}
