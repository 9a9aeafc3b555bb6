package grammarbridge

import "testing"

// numberAfterWildGrammar has a number after a wildcard under each
// spacing.
const numberAfterWildGrammar = `
<Start> = <Auto> | <None> | <Opt> | <Req> | <Then> | <ReqThen>;
<Auto> = a $(x:wildcard) $(n:number) -> [x, n];
<None> [spacing=none] = b $(x:wildcard) $(n:number) -> [x, n];
<Opt> [spacing=optional] = c $(x:wildcard) $(n:number) -> [x, n];
<Req> [spacing=required] = d $(x:wildcard) $(n:number) -> [x, n];
<Then> = e $(x:wildcard) $(n:number) x -> [x, n];
<ReqThen> [spacing=required] = f $(x:wildcard) $(n:number) x -> [x, n];
`

// TestNumberAfterWild checks where a number searched after a wildcard
// may start: not at the digits of a number after its first under auto
// and required spacing (nextNumberAt skips them), but there too under
// none and optional spacing, and at signs, after letters and in input
// that is not ASCII under every spacing; and the boundary after it, which
// numberAt tests under every spacing but auto.
func TestNumberAfterWild(t *testing.T) {
	g := mustCompile(t, numberAfterWildGrammar, Options{})
	runMatchCases(t, g, []matchCase{
		{"a q 425", `[["q",425]]`},
		{"a q425", `[["q",425]]`},
		{"a q -42", `[["q",-42],["q",42]]`},
		{"a q 4-25", `[["q 4",-25],["q 4",25]]`},
		{"a é 425", `[["é",425]]`},
		{"a q 1.25", `[["q 1",25],["q",1.25]]`},
		{"bq425", `[["q",425],["q4",25],["q42",5]]`},
		{"bq-42", `[["q",-42],["q",42],["q-4",2]]`},
		{"bé425", `[["é",425],["é4",25],["é42",5]]`},
		{"c q 425", `[["q 4",25],["q 42",5],["q",425]]`},
		{"c q425", `[["q",425],["q4",25],["q42",5]]`},
		{"cé 42", `[["é 4",2],["é",42]]`},
		{"d q 425", `[["q",425]]`},
		{"d q -42", `[["q",-42],["q",42]]`},
		{"d q 4+25", `[]`},
		{"d é 425", `[["é",425]]`},
		{"d q 42x", `[]`},
		{"e q 42x", `[["q",42]]`},
		{"e q 4.2e5x", `[["q 4",200000],["q 4.2e",5],["q",420000]]`},
		{"e q 4.2ex", `[]`},
		{"e q 0x1fx", `[]`},
		{"f q 42x", `[]`},
		{"f q 42 x", `[["q",42]]`},
	})
}

// TestLowerWord checks lowerWord on every ASCII byte at every place of a
// word.
func TestLowerWord(t *testing.T) {
	for c := 0; c < 128; c++ {
		for i := 0; i < 8; i++ {
			x := uint64(c) << (8 * i)
			want := x
			if 'A' <= c && c <= 'Z' {
				want = uint64(c+'a'-'A') << (8 * i)
			}
			if got := lowerWord(x); got != want {
				t.Fatalf("byte %#x at %d: %#x, want %#x", c, i, got, want)
			}
		}
	}
}
