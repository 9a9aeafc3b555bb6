package executor

import (
	"context"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/intent"
)

// FuzzCalc: no expression panics, hangs or escapes the typed errors.
func FuzzCalc(f *testing.F) {
	for _, s := range []string{
		"radius = 5; pi * radius^2", "20% of 350", "15% off 80", "x = 3; x + 10%",
		"5 feet to meters", "70 F to C", "how many feet in a mile", "1..9", "map([1], #)",
		"\"s\" + 1", "a = ; ;", "10 % 3 %", "%%%", "1e308 * 10", "fact(171)", "2(3)(4)",
	} {
		f.Add(s)
	}
	c := NewCalc(CalcOptions{})
	f.Fuzz(func(t *testing.T, s string) {
		r, err := c.Eval(context.Background(), intent.Calc{Expr: s})
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("Eval(%q): untyped error %v", s, err)
			}
			return
		}
		if r.Text == "" || strings.Contains(r.Text, "NaN") || strings.Contains(r.Text, "Inf") {
			t.Fatalf("Eval(%q) = %q", s, r.Text)
		}
	})
}
