package grammarbridge

import (
	"slices"
	"strings"
	"testing"
)

func TestSlab(t *testing.T) {
	var s slab[int]
	// Values handed out are distinct and zero, across chunks.
	seen := map[*int]bool{}
	for i := range 3 * slabChunk {
		p := s.new()
		if *p != 0 || seen[p] {
			t.Fatalf("new #%d: value %d, seen before %v", i, *p, seen[p])
		}
		*p = i + 1
		seen[p] = true
	}
	// A slice's capacity is its length: appending to one never writes
	// into the next one's room.
	a := s.make(3)
	b := s.clone([]int{7, 8, 9})
	if len(a) != 3 || cap(a) != 3 || !slices.Equal(a, []int{0, 0, 0}) {
		t.Fatalf("make(3) = %v, cap %d", a, cap(a))
	}
	a = append(a, 4)
	if !slices.Equal(b, []int{7, 8, 9}) {
		t.Errorf("appending to one slice changed the next: %v", b)
	}
	if big := s.make(slabChunk); len(big) != slabChunk || cap(big) != slabChunk {
		t.Errorf("make(%d): len %d cap %d", slabChunk, len(big), cap(big))
	}
	if s.clone(nil) != nil {
		t.Error("clone(nil) is not nil")
	}
}

// TestStrSlab: strings handed out keep their bytes however many follow
// them and whatever is done to the buffer they were made from.
func TestStrSlab(t *testing.T) {
	var s strSlab
	var got, want []string
	buf := []byte{}
	for i := range 2000 {
		buf = append(buf[:0], strings.Repeat(string(rune('a'+i%26)), i%40)...)
		buf = append(buf, byte('0'+i%10))
		got = append(got, s.str(buf))
		want = append(want, string(buf))
		if cap(s.free)-len(s.free) < textPad {
			t.Fatalf("string %d: %d bytes readable past it, want %d (copyText)", i, cap(s.free)-len(s.free), textPad)
		}
		buf[0] = '!' // the caller reuses its buffer
	}
	long := strings.Repeat("x", strChunk)
	got, want = append(got, s.str([]byte(long))), append(want, long)
	if s.str(nil) != "" {
		t.Error("str(nil) is not empty")
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("string %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

// TestParseSlabsIndependent: the syntax tree's lists come from slabs,
// and each is its own: appending to one alternative's parts or one
// group's alternatives leaves its neighbours as they were.
func TestParseSlabsIndependent(t *testing.T) {
	f, err := Parse("t.agr", `<Start> = a <B> $(x:wildcard) | (c | d) e -> { x, y: "k" }; <B> = f | g;`)
	if err != nil {
		t.Fatal(err)
	}
	start, b := f.Rules[0].Alts, f.Rules[1].Alts
	before := [][]Expr{slices.Clone(start[0].Parts), slices.Clone(start[1].Parts), slices.Clone(b[0].Parts)}
	for _, a := range append(slices.Clone(start), b...) {
		if cap(a.Parts) != len(a.Parts) {
			t.Errorf("alternative at %v: parts len %d cap %d", a.Pos, len(a.Parts), cap(a.Parts))
		}
		a.Parts = append(a.Parts, &Literal{Tokens: []string{"extra"}})
	}
	after := [][]Expr{start[0].Parts, start[1].Parts, b[0].Parts}
	for i := range before {
		if !slices.Equal(before[i], after[i][:len(before[i])]) {
			t.Errorf("list %d changed by an append to another", i)
		}
	}
	g := start[1].Parts[0].(*Group)
	if cap(g.Alts) != len(g.Alts) || len(g.Alts) != 2 {
		t.Errorf("group alternatives: len %d cap %d", len(g.Alts), cap(g.Alts))
	}
	obj := start[1].Value.(*ObjectValue)
	if len(obj.Props) != 2 || cap(obj.Props) != 2 || obj.Props[0].Key != "x" || obj.Props[1].Key != "y" {
		t.Errorf("object properties: %+v (cap %d)", obj.Props, cap(obj.Props))
	}

	// Objects inside objects: each gathers its properties on the same
	// stack above its parent's.
	f, err = Parse("t.agr", `<Start> = $(x:wildcard) -> { a: { b: 1, c: { d: x } }, ...x, e: [{ f: x }, { g: 2, h: 3 }] };`)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(v ValueExpr) string {
		o := v.(*ObjectValue)
		var ks []string
		for _, p := range o.Props {
			if p.Spread {
				ks = append(ks, "...")
			} else {
				ks = append(ks, p.Key)
			}
		}
		return strings.Join(ks, ",")
	}
	top := f.Rules[0].Alts[0].Value
	a := top.(*ObjectValue).Props[0].Value
	e := top.(*ObjectValue).Props[2].Value.(*ArrayValue)
	for _, c := range []struct{ got, want string }{
		{keys(top), "a,...,e"},
		{keys(a), "b,c"},
		{keys(a.(*ObjectValue).Props[1].Value), "d"},
		{keys(e.Elems[0]), "f"},
		{keys(e.Elems[1]), "g,h"},
	} {
		if c.got != c.want {
			t.Errorf("keys %q, want %q", c.got, c.want)
		}
	}
}
