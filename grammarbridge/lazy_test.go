package grammarbridge

import (
	"os"
	"strings"
	"testing"
)

// plainBuild builds a trail's value directly as plain Go values with the
// evaluator, as the matcher did before the arena: the reference the arena
// is checked against.
func plainBuild(m *matcher, trail []event) slotVal {
	type pframe struct {
		alt        *calt
		parentSlot int32
		slots      []slotVal
		last       slotVal
	}
	undef := slotVal{v: Undefined, h: hashValue(Undefined)}
	var stack []*pframe
	var out slotVal
	for _, ev := range trail {
		switch ev.kind {
		case evBegin:
			a := m.g.alts[ev.alt()]
			f := &pframe{alt: a, parentSlot: ev.slot, last: undef, slots: make([]slotVal, a.nslots)}
			for i := range f.slots {
				f.slots[i] = undef
			}
			stack = append(stack, f)
		case evWild:
			s := m.in[ev.a:ev.b]
			stack[len(stack)-1].slots[ev.slot] = slotVal{v: s, st: mkStats(1, int32(utf16Len(s))), h: hashValue(s)}
		case evNum:
			stack[len(stack)-1].slots[ev.slot] = slotVal{v: ev.num(), st: mkStats(1, 0), h: hashValue(ev.num())}
		case evEnd:
			f := stack[len(stack)-1]
			var v slotVal
			switch f.alt.implicit {
			case implicitExplicit:
				e := evaluator{slots: f.slots, vars: f.alt.vars}
				v.v = e.eval(f.alt.value)
				v.st, v.h = e.st, hashValue(v.v)
			case implicitSlot:
				v = f.slots[0]
			case implicitText:
				v = slotVal{v: f.alt.text, st: mkStats(1, 0), h: hashValue(f.alt.text)}
			case implicitChild:
				v = f.last
			default:
				v = undef
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				out = v
				break
			}
			p := stack[len(stack)-1]
			p.last = v
			if f.parentSlot >= 0 {
				p.slots[f.parentSlot] = v
			}
		}
	}
	return out
}

// checkArena returns a record hook that compares every parse's arena value
// (materialised, its hash and stats, and the arena's equality with the
// plain value) with plainBuild's.
func checkArena(t *testing.T, count *int) func(*matcher) {
	return func(m *matcher) {
		*count++
		trail := m.tbuf[:m.tn]
		want := plainBuild(m, trail)
		mark, kmark, vmark := len(m.nodes), len(m.kids), len(m.vals)
		got := m.build(trail)
		gv := m.mat(got.n)
		if !equalValue(gv, want.v) || got.h != want.h || got.st != want.st {
			t.Errorf("%q: arena value %s (hash %x, %v), evaluator %s (hash %x, %v)",
				m.in, Canonical(gv), got.h, got.st, Canonical(want.v), want.h, want.st)
		}
		if !m.eqNV(got.n, want.v) {
			t.Errorf("%q: eqNV says %s differs from itself", m.in, Canonical(want.v))
		}
		again := m.build(trail)
		if !m.eqNN(got.n, again.n) {
			t.Errorf("%q: eqNN says %s differs from itself", m.in, Canonical(want.v))
		}
		m.dropNodes(mark)
		m.kids, m.vals = m.kids[:kmark], m.vals[:vmark]
	}
}

