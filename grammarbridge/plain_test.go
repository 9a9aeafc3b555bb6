package grammarbridge

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestPlainValues checks values written straight from a frame (topValue):
// unbound and undefined variables, a variable read twice, nested objects
// and arrays, numbers, and an object of more than 64 properties (which
// visits every property, topObjLong).
func TestPlainValues(t *testing.T) {
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
			b, _ := m.Value.(*Object).MarshalJSON()
			got = append(got, string(b))
		}
		if !strings.Contains(strings.Join(got, "\n"), c.want) {
			t.Errorf("%q: got\n%s\nwant among them\n%s", c.in, strings.Join(got, "\n"), c.want)
		}
		checkHashes(t, g, c.in)
	}
}

// TestResultsStayTheCallers checks that values and match slices handed out
// from the matcher's chunks belong to the caller: later matches (new
// values, duplicates given back, inputs with no match) never write into
// them, and appending to a returned slice never reaches the next one.
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
		k := kept{ms: ms}
		for _, m := range ms {
			k.want = append(k.want, Canonical(m.Value))
		}
		if n := len(all); n > 0 {
			// Appending to the previous result list must not reach this one.
			_ = append(all[n-1].ms, Match{Value: "appended"})
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

// TestChunksBounded checks that the values the matcher's kept chunks can
// reach stay few however many inputs were matched: values split between
// chunks of different kinds must not chain every chunk kept to the ones
// before it (which would keep the dead values of all earlier inputs
// reachable).
func TestChunksBounded(t *testing.T) {
	g := mustCompile(t, `<Start> = play $(t:wildcard) by $(a:wildcard) -> { actionName: "play", parameters: { track: t, artist: a, target: { kind: "track", artists: [a] } } }
	        | play $(t:wildcard) -> { actionName: "play", parameters: { target: { kind: "track", name: t } } };`, Options{})
	inputs := []string{"play a by b by c", "play x", "play one by two", "play so by me by you by them"}
	most := 0
	for i := range 20000 {
		if _, err := g.Match(inputs[i%len(inputs)]); err != nil {
			t.Fatal(err)
		}
		if i%500 != 499 {
			continue
		}
		m := g.spare.Load()
		if m == nil {
			t.Fatal("no spare matcher")
		}
		most = max(most, reachableObjects(&m.plain.chunks))
	}
	// Each kind's chunk holds at most a chunk's worth of values, and those
	// may reach into the chunks just before.
	if limit := 4 * (chunkObjs + maxChunkProps + elemChunk + matchChunk); most > limit {
		t.Fatalf("the kept chunks reach %d objects (at most %d expected)", most, limit)
	}
}

// reachableObjects counts the distinct objects reachable from the values
// in c's chunks.
func reachableObjects(c *chunks) int {
	seen := map[*Object]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch v := v.(type) {
		case *Object:
			if seen[v] {
				return
			}
			seen[v] = true
			for _, p := range v.Props {
				visit(p.Value)
			}
		case []any:
			for _, e := range v {
				visit(e)
			}
		}
	}
	for i := range c.objs {
		visit(&c.objs[i])
	}
	for _, p := range c.props {
		visit(p.Value)
	}
	for _, e := range c.elems {
		visit(e)
	}
	for _, m := range c.matches {
		visit(m.Value)
	}
	return len(seen)
}

