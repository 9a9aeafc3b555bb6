package main

import (
	"strings"
	"testing"
)

// The fixture has three cases: two the matcher agrees with and one whose
// recorded answer is deliberately wrong, so the difference report is
// exercised.
func TestEvaluateFixture(t *testing.T) {
	var b strings.Builder
	sum, err := evaluate("testdata/agr", "", true, &b)
	if err != nil {
		t.Fatal(err)
	}
	if sum.grammars != 1 || sum.cases != 3 || sum.identical != 2 || sum.different != 1 || sum.errors != 0 {
		t.Errorf("summary %+v\n%s", sum, b.String())
	}
	if sum.topAgree != 2 || sum.topCases != 2 {
		t.Errorf("top agreement %d/%d\n%s", sum.topAgree, sum.topCases, b.String())
	}
	out := b.String()
	for _, want := range []string{`"halt":`, `missing {"stop":true}`, "TOTAL"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchmarkFixture(t *testing.T) {
	var b strings.Builder
	if err := benchmark("testdata/agr", "", 2, 2, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"tiny", "compile tiny.agr", "speedup"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
