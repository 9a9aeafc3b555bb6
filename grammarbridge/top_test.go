package grammarbridge

import (
	"fmt"
	"strings"
	"testing"
)

// checkTop returns a record hook that writes every parse's value as
// record does for a top-level frame of object and array literals
// (topValue) and compares it (as JSON, properties in order), its hash
// and stats with plainBuild's; the arena's nodes it made are dropped.
func checkTop(t *testing.T, count *int) func(*matcher) {
	return func(m *matcher) {
		trail := m.tbuf[:m.tn]
		if len(trail) == 0 || trail[0].kind != evBegin {
			return
		}
		if !m.g.vt.alts[trail[0].alt()].top {
			return
		}
		*count++
		want := plainBuild(m, trail)
		mark, kmark, vmark := len(m.nodes), len(m.kids), len(m.vals)
		m.js.scratch = m.js.scratch[:0]
		f, h, st, end := m.topValue(trail, &m.g.vt.alts[trail[0].alt()])
		if end != len(trail)-1 {
			t.Errorf("%q: the top frame ends at %d of %d events", m.in, end, len(trail))
		}
		got, wantJSON := string(m.fragText(f)), string(appendJSON(nil, want.v, false))
		if got != wantJSON || h != want.h || st != want.st {
			t.Errorf("%q: top value %s (hash %x, %x), evaluator %s (hash %x, %x)",
				m.in, got, h, st, wantJSON, want.h, want.st)
		}
		m.dropNodes(mark)
		m.kids, m.vals = m.kids[:kmark], m.vals[:vmark]
	}
}

// TestTopValues checks values written straight from a parse's events
// (topValue) against the evaluator: texts, numbers and nested rules'
// values (objects, numbers, constants, undefined with counts) in the top
// frame, unbound and undefined variables in objects and arrays, objects
// of more than 64 properties, objects whose variables are all bound (one
// of them to undefined), and every parse of the shared data's cases.
func TestTopValues(t *testing.T) {
	var long strings.Builder
	for i := range 70 {
		if i > 0 {
			long.WriteString(", ")
		}
		switch i % 4 {
		case 0:
			fmt.Fprintf(&long, "p%d: a", i)
		case 1:
			fmt.Fprintf(&long, `p%d: "l"`, i)
		case 2:
			fmt.Fprintf(&long, "p%d: b", i)
		case 3:
			fmt.Fprintf(&long, "p%d: u", i)
		}
	}
	src := `<Start> = <Obj> | <Long> | <Arr> | <Both>;
<To> = to $(n:number) -> n;
<Or> = or $(c:string) -> c;
<Und> = und $(x:string) -> x.foo;
<Pair> = pair $(x:string) and $(y:number) -> { x, y, z: [y] };
<Color> = red -> "r" | blue | green -> undefined;
<ColorSpec> = colored $(c:<Color>) -> c;
<Obj> = set $(a:string) $(n:<To>)? $(c:<Or>)? $(u:<Und>)? $(p:<Pair>)? now $(k:number)? $(col:<Color>)? $(cs:<ColorSpec>)?
    -> { actionName: "set", parameters: { a: a, again: a, n: n, c: c, u: u, p: p, k: k, col, cs, list: [a, c, n, u, p, "x", col, cs], inner: { c: c, lit: true } } };
<Long> = long $(a:string) with $(b:number) $(u:<Und>)? <Pair>? <To>? -> { ` + long.String() + ` };
<Arr> = arr $(a:string) $(u:<Und>)? $(c:<Or>)? -> [a, u, c, null, 1];
<Both> = both $(a:string) $(u:<Und>) -> { a: a, u: u, k: "l" };`
	g := mustCompile(t, src, Options{})
	n := 0
	g.recordHook = checkTop(t, &n)
	for _, in := range []string{
		"set red now", "set red to 3 now 4", "set red or blue now", "set red und x now",
		"set red pair q and 2 now", "set a b to 1 or c und d pair e and 5 now 6",
		"set x now red", "set x now blue colored green", "set x now 2 green colored blue", "set x now colored red",
		"long red with 3", "long red with 3 und x", "long red with 3 pair x and 4 to 5", "arr x", "arr x und y or z", "arr x or z",
		"both x und y",
	} {
		if _, err := g.Match(in); err != nil {
			t.Fatal(err)
		}
	}
	if n < 11 {
		t.Fatalf("only %d parses checked", n)
	}
	matchRefCases(t, checkTop(t, &n))
	t.Logf("%d parses checked", n)
}

