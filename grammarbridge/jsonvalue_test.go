package grammarbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestJSONValues checks values written straight from a frame (topValue):
// unbound and undefined variables, a variable read twice, nested objects
// and arrays, numbers, and an object of more than 64 properties (which
// visits every property, topObjLong).
func TestJSONValues(t *testing.T) {
	var long, want strings.Builder
	want.WriteString(`{`)
	for i := range 70 {
		if i > 0 {
			long.WriteString(", ")
			want.WriteString(",")
		}
		switch i % 3 {
		case 0:
			fmt.Fprintf(&long, "p%d: a", i)
			fmt.Fprintf(&want, `"p%d":"red"`, i)
		case 1:
			fmt.Fprintf(&long, `p%d: "l"`, i)
			fmt.Fprintf(&want, `"p%d":"l"`, i)
		case 2:
			fmt.Fprintf(&long, "p%d: b", i)
			fmt.Fprintf(&want, `"p%d":3`, i)
		}
	}
	want.WriteString(`}`)
	src := `<Start> = <Obj> | <Long>;
<To> = to $(n:number) -> n;
<Or> = or $(c:string) -> c;
<Obj> = set $(a:string) $(n:<To>)? $(c:<Or>)? now
    -> { actionName: "set", parameters: { a: a, again: a, n: n, c: c, list: [a, c, n], inner: { c: c, lit: true } } };
<Long> = long $(a:string) with $(b:number) -> { ` + long.String() + ` };`
	g, err := CompileString("plain.agr", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"set red now", `{"actionName":"set","parameters":{"a":"red","again":"red","list":["red",null,null],"inner":{"lit":true}}}`},
		{"set red to 3 now", `{"actionName":"set","parameters":{"a":"red","again":"red","n":3,"list":["red",null,3],"inner":{"lit":true}}}`},
		{"set red or blue now", `{"actionName":"set","parameters":{"a":"red","again":"red","c":"blue","list":["red","blue",null],"inner":{"c":"blue","lit":true}}}`},
		{"long red with 3", want.String()},
	} {
		ms, err := g.Match(c.in)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range ms {
			got = append(got, string(m.Value))
		}
		if !strings.Contains(strings.Join(got, "\n"), c.want) {
			t.Errorf("%q: got\n%s\nwant among them\n%s", c.in, strings.Join(got, "\n"), c.want)
		}
		checkHashes(t, g, c.in)
	}
}

// TestResultsStayTheCallers checks that values and match slices handed out
// from the matcher's chunks belong to the caller: later matches (new
// values, duplicates, Best's values replaced by better ones, inputs with
// no match, chunks of values turned over) never write into them, and
// appending to a returned slice or value never reaches the next one.
func TestResultsStayTheCallers(t *testing.T) {
	g := mustCompile(t, `<Start> = play $(t:wildcard) by $(a:wildcard) -> { actionName: "play", parameters: { track: t, artist: a, list: [t, a] } }
	        | play $(t:wildcard) -> { actionName: "play", parameters: { track: t } }
	        | stop -> { actionName: "stop" };`, Options{})
	inputs := []string{"play a by b by c", "stop", "play x", "nothing", "play a by b by c", "play one by two"}
	type kept struct {
		ms   []Match
		want []string
	}
	var all []kept
	for round := range 300 {
		in := inputs[round%len(inputs)]
		ms, err := g.Match(in)
		if err != nil {
			t.Fatal(err)
		}
		if round%3 == 0 {
			ms = ms[:min(len(ms), 1)]
			if b, err := g.Best(in); err == nil {
				ms = []Match{b}
			}
		}
		k := kept{ms: ms}
		for _, m := range ms {
			k.want = append(k.want, Canonical(m.Value))
		}
		if n := len(all); n > 0 {
			// Appending to the previous result list must not reach this one.
			_ = append(all[n-1].ms, Match{Value: json.RawMessage(`"appended"`)})
			for _, m := range all[n-1].ms {
				_ = append(m.Value, "appended"...)
			}
		}
		all = append(all, k)
	}
	for i, k := range all {
		for j, m := range k.ms {
			if got := Canonical(m.Value); got != k.want[j] {
				t.Fatalf("match %d (%q), result %d: now %s, was %s", i, inputs[i%len(inputs)], j, got, k.want[j])
			}
		}
	}
}

