package grammarbridge

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestObjectOrder checks that a match's objects keep the order in which
// the value expression wrote their properties, in Go and in JSON, and that
// Canonical sorts them.
func TestObjectOrder(t *testing.T) {
	g, err := CompileString("t.agr", `<Start> = play $(t:wildcard) by $(a:wildcard) -> { zeta: "play", alpha: { track: t, artist: a }, list: [a, 2, t] };`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := g.Best("play Yesterday by the Beatles")
	if err != nil {
		t.Fatal(err)
	}
	js := string(m.Value)
	if want := `{"zeta":"play","alpha":{"track":"Yesterday","artist":"the Beatles"},"list":["the Beatles",2,"Yesterday"]}`; js != want {
		t.Errorf("JSON %s\nwant %s", js, want)
	}
	if want := `{"alpha":{"artist":"the Beatles","track":"Yesterday"},"list":["the Beatles",2,"Yesterday"],"zeta":"play"}`; Canonical(m.Value) != want {
		t.Errorf("Canonical %s\nwant %s", Canonical(m.Value), want)
	}
	obj := &Object{Props: []Prop{{"zeta", "play"}, {"alpha", &Object{Props: []Prop{{"track", "Yesterday"}, {"artist", "the Beatles"}}}}, {"list", []any{"the Beatles", 2.0, "Yesterday"}}}}
	if v, ok := obj.Get("zeta"); !ok || v != "play" {
		t.Errorf(`Get("zeta") = %v, %v`, v, ok)
	}
	if _, ok := obj.Get("missing"); ok {
		t.Error(`Get("missing") found something`)
	}
	want := map[string]any{
		"zeta":  "play",
		"alpha": map[string]any{"track": "Yesterday", "artist": "the Beatles"},
		"list":  []any{"the Beatles", 2.0, "Yesterday"},
	}
	if got := Plain(obj); !reflect.DeepEqual(got, want) {
		t.Errorf("Plain = %#v\nwant %#v", got, want)
	}
	if got := decodeJSON(t, m.Value); !reflect.DeepEqual(got, want) {
		t.Errorf("decoded = %#v\nwant %#v", got, want)
	}
	if b, _ := obj.MarshalJSON(); string(b) != js {
		t.Errorf("MarshalJSON %s\nwant %s", b, js)
	}
}

// TestObjectSpread checks JavaScript's rules for spreads and repeated
// keys in values the evaluator builds: a key keeps the place where it was
// first written and takes the last value.
func TestObjectSpread(t *testing.T) {
	g, err := CompileString("t.agr", `
<Inner> = $(x:wildcard) -> { a: x, b: "inner" };
<Start> = go $(i:<Inner>) -> { b: "outer", ...i, c: i.a, b: "last" };`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := g.Best("go north")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(m.Value)
	if want := `{"b":"last","a":"north","c":"north"}`; string(js) != want {
		t.Errorf("JSON %s, want %s", js, want)
	}
}

// TestObjectJSONNumbers checks that numbers are written as JSON.stringify
// writes them.
func TestObjectJSONNumbers(t *testing.T) {
	o := &Object{Props: []Prop{{"n", 1e21}, {"m", 1e-7}, {"nan", math.NaN()}, {"inf", math.Inf(1)}, {"i", 42.0}}}
	js, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"n":1e+21,"m":1e-7,"nan":null,"inf":null,"i":42}`; string(js) != want {
		t.Errorf("JSON %s, want %s", js, want)
	}
}