// TestArenaValues checks the value arena against the evaluator on every
// parse of the fixtures and, when present, of the shared data's cases.
func TestArenaValues(t *testing.T) {
	n := 0
	hook := checkArena(t, &n)
	g, err := Compile(FSLoader{os.DirFS("testdata")}, "values.agr", Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.recordHook = hook
	for _, in := range []string{"sum 5 and 3", "sum 1.5 and 2", "opt end", "opt thing end", "lit", "nest abc", "spread q"} {
		if _, err := g.Match(in); err != nil {
			t.Fatal(err)
		}
	}
	src := `<Start> = a $(x:wildcard)? b $(y:number)? -> { x, y, z: [x, y, undefined], w: { x, k: "c" } }
	        | a $(x:wildcard) b $(y:number)? -> { x, y, z: [x, y, undefined], w: { x, k: "c" } }
	        | $(x:wildcard) -> [x, x];`
	g2 := mustCompile(t, src, Options{})
	g2.recordHook = hook
	for _, in := range []string{"a b", "a q b", "a q b 2", "a b 3", "zz", "a b b 1"} {
		if _, err := g2.Match(in); err != nil {
			t.Fatal(err)
		}
	}
	if n < 10 {
		t.Fatalf("only %d parses checked", n)
	}
	matchRefCases(t, hook)
	t.Logf("%d parses checked", n)
}

// TestArenaDedup checks that parses giving equal values, some through the
// arena and some through the evaluator, collapse into one match.
func TestArenaDedup(t *testing.T) {
	src := `<Start> = play $(x:wildcard) -> { a: x, b: [1, x] }
	        | play $(x:wildcard) -> { b: [1, x], a: x }
	        | play $(x:wildcard) -> { ...{ a: x }, b: [1, x] }
	        | play $(x:word) -> { b: [1, x], a: x, c: undefined };`
	g := mustCompile(t, src, Options{})
	ms, err := g.Match("play song")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || Canonical(ms[0].Value) != `{"a":"song","b":[1,"song"]}` {
		t.Fatalf("got %d matches: %+v", len(ms), ms)
	}
}

// TestAltsFor checks the first-byte dispatch: for every byte, the
// alternatives it lists are, in order, exactly those whose first-byte
// test passes.
func TestAltsFor(t *testing.T) {
	g := mustCompile(t, `<Start> = apple -> 1 | Banana -> 2 | $(x:wildcard) pie -> 3 | avocado -> 4 | (<Opt>)? cherry -> 5 | 'quoted' -> 6;
	<Opt> = very | so;`, Options{})
	r := g.start
	if r.firstIdx == nil {
		t.Fatal("no dispatch table")
	}
	for ch := -1; ch < 128; ch++ {
		var want []*calt
		for _, a := range r.alts {
			if a.firstAny || ch >= 0 && a.first.has(byte(ch)) {
				want = append(want, a)
			}
		}
		got := r.altsFor(ch, true)
		if len(got) != len(want) {
			t.Fatalf("byte %d: %d alternatives, want %d", ch, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("byte %d: alternative %d is %d, want %d", ch, i, got[i].id, want[i].id)
			}
		}
	}
	if n := len(r.altsFor('a', true)); n < 2 || n >= len(r.alts) {
		t.Errorf("'a' selects %d of %d alternatives", n, len(r.alts))
	}
	if len(r.altsFor('a', false)) != len(r.alts) {
		t.Error("an unknown first byte must select every alternative")
	}
}

// TestNextCandidate checks the literal search after a wildcard against a
// plain search of the lower-cased input (the byte-pair pre-filter of long
// searches is checked by TestEngineLongSearch).
func TestNextCandidate(t *testing.T) {
	g := mustCompile(t, `<Start> = $(x:wildcard) play -> x;`, Options{})
	inputs := []string{"Play the song", "replay", "pl", "a PLAY b play", "xyz", "", "p", "ay pla y", "naïve play"}
	toks := []string{"play", "pl", "p", "ay", "y", "la", "xyz", "zz", "a p", "song", "replay the"}
	for _, in := range inputs {
		m := g.newMatcher(in, false)
		for _, tk := range toks {
			p := literalPart([]string{tk}, SpacingAuto)
			for from := 0; from <= len(in); from++ {
				want := -1
				if j := strings.Index(strings.ToLower(in[from:]), tk); j >= 0 {
					want = from + j
				}
				got := m.nextCandidate(&p, from)
				if !m.isASCII() {
					// Every rune start is a candidate.
					if got >= 0 && got < from {
						t.Errorf("%q %q from %d: %d", in, tk, from, got)
					}
					continue
				}
				if got != want {
					t.Errorf("%q: token %q from %d: got %d, want %d", in, tk, from, got, want)
				}
			}
		}
		g.release(m)
	}
}

// TestStringAtFastPath checks stringAt's shortcut for literals that start
// with a letter against trying every place.
func TestStringAtFastPath(t *testing.T) {
	g := mustCompile(t, `<Start> = x -> 1;`, Options{})
	inputs := []string{"play it", "  Play", " ,.play", "\t-PLAY-list", "playlist", "  ", "", "  \u00a0play", "  ,\u2014play", "x play", "K", "\u212a", " \u212a"}
	toks := [][]string{{"play"}, {"play", "list"}, {"pl"}, {"k"}, {"-play"}, {"x", "play"}}
	for _, in := range inputs {
		m := g.newMatcher(in, false)
		for _, tk := range toks {
			for _, sp := range []Spacing{SpacingAuto, SpacingRequired, SpacingOptional, SpacingNone} {
				p := literalPart(tk, sp)
				for pos := 0; pos <= len(in); pos++ {
					e1, ok1 := m.stringAt(&p, sp, pos)
					e2, ok2 := m.stringAtLazy(&p, sp, pos)
					if ok1 != ok2 || ok1 && e1 != e2 {
						t.Errorf("%q %q %v at %d: stringAt %d %v, lazy %d %v", in, tk, sp, pos, e1, ok1, e2, ok2)
					}
				}
			}
		}
		g.release(m)
	}
}

// TestSharedPlaces checks that a value read in many places is written
// in each.
func TestSharedPlaces(t *testing.T) {
	g := mustCompile(t, `<Start> = $(x:<Many>) -> [x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x];
	<Many> = $(y:<Few>) -> [y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y];
	<Few> = go -> { a: 1 };`, Options{})
	ms, err := g.Match("go")
	if err != nil || len(ms) != 1 {
		t.Fatalf("Match: %v, %v", ms, err)
	}
	inner := "[" + strings.Repeat(`{"a":1},`, 31) + `{"a":1}]`
	if got, want := string(ms[0].Value), "["+strings.Repeat(inner+",", 31)+inner+"]"; got != want {
		t.Fatalf("value %s\nwant %s", got, want)
	}
}

// TestConstValuesFresh checks that a value of literals only, kept as one
// literal, is copied into every match: the caller may change it.
func TestConstValuesFresh(t *testing.T) {
	g := mustCompile(t, `<Start> = play -> { actionName: "play", parameters: { all: true, list: [1, "a", undefined] }, skip: undefined }
	        | $(x:<Const>) $(y:<Const>) -> [x, y];
	<Const> = stop -> { actionName: "stop" };`, Options{})
	const want = `{"actionName":"play","parameters":{"all":true,"list":[1,"a",null]}}`
	for range 2 {
		ms, err := g.Match("play")
		if err != nil || len(ms) != 1 {
			t.Fatalf("play: %v, %v", ms, err)
		}
		if got := string(ms[0].Value); got != want {
			t.Fatalf("play: %s, want %s", got, want)
		}
		copy(ms[0].Value, "changed")
	}
	ms, err := g.Match("stop stop")
	if err != nil || len(ms) != 1 {
		t.Fatalf("stop stop: %v, %v", ms, err)
	}
	if got := string(ms[0].Value); got != `[{"actionName":"stop"},{"actionName":"stop"}]` || ms[0].MatchedValues != 0 {
		t.Fatalf("stop stop: %s (%d values)", got, ms[0].MatchedValues)
	}
}