// TestTopObjOuter checks the objects topObj writes with their outer one: an outer object
// of two properties with the inner one second or first, and of three.
func TestTopObjOuter(t *testing.T) {
	g, err := CompileString("outer.agr", `<Start> = a $(x:string) -> { actionName: "a", parameters: { x, n: 1 } }
    | b $(x:string) -> { parameters: { x, n: 2 }, actionName: "b" }
    | c $(x:string) -> { actionName: "c", parameters: { x }, version: 3 };`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"a red", `{"actionName":"a","parameters":{"x":"red","n":1}}`},
		{"b red", `{"parameters":{"x":"red","n":2},"actionName":"b"}`},
		{"c red", `{"actionName":"c","parameters":{"x":"red"},"version":3}`},
	} {
		ms, err := g.Match(c.in)
		if err != nil || len(ms) != 1 {
			t.Fatalf("%q: %d matches, %v", c.in, len(ms), err)
		}
		if got := string(ms[0].Value); got != c.want {
			t.Errorf("%q: %s, want %s", c.in, got, c.want)
		}
		if h, want := topHash(t, g, c.in), hashValue(decodeJSON(t, ms[0].Value)); h != want {
			t.Errorf("%q: hash %x, want %x (hashValue)", c.in, h, want)
		}
	}
}

// topHash returns the hash record computed for the one parse of in.
func topHash(t *testing.T, g *Grammar, in string) uint64 {
	m := g.newMatcher(in, false)
	defer g.release(m)
	m.run()
	if len(m.results) != 1 {
		t.Fatalf("%q: %d results", in, len(m.results))
	}
	return m.results[0].hash
}

// decodeJSON returns JSON text b as encoding/json decodes it into an any.
func decodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

// TestNeedsEscape compares needsEscape, which tests eight bytes at a
// time, with a byte-at-a-time loop: every byte value at every place of
// strings of 1 to 24 bytes, on backgrounds of plain ASCII and of UTF-8,
// and random strings with bytes near the ones escaped.
func TestNeedsEscape(t *testing.T) {
	slow := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
				return true
			}
		}
		return false
	}
	for _, bg := range []byte{'a', ' ', 0xc3, 0xff, '!', 0x5d} {
		for n := 1; n <= 24; n++ {
			for at := range n {
				for c := range 256 {
					b := bytes.Repeat([]byte{bg}, n)
					b[at] = byte(c)
					if got, want := needsEscape(string(b)), slow(string(b)); got != want {
						t.Fatalf("needsEscape(%q) = %v, want %v", b, got, want)
					}
				}
			}
		}
	}
	// Bytes next to the escaped ones, which a borrow could confuse, and
	// now and then an escaped one (a string of 40 has one about half
	// the time).
	near := []byte{0x20, 0x21, '#', '[', ']', 0x7f, 0x80, 0xa0, 0xdc, 0xe2, 'a'}
	esc := []byte{0, 0x1f, '"', '\\'}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		b := make([]byte, rng.IntN(41))
		for i := range b {
			b[i] = near[rng.IntN(len(near))]
			if rng.IntN(64) == 0 {
				b[i] = esc[rng.IntN(len(esc))]
			}
		}
		if got, want := needsEscape(string(b)), slow(string(b)); got != want {
			t.Fatalf("needsEscape(%q) = %v, want %v", b, got, want)
		}
	}
}

// TestCopyText: copyText and copyValue copy n bytes whatever n, and
// write nothing from textPad bytes past their end on.
func TestCopyText(t *testing.T) {
	src := make([]byte, 300+textPad)
	for i := range src {
		src[i] = byte('a' + i%26)
	}
	for name, copyFn := range map[string]func(dst, src unsafe.Pointer, n int){"copyText": copyText, "copyValue": copyValue} {
		for n := range 300 {
			dst := bytes.Repeat([]byte{'#'}, 400+textPad)
			copyFn(unsafe.Pointer(&dst[3]), unsafe.Pointer(&src[0]), n)
			if !bytes.Equal(dst[3:3+n], src[:n]) {
				t.Fatalf("%s, n=%d: copied %q, want %q", name, n, dst[3:3+n], src[:n])
			}
			if dst[2] != '#' || strings.Trim(string(dst[3+n+textPad:]), "#") != "" {
				t.Fatalf("%s, n=%d: wrote outside [0, n+textPad)", name, n)
			}
		}
	}
	if len(braces) < 2+textPad || braces[:2] != "{}" {
		t.Errorf("braces is %d bytes, want \"{}\" and textPad more", len(braces))
	}
}