// TestBoxes checks texts and numbers boxed in chunks (boxText, boxNum):
// each is a string or float64 to a type switch, to reflect, to JSON and
// to ==, keeps its value while later boxes fill that chunk and the next,
// and survives collections (its chunk holds the text's bytes).
func TestBoxes(t *testing.T) {
	var b plainBufs
	var vs []any
	var want []any
	for i := range 3*strChunk + 5 {
		s := strings.Repeat("x", i%7) + fmt.Sprint(i)
		f := float64(i) + 0.5
		arr := []any{s, f}[:1+i%2]
		vs = append(vs, b.boxText(s), b.boxNum(f), b.boxElems(arr))
		want = append(want, s, f, arr)
		if i%20 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for i, v := range vs {
		switch w := want[i].(type) {
		case string:
			if s, ok := v.(string); !ok || s != w || v != want[i] || reflect.TypeOf(v).Kind() != reflect.String {
				t.Fatalf("box %d: %T %v is not the string %q", i, v, v, w)
			}
		case float64:
			if f, ok := v.(float64); !ok || f != w || v != want[i] || hashValue(v) != hashNum(w) {
				t.Fatalf("box %d: %T %v is not the number %v", i, v, v, w)
			}
		case []any:
			a, ok := v.([]any)
			if !ok || !reflect.DeepEqual(v, want[i]) || !equalValue(v, w) || hashValue(v) != hashValue(w) || reflect.TypeOf(v).Kind() != reflect.Slice || len(a) != len(w) || cap(a) != cap(w) {
				t.Fatalf("box %d: %T %v is not the array %v", i, v, v, w)
			}
		}
		got, err := json.Marshal(v)
		if exp, _ := json.Marshal(want[i]); err != nil || string(got) != string(exp) {
			t.Fatalf("box %d: JSON %s, want %s (%v)", i, got, exp, err)
		}
	}
}

// TestResultsDropped checks that the results a matcher keeps after a
// match (dropResults) hold only values in the chunks it keeps anyway, or
// the grammar's literals: over inputs with one, several and no results,
// and with chunks made in some matches and not in others.
func TestResultsDropped(t *testing.T) {
	g := mustCompile(t, `<Start> = play $(t:wildcard) by $(a:wildcard) -> { actionName: "play", parameters: { track: t, artist: a, n: 1.5, list: [t, a] } }
	        | play $(t:wildcard) -> { actionName: "play", parameters: { track: t } }
	        | count $(n:number) -> n
	        | stop -> "stop";`, Options{})
	inputs := []string{"play a by b by c by d", "stop", "play x", "nothing", "count 7", "play one by two"}
	within := func(p, base unsafe.Pointer, size uintptr) bool {
		return uintptr(p) >= uintptr(base) && uintptr(p) < uintptr(base)+size
	}
	kept := 0
	rnd := rand.New(rand.NewPCG(1, 2)) // chunks made in every kind of match
	for round := range 2000 {
		if _, err := g.Match(inputs[rnd.IntN(len(inputs))]); err != nil {
			t.Fatal(err)
		}
		m := g.spare.Load()
		if m == nil {
			t.Fatal("no matcher kept")
		}
		b := &m.plain
		for i, r := range m.results[:cap(m.results)] {
			if r.v == nil {
				continue
			}
			kept++
			p := (*eface)(unsafe.Pointer(&r.v)).data
			ok := false
			switch r.v.(type) {
			case *Object:
				ok = within(p, unsafe.Pointer(unsafe.SliceData(b.objs)), uintptr(cap(b.objs))*unsafe.Sizeof(Object{}))
			case []any:
				ok = within(unsafe.Pointer(unsafe.SliceData(r.v.([]any))), unsafe.Pointer(unsafe.SliceData(b.elems)), uintptr(cap(b.elems))*unsafe.Sizeof(any(nil))) &&
					within(p, unsafe.Pointer(unsafe.SliceData(b.arrs)), uintptr(cap(b.arrs))*unsafe.Sizeof([]any(nil)))
			case string:
				ok = within(p, unsafe.Pointer(unsafe.SliceData(b.strs)), uintptr(cap(b.strs))*unsafe.Sizeof(""))
				for _, l := range g.vt.lits {
					ok = ok || r.v == l
				}
			case float64:
				ok = within(p, unsafe.Pointer(unsafe.SliceData(b.nums)), uintptr(cap(b.nums))*8)
			}
			if !ok {
				t.Fatalf("round %d: result %d (%s) is kept outside the matcher's chunks", round, i, Canonical(r.v))
			}
		}
	}
	if kept == 0 {
		t.Fatal("no result was kept: the test tests nothing")
	}
}

// TestTopObjOuter checks the objects topObjOuter writes: an outer object
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
		got, _ := json.Marshal(ms[0].Value)
		if string(got) != c.want {
			t.Errorf("%q: %s, want %s", c.in, got, c.want)
		}
		if h, want := topHash(t, g, c.in), hashValue(ms[0].Value); h != want {
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

// TestValueChunksNoChains checks that no value is split between pairs of
// chunks of objects and properties made at different times. The
// collector keeps a chunk whole, so a value split that way keeps the
// older chunk reachable from the newer, and through the values of earlier
// inputs in it, the ones before (see chunkObjs). After many matches of
// values with an outer object, a varying number of properties, a nested
// object and none, it looks at every pointer in every chunk made, as the
// collector would, for one into another pair.
func TestValueChunksNoChains(t *testing.T) {
	type pair struct {
		objs  []Object
		props []Prop
	}
	var made []pair
	newChunkHook = func(objs []Object, props []Prop) { made = append(made, pair{objs, props}) }
	defer func() { newChunkHook = nil }()
	g := mustCompile(t, `<Start> = play $(t:wildcard) (by)? $(a:wildcard)? (on)? $(d:wildcard)? -> { actionName: "play", parameters: { track: t, artist: a, device: d } }
	        | queue $(t:wildcard) (by)? $(a:wildcard)? -> { actionName: "queue", parameters: { target: { kind: "track", name: t, by: a } } }
	        | stop $(t:wildcard) (on)? $(d:wildcard)? -> { stop: t, device: d };`, Options{})
	words := strings.Fields("x y by on z w")
	r := rand.New(rand.NewPCG(7, 9))
	for range 3000 {
		ws := []string{[]string{"play", "queue", "stop"}[r.IntN(3)]}
		for range 1 + r.IntN(8) {
			ws = append(ws, words[r.IntN(len(words))])
		}
		if _, err := g.Match(strings.Join(ws, " ")); err != nil {
			t.Fatal(err)
		}
	}
	if len(made) < 20 {
		t.Fatalf("%d pairs of chunks made: the test does not turn chunks over", len(made))
	}
	within := func(p unsafe.Pointer, base unsafe.Pointer, size uintptr) bool {
		return uintptr(p) >= uintptr(base) && uintptr(p) < uintptr(base)+size
	}
	chunkOf := func(p unsafe.Pointer) int {
		for i, c := range made {
			if within(p, unsafe.Pointer(unsafe.SliceData(c.objs)), uintptr(len(c.objs))*unsafe.Sizeof(Object{})) ||
				within(p, unsafe.Pointer(unsafe.SliceData(c.props)), uintptr(len(c.props))*unsafe.Sizeof(Prop{})) {
				return i
			}
		}
		return -1
	}
	links := 0
	for k, c := range made {
		for i := range c.objs {
			if ps := c.objs[i].Props; ps != nil && chunkOf(unsafe.Pointer(unsafe.SliceData(ps))) != k {
				links++
			}
		}
		for i := range c.props {
			if o, ok := c.props[i].Value.(*Object); ok && chunkOf(unsafe.Pointer(o)) != k {
				links++
			}
		}
	}
	if links > 0 {
		t.Fatalf("%d pointers from one of the %d pairs of chunks made into another", links, len(made))
	}
}