// TestRecordLastFrame checks record on a trail of two top-level frames
// (the value is the last one's): topValue writes the first, and record
// drops it and builds the second through the arena.
func TestRecordLastFrame(t *testing.T) {
	g := mustCompile(t, `<Start> = go $(x:wildcard) -> { a: x, b: [x] };`, Options{})
	var a *calt
	for _, c := range g.alts {
		if _, ok := c.vars.slot("x"); ok {
			a = c
		}
	}
	if a == nil || !g.vt.alts[a.id].top {
		t.Fatal("no alternative whose value topValue writes")
	}
	m := g.newMatcher("go red blue", false)
	defer g.release(m)
	s, _ := a.vars.slot("x")
	slot := int32(s)
	m.tbuf = []event{
		beginEvent(a.id, -1), {kind: evWild, slot: slot, a: 3, b: 6}, {kind: evEnd},
		beginEvent(a.id, -1), {kind: evWild, slot: slot, a: 7, b: 11}, {kind: evEnd},
	}
	m.tn = len(m.tbuf)
	out := len(m.js.out)
	m.record()
	if len(m.results) != 1 {
		t.Fatalf("%d results", len(m.results))
	}
	r := &m.results[0]
	v := m.resultValue(r)
	if got, want := string(v), `{"a":"blue","b":["blue"]}`; got != want {
		t.Errorf("value %s, want %s", got, want)
	}
	if h := hashValue(decodeJSON(t, v)); r.hash != h || r.st != mkStats(2, 8) {
		t.Errorf("hash %x (want %x), stats %x", r.hash, h, r.st)
	}
	// Only the second frame's value was kept.
	if n := len(m.js.out) - out; n != len(v) {
		t.Errorf("%d bytes of results, want %d", n, len(v))
	}
}

// TestTopSkipsUnread checks that topValue does not build the value of a
// nested rule that nothing reads (a rule part not captured, whose frame
// is on the trail for the captures inside it): only the parse's own
// object is written, past the end of the chunk of results' values (it is
// kept there if new).
func TestTopSkipsUnread(t *testing.T) {
	g := mustCompile(t, `<P> = pair $(x:wildcard) and $(y:number) -> { x, y, z: [x] };
<Start> = go $(a:wildcard) <P> -> { a };`, Options{})
	n := 0
	g.recordHook = func(m *matcher) {
		trail := m.tbuf[:m.tn]
		if !m.g.vt.alts[trail[0].alt()].top {
			t.Fatal("the top frame is not written by topValue")
		}
		n++
		m.js.scratch = m.js.scratch[:0]
		texts := len(m.js.texts)
		f, _, _, _ := m.topValue(trail, &m.g.vt.alts[trail[0].alt()])
		if got := string(m.fragText(f)); got != `{"a":"q"}` {
			t.Errorf("value %s", got)
		}
		if f.off&fragSrc != fragOut || len(m.js.scratch) != 0 || len(m.js.texts) > texts+len(`"q"`) {
			t.Errorf("value in buffer %d, scratch %q, texts %q: more than the value written", f.off>>30, m.js.scratch, m.js.texts[texts:])
		}
	}
	if _, err := g.Match("go q pair r and 2"); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no parse checked")
	}
}

// TestManyVariables checks a top-level frame of more variables than
// topValue takes (63 and more: its slots are cleared, not tracked), whose
// value record builds in the arena and copies (recordSlow).
func TestManyVariables(t *testing.T) {
	var parts, props, in, want strings.Builder
	want.WriteString(`{"kind":"many"`)
	for i := range 66 {
		fmt.Fprintf(&parts, " k%d $(v%d:wildcard)", i, i)
		fmt.Fprintf(&props, ", v%d", i)
		fmt.Fprintf(&in, " k%d x%d", i, i)
		fmt.Fprintf(&want, `,"v%d":"x%d"`, i, i)
	}
	want.WriteString(`,"list":["x0","x65"]}`)
	src := `<Start> =` + parts.String() + ` -> { kind: "many"` + props.String() + `, list: [v0, v65] };`
	g := mustCompile(t, src, Options{})
	for _, a := range g.vt.alts {
		if a.top {
			t.Fatal("a frame of 66 variables is written by topValue")
		}
	}
	ms, err := g.Match(in.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 {
		t.Fatalf("%d matches", len(ms))
	}
	b := ms[0].Value
	if string(b) != want.String() {
		t.Errorf("got %s\nwant %s", b, want.String())
	}
	if ms[0].MatchedValues != 68 { // each read counts: v0 and v65 twice
		t.Errorf("%d matched values, want 68", ms[0].MatchedValues)
	}
	checkHashes(t, g, in.String())
}