// TestCopyEvents: copyEvents copies n events whatever n, and writes
// nothing from eventPad events past their end on.
func TestCopyEvents(t *testing.T) {
	if unsafe.Sizeof(event{}) != 16 {
		t.Fatalf("an event is %d bytes; copyEvents copies 16", unsafe.Sizeof(event{}))
	}
	src := make([]event, 40+eventPad)
	for i := range src {
		src[i] = event{kind: evWild, slot: int32(i), a: int32(2 * i), b: int32(3 * i)}
	}
	guard := event{kind: evEnd, slot: -7}
	for n := range 40 {
		dst := make([]event, 50+eventPad)
		for i := range dst {
			dst[i] = guard
		}
		copyEvents(unsafe.Pointer(&dst[1]), unsafe.Pointer(&src[0]), n)
		if !slices.Equal(dst[1:1+n], src[:n]) {
			t.Fatalf("n=%d: copied %v, want %v", n, dst[1:1+n], src[:n])
		}
		for i, ev := range dst {
			if (i == 0 || i > n+eventPad) && ev != guard {
				t.Fatalf("n=%d: wrote event %d, outside [1, 1+n+eventPad)", n, i)
			}
		}
	}
}

// TestTrailGrows: the trail keeps eventPad events of room past its
// end as it grows, by push and by pushKept, and keeps its events.
func TestTrailGrows(t *testing.T) {
	g := mustCompile(t, `<Start> = go $(x:wildcard) -> x;`, Options{})
	m := g.newMatcher("go x", false)
	defer g.release(m)
	kept := make([]event, 70, 70+eventPad)
	for i := range kept {
		kept[i] = event{kind: evWild, slot: int32(i)}
	}
	for i := range 300 {
		if i%50 == 0 {
			m.pushKept(kept)
		} else {
			m.push(event{kind: evNum, slot: int32(i)})
		}
		if cap(m.tbuf)-len(m.tbuf) < eventPad {
			t.Fatalf("after %d pushes: %d events of room past the trail's end, want %d", i+1, cap(m.tbuf)-len(m.tbuf), eventPad)
		}
	}
	if m.tn != 294+6*70 || m.tbuf[70] != (event{kind: evNum, slot: 1}) || m.tbuf[m.tn-1] != (event{kind: evNum, slot: 299}) {
		t.Fatalf("%d events, [70] %v, last %v", m.tn, m.tbuf[70], m.tbuf[m.tn-1])
	}
}

// TestTextsPadded: every text topObj copies can be read textPad bytes
// past its end. At every parse of the reference inputs, the scratch and
// text buffers (whose texts are the slots') have that room past their
// end, and so do the literals' buffer and the ops' texts, from strSlab
// (TestStrSlab). The trail and the kept trails have eventPad events of
// room past theirs.
func TestTextsPadded(t *testing.T) {
	seen, trails := 0, 0
	matchRefCases(t, func(m *matcher) {
		seen++
		for _, b := range [][]byte{m.js.scratch, m.js.texts, m.g.vt.litJSON} {
			if cap(b) > 0 && cap(b)-len(b) < textPad {
				t.Fatalf("a buffer has %d bytes of room past its end, want %d", cap(b)-len(b), textPad)
			}
		}
		// The trail and the kept trails, for copyEvents.
		if cap(m.tbuf)-len(m.tbuf) < eventPad || len(m.sm.ends) > 0 && cap(m.sm.trails)-len(m.sm.trails) < eventPad {
			t.Fatalf("trail: %d events of room past its end, kept trails %d, want %d",
				cap(m.tbuf)-len(m.tbuf), cap(m.sm.trails)-len(m.sm.trails), eventPad)
		}
		if len(m.sm.ends) > 0 {
			trails++
		}
	})
	if trails == 0 {
		t.Error("no parse with kept trails")
	}
	t.Logf("%d parses", seen)
}

