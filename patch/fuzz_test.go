package patch

import (
	"errors"
	"strings"
	"testing"
)

// fuzzSeeds are diffs of the shapes models write, good and bad.
var fuzzSeeds = []string{
	"@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
	"@@\n a\n-b\n+c\n d\n",
	"--- a/f\n+++ b/f\n@@ -1,9 +1,9 @@\n a\n-b\n+c\n\nprose\n",
	"@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n",
	"--- a/f\r\n+++ b/f\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n",
	"@@ -0,0 +1,2 @@\n+a\n+b\n",
	"@@@ -1 -1 +1 @@@\n",
	"@@ -3 +3,0 @@\n-x\n-- \n2.43.0\n",
}

func FuzzParse(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		f.Add(fx.diff)
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, diff string) {
		p, err := Parse(diff)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Kind == nil || !errors.Is(err, pe.Kind) {
				t.Fatalf("untyped error %#v", err)
			}
			return
		}
		if len(p.Hunks) == 0 {
			t.Fatal("no error and no hunks")
		}
		for i, h := range p.Hunks {
			o, n := 0, 0
			for _, l := range h.Lines {
				if l.Op != Context && l.Op != Delete && l.Op != Insert {
					t.Fatalf("hunk %d: bad op %q", i+1, l.Op)
				}
				if strings.Contains(l.Text, "\n") {
					t.Fatalf("hunk %d: newline inside a line", i+1)
				}
				if l.old() {
					o++
				}
				if l.new() {
					n++
				}
			}
			if o != h.OldLines || n != h.NewLines {
				t.Fatalf("hunk %d: counts %d,%d but lines %d,%d", i+1, h.OldLines, h.NewLines, o, n)
			}
		}
		q, err := Parse(p.String())
		if err != nil || !sameHunks(p, q) {
			t.Fatalf("String does not parse back: %v\n%s", err, p.String())
		}
	})
}

func FuzzApply(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		f.Add(fx.old, fx.diff, false)
	}
	for _, s := range fuzzSeeds {
		f.Add("a\nb\nc\nd\na\nb\n", s, true)
	}
	f.Fuzz(func(t *testing.T, original, diff string, ws bool) {
		for _, opt := range []Options{{Strict: true}, {Fuzz: DefaultFuzz, IgnoreWhitespace: ws}} {
			got, rep, err := ApplyWith(original, diff, opt)
			if err != nil {
				var pe *ParseError
				var ae *ApplyError
				if got != "" || rep != nil || !errors.As(err, &pe) && !errors.As(err, &ae) {
					t.Fatalf("%+v: error %#v with %q, %+v", opt, err, got, rep)
				}
				continue
			}
			n := len(splitLines(original))
			for _, h := range rep.Hunks {
				if h.Line < 0 || h.Line > n+1 {
					t.Fatalf("%+v: hunk %+v outside a text of %d lines", opt, h, n)
				}
			}
		}
	})
}

// FuzzDiff: a diff made from two texts applies strictly to give the second,
// and the careful applier gives the second or refuses (ambiguous, or
// seemingly applied already, as adding one more copy to a run of equal
// lines looks), never anything else.
func FuzzDiff(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		f.Add(fx.old, fx.new, uint8(3))
	}
	f.Add("a\nb\nc\na\nb\nc\n", "a\nB\nc\na\nb\nc\n", uint8(1))
	f.Add("x\r\ny\r\n", "x\r\nz\n", uint8(0))
	f.Add("a\nb", "a\nb\n", uint8(2))
	f.Fuzz(func(t *testing.T, old, new string, context uint8) {
		text := Diff(old, new, int(context%8)).String()
		if old == new {
			if text != "" {
				t.Fatalf("equal texts gave %q", text)
			}
			return
		}
		got, _, err := ApplyWith(old, text, Options{Strict: true})
		if err != nil || got != new {
			t.Fatalf("strict: %q, %v\ndiff:\n%s", got, err, text)
		}
		got, _, err = Apply(old, text)
		refused := errors.Is(err, ErrAmbiguous) || errors.Is(err, ErrApplied)
		if err != nil && !refused || err == nil && got != new {
			t.Fatalf("careful: %q, %v\ndiff:\n%s", got, err, text)
		}
	})
}
