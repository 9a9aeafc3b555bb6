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
// may start under each spacing. TypeAgent searches with a global regular
// expression, each search from where the last number found ended
// (nextNumber): never at the digits inside a number ("25" in "425", "5"
// in "1.25" or "-5"), even under none and optional spacing; and then
// needs the boundary after it. Every answer here is TypeAgent's
// (docs/grammar-ref.md).
func TestNumberAfterWild(t *testing.T) {
	g := mustCompile(t, numberAfterWildGrammar, Options{})
	runMatchCases(t, g, []matchCase{
		{"a q 425", `[["q",425]]`},
		{"a q425", `[["q",425]]`},
		{"a q -42", `[["q",-42]]`},
		{"a q 4-25", `[["q 4",-25]]`},
		{"a é 425", `[["é",425]]`},
		{"a q 1.25", `[["q",1.25]]`},
		{"bq425", `[["q",425]]`},
		{"bq-42", `[["q",-42]]`},
		{"bé425", `[["é",425]]`},
		{"c q 425", `[["q",425]]`},
		{"c q425", `[["q",425]]`},
		{"cé 42", `[["é",42]]`},
		{"d q 425", `[["q",425]]`},
		{"d q -42", `[["q",-42]]`},
		{"d q 4+25", `[["q 4",25]]`},
		{"d é 425", `[["é",425]]`},
		{"d q 42x", `[]`},
		{"e q 42x", `[["q",42]]`},
		{"e q 4.2e5x", `[["q",420000]]`},
		{"e q 4.2ex", `[]`},
		{"e q 0x1fx", `[]`},
		{"f q 42x", `[]`},
		{"f q 42 x", `[["q",42]]`},
		{"a q 12.5.7", `[["q 12.5",7]]`},
		{"a q 1e05", `[["q 1e",5]]`},
		{"a q +5", `[["q",5]]`},
		{"c q 1.25", `[["q",1.25]]`},
		{"bq1.25", `[["q",1.25]]`},
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