// TestObjRoom: topObj writes an object within the room objNeed gives,
// textPad included, when every variable's value is as long as the
// bound allows: the longest text the input may have (as it is, or
// every byte escaped), the longest literal, or the scratch buffer's
// bytes before the object; in the scratch buffer, or past the end of
// the chunk of results' values (a parse's value, which keep then
// keeps where it is). Bytes past that room are checked untouched.
func TestObjRoom(t *testing.T) {
	long := strings.Repeat("l", 150)
	g := mustCompile(t, `<Start> = a $(x:wildcard) b $(y:wildcard) c $(z:number)
  -> { actionName: "act", parameters: { x, y, z, both: [x, y], lit: "`+long+`", again: x }, after: "tail" };`, Options{})
	var ops []vop
	for _, a := range g.vt.alts {
		if a.top {
			ops = a.ops
		}
	}
	if len(ops) == 0 {
		t.Fatal("no value topValue writes")
	}
	const input = "a q b r c 3 and some more words"
	checked := 0
	for _, src := range []string{"text", "escaped", "literal", "scratch"} {
		for _, toOut := range []bool{false, true} {
			for i := range ops {
				op := &ops[i]
				if op.top != topMasked && op.top != topFixed {
					continue
				}
				m := g.newMatcher(input, false)
				// The longest text the input may have: all of it, between
				// quotes, or every byte of it escaped.
				m.js.plain = 1
				m.js.texts = append(m.js.texts[:0], `"`+input+`"`...)
				if src == "escaped" {
					m.js.plain = 2
					m.js.texts = append(m.js.texts[:0], `"`+strings.Repeat(`\u0001`, len(input))+`"`...)
				}
				setPadded(&m.js.texts, m.js.texts)
				pre := 0 // bytes in the scratch buffer before the object
				var f frag
				switch src {
				case "text", "escaped":
					f = frag{fragTexts, uint32(len(m.js.texts))}
				case "literal":
					if g.vt.litMax < len(long) {
						t.Fatalf("litMax %d, below the literal's %d", g.vt.litMax, len(long))
					}
					for _, lf := range g.vt.litFrag {
						if int(lf.n) == g.vt.litMax {
							f = lf
						}
					}
				default:
					pre = 400
					f = frag{fragScratch, uint32(pre)}
				}
				if f.off&fragSrc == fragTexts && m.textMax() != int(f.n) {
					t.Fatalf("%s: textMax %d, want the longest text's %d", src, m.textMax(), f.n)
				}
				m.js.scratch = make([]byte, pre) // the bound counts it
				need := m.objNeed(op)
				scratch := bytes.Repeat([]byte{'#'}, pre+need+512)
				if pre > 0 {
					copy(scratch, `"`+strings.Repeat("s", pre-2)+`"`)
				}
				m.js.scratch = scratch[: pre : pre+need]
				guard, at := scratch, pre
				if toOut {
					// Some values kept in the chunk already.
					guard, at = bytes.Repeat([]byte{'#'}, 100+need+512), 100
					m.js.out = guard[: at : at+need]
					m.js.outs = append(m.js.outs[:0], m.js.out)
				}
				var ts [topSlots]topSlot
				for j := range ts {
					ts[j] = topSlot{f: f, h: 1}
				}
				out, _, _ := m.topObj(op, &ts, ^uint64(0), toOut)
				what := fmt.Sprintf("%s, op %d, chunk %v", src, i, toOut)
				if unsafe.SliceData(m.js.scratch) != unsafe.SliceData(scratch) || toOut && unsafe.SliceData(m.js.out) != unsafe.SliceData(guard) {
					t.Fatalf("%s: topObj made room of its own with %d bytes", what, need)
				}
				if n := strings.TrimLeft(string(guard[at+need:]), "#"); n != "" {
					t.Fatalf("%s: wrote past the room of %d bytes: %q", what, need, guard[at+need:at+need+32])
				}
				text := m.fragText(out)
				if int(out.n)+textPad > need || !json.Valid(text) {
					t.Fatalf("%s: %d bytes written for a room of %d: %s", what, out.n, need, text)
				}
				if toOut {
					if out.off&fragSrc != fragOut || len(m.js.out) != at {
						t.Fatalf("%s: frag %x, chunk length %d, want a frag past its end %d", what, out.off, len(m.js.out), at)
					}
					if c, o := m.keep(out); c != 0 || int(o) != at || len(m.js.out) != at+int(out.n) || string(m.js.out[o:]) != string(text) {
						t.Fatalf("%s: kept at %d:%d, chunk length %d", what, c, o, len(m.js.out))
					}
					// A chunk one byte short of the value and textPad:
					// outRoom counts the value and starts a new chunk,
					// writing nothing in this one.
					short := int(out.n) + textPad - 1
					guard = bytes.Repeat([]byte{'#'}, at+short+512)
					m.js.out = guard[: at : at+short]
					m.js.outs = append(m.js.outs[:0], m.js.out)
					again, _, _ := m.topObj(op, &ts, ^uint64(0), true)
					if n := strings.TrimLeft(string(guard[at:]), "#"); n != "" {
						t.Fatalf("%s: wrote in a chunk one byte short: %q", what, guard[at:at+32])
					}
					if unsafe.SliceData(m.js.out) == unsafe.SliceData(guard) || len(m.js.outs) != 2 || string(m.fragText(again)) != string(text) {
						t.Fatalf("%s: no new chunk for a value of %d bytes (%d chunks): %s", what, again.n, len(m.js.outs), m.fragText(again))
					}
				}
				checked++
				g.release(m)
			}
		}
	}
	if checked < 8 {
		t.Fatalf("%d objects checked", checked)
	}
}
