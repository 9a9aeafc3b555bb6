package patch

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// numbered returns n lines "line 1" ... "line n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestApplyFixtures(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		for _, opt := range []Options{{Strict: true}, {Fuzz: DefaultFuzz}} {
			got, rep, err := ApplyWith(fx.old, fx.diff, opt)
			if err != nil {
				t.Fatalf("%s %+v: %v", fx.name, opt, err)
			}
			if got != fx.new {
				t.Errorf("%s %+v: got\n%s\nwant\n%s", fx.name, opt, got, fx.new)
			}
			if !rep.Strict {
				t.Errorf("%s %+v: report %+v, want Strict", fx.name, opt, rep)
			}
		}
	}
}

func TestApplyCareful(t *testing.T) {
	text := numbered(30)
	hunk := "@@ -10,7 +10,7 @@\n line 10\n line 11\n line 12\n-line 13\n+LINE 13\n line 14\n line 15\n line 16\n"
	want := strings.Replace(text, "line 13\n", "LINE 13\n", 1)
	for _, tc := range []struct {
		name, old, diff, want string
		opt                   Options
		rep                   HunkReport
	}{
		{"exact", text, hunk, want, Options{}, HunkReport{Hunk: 1, Line: 10}},
		{"wrong line numbers", text, strings.Replace(hunk, "-10,7 +10,7", "-3,7 +3,7", 1), want, Options{}, HunkReport{Hunk: 1, Line: 10, Offset: 7}},
		{"no numbers", text, strings.Replace(hunk, "@@ -10,7 +10,7 @@", "@@", 1), want, Options{}, HunkReport{Hunk: 1, Line: 10}},
		{"wrong counts", text, strings.Replace(hunk, "-10,7 +10,7", "-10,5 +10,9", 1), want, Options{}, HunkReport{Hunk: 1, Line: 10}},
		{"drift", "new a\nnew b\n" + text, hunk, "new a\nnew b\n" + want, Options{}, HunkReport{Hunk: 1, Line: 12, Offset: 2}},
		{"fuzz 1: outer context changed", strings.Replace(text, "line 16\n", "line sixteen\n", 1), hunk,
			strings.Replace(want, "line 16\n", "line sixteen\n", 1), Options{Fuzz: 2}, HunkReport{Hunk: 1, Line: 10, Fuzz: 1}},
		{"fuzz 2: both outer lines changed", strings.NewReplacer("line 10\n", "line ten\n", "line 16\n", "line sixteen\n", "line 11\n", "line eleven\n").Replace(text), hunk,
			strings.NewReplacer("line 10\n", "line ten\n", "line 16\n", "line sixteen\n", "line 11\n", "line eleven\n").Replace(want), Options{Fuzz: 2}, HunkReport{Hunk: 1, Line: 10, Fuzz: 2}},
		{"whitespace ignored", strings.Replace(text, "line 12\n", "  line\t 12  \n", 1), hunk,
			strings.Replace(want, "line 12\n", "  line\t 12  \n", 1), Options{IgnoreWhitespace: true}, HunkReport{Hunk: 1, Line: 10, Whitespace: true}},
		// Both places fit once the outer context is dropped; the context
		// dropped matches one of them but for whitespace, so that one fits better.
		{"dropped context decides", "p1\nX\nq1\nmid\np2\nX\nq2\n", "@@ -5,3 +5,3 @@\n p2 \n-X\n+Y\n zz\n",
			"p1\nX\nq1\nmid\np2\nY\nq2\n", Options{Fuzz: 2}, HunkReport{Hunk: 1, Line: 5, Fuzz: 1}},
		{"crlf text, lf patch", strings.ReplaceAll(text, "\n", "\r\n"), hunk, strings.ReplaceAll(want, "\n", "\r\n"), Options{}, HunkReport{Hunk: 1, Line: 10}},
		{"start of text", "a\nb\nc\nd\n", "@@ -1,3 +1,4 @@\n+top\n a\n b\n c\n", "top\na\nb\nc\nd\n", Options{}, HunkReport{Hunk: 1, Line: 1}},
		// The hunk's shape (context only before the change) says the end of
		// the text, which tells the two blank lines apart.
		{"end of text", "x\n\ny\n\n", "@@ -3,2 +3,3 @@\n y\n \n+end\n", "x\n\ny\n\nend\n", Options{}, HunkReport{Hunk: 1, Line: 3}},
		{"end claim with wrong numbers", "x\n\ny\n\n", "@@ -1,1 +1,2 @@\n \n+end\n", "x\n\ny\n\nend\n", Options{}, HunkReport{Hunk: 1, Line: 4, Offset: 3}},
		{"missing final newline, kept", "a\nb\nc", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\\ No newline at end of file\n", "a\nB\nc", Options{}, HunkReport{Hunk: 1, Line: 1}},
		{"final newline added", "a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", "a\nb\n", Options{}, HunkReport{Hunk: 1, Line: 1}},
		{"append after a last line without newline", "a\nb", "@@ -1,2 +1,3 @@\n a\n b\n+c\n", "a\nb\nc\n", Options{}, HunkReport{Hunk: 1, Line: 1}},
		{"fenced body without @@", text, "```diff\n line 12\n-line 13\n+LINE 13\n line 14\n```\n", want, Options{}, HunkReport{Hunk: 1, Line: 12}},
		{"new text", "", "@@ -0,0 +1,2 @@\n+a\n+b\n", "a\nb\n", Options{}, HunkReport{Hunk: 1, Line: 0}},
		{"new text, wrong numbers", "", "@@ -5,0 +5,2 @@\n+a\n+b\n", "a\nb\n", Options{}, HunkReport{Hunk: 1, Line: 0, Offset: -5}},
		{"no context: numbers decide", "a\nb\nc\n", "@@ -2,0 +3 @@\n+x\n", "a\nb\nx\nc\n", Options{}, HunkReport{Hunk: 1, Line: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rep, err := ApplyWith(tc.old, tc.diff, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
			if len(rep.Hunks) != 1 || rep.Hunks[0] != tc.rep {
				t.Errorf("report %+v, want %+v", rep.Hunks, tc.rep)
			}
			wantStrict := map[string]bool{"exact": true, "start of text": true, "end of text": true, "missing final newline, kept": true,
				"final newline added": true, "new text": true, "no context: numbers decide": true}[tc.name]
			if rep.Strict != wantStrict {
				t.Errorf("report.Strict = %v", rep.Strict)
			}
		})
	}
}

// TestApplyRefuses checks what must not be applied, and that the error names
// the hunk.
func TestApplyRefuses(t *testing.T) {
	text := numbered(30)
	for _, tc := range []struct {
		name, old, diff string
		opt             Options
		kind            error
		hunk            int
		places          []int
	}{
		{"context nowhere", text, "@@ -10,3 +10,3 @@\n line 10\n-line 99\n+x\n line 12\n", Options{Fuzz: 2}, ErrNoMatch, 1, nil},
		{"removed line changed: fuzz never drops it", text, "@@ -10,3 +10,3 @@\n line 10\n-line 11 changed\n+x\n line 12\n", Options{Fuzz: 2}, ErrNoMatch, 1, nil},
		{"fuzz 0 is no fuzz", strings.Replace(text, "line 10\n", "line ten\n", 1), "@@ -10,3 +10,3 @@\n line 10\n-line 11\n+x\n line 12\n", Options{}, ErrNoMatch, 1, nil},
		{"whitespace not ignored by default", strings.Replace(text, "line 11\n", "line  11\n", 1), "@@ -10,3 +10,3 @@\n line 10\n-line 11\n+x\n line 12\n", Options{Fuzz: 2}, ErrNoMatch, 1, nil},
		{"strict: wrong numbers", text, "@@ -9,3 +9,3 @@\n line 10\n-line 11\n+x\n line 12\n", Options{Strict: true}, ErrNoMatch, 1, nil},
		{"strict: recounted", text, "@@ -10,2 +10,2 @@\n line 10\n-line 11\n+x\n line 12\n", Options{Strict: true}, ErrNoMatch, 1, nil},
		{"ambiguous", "a\nb\nc\nx\na\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", Options{Fuzz: 2}, ErrAmbiguous, 1, []int{1, 5}},
		// Numbers that point exactly at one copy are no better than the other.
		{"ambiguous even at the stated line", "a\nb\nc\nx\na\nb\nc\n", "@@ -5,3 +5,3 @@\n a\n-b\n+B\n c\n", Options{Fuzz: 2}, ErrAmbiguous, 1, []int{1, 5}},
		{"ambiguous only after fuzz", "a\nb\nc\nx\nq\nb\nr\n", "@@ -1,3 +1,3 @@\n z\n-b\n+B\n z\n", Options{Fuzz: 2}, ErrAmbiguous, 1, []int{1, 5}},
		{"all or nothing: second hunk fails", text, "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+x\n line 4\n@@ -20,3 +20,3 @@\n line 20\n-line 21 nope\n+y\n line 22\n", Options{Fuzz: 2}, ErrNoMatch, 2, nil},
		{"no context, no numbers", text, "@@\n+x\n", Options{Fuzz: 2}, ErrNoMatch, 1, nil},
		{"no context, beyond the end", "a\n", "@@ -7,0 +8 @@\n+x\n", Options{Fuzz: 2}, ErrNoMatch, 1, nil},
		{"applied twice: appended at the end", "a\nb\nc\nnew\n", "@@ -1,3 +1,4 @@\n a\n b\n c\n+new\n", Options{Fuzz: 2}, ErrApplied, 1, nil},
		{"applied twice: prepended", "new\na\nb\nc\n", "@@ -1,3 +1,4 @@\n+new\n a\n b\n c\n", Options{Fuzz: 2}, ErrApplied, 1, nil},
		{"applied twice: inserted between context", "a\nb\nnew\nc\nd\n", "@@ -1,4 +1,5 @@\n a\n b\n+new\n c\n d\n", Options{Fuzz: 2}, ErrNoMatch, 1, nil},
		{"applied twice: created", "a\nb\nc\n", "@@ -0,0 +1,2 @@\n+a\n+b\n", Options{Fuzz: 2}, ErrApplied, 1, nil},
		// The hunk was applied to the second of two similar blocks; now only
		// the first fits, with fuzz, and the second reads as the hunk's result.
		{"applied twice: fuzz finds the copy left", "x\nA\nY\nz\nw\nx\nA\nB\nz\nv\n", "@@ -6,5 +6,5 @@\n x\n A\n-Y\n+B\n z\n v\n", Options{Fuzz: 2}, ErrApplied, 1, nil},
		// The known false refusal: one more copy of a run of equal lines
		// reads as already there.
		{"one more of a run of equal lines", "a\na\na\na\n", "@@ -2,3 +2,4 @@\n a\n a\n a\n+a\n", Options{Fuzz: 2}, ErrApplied, 1, nil},
		{"hunks out of order", text, "@@ -20,3 +20,3 @@\n line 20\n-line 21\n+y\n line 22\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+x\n line 4\n", Options{Fuzz: 2}, ErrNoMatch, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rep, err := ApplyWith(tc.old, tc.diff, tc.opt)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("ApplyWith = %q, %+v, %v; want %v", got, rep, err, tc.kind)
			}
			if got != "" || rep != nil {
				t.Errorf("a failed apply returned %q, %+v", got, rep)
			}
			var ae *ApplyError
			if !errors.As(err, &ae) || ae.Hunk != tc.hunk || !reflect.DeepEqual(ae.Places, tc.places) {
				t.Fatalf("error %#v: want hunk %d, places %v", err, tc.hunk, tc.places)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, fmt.Sprintf("hunk #%d (@@", tc.hunk)) {
				t.Errorf("message %q does not name the hunk", msg)
			}
		})
	}
}

// TestApplyOrderDecides: two identical hunks for two identical places can
// only go one way round; neither fits one place alone.
func TestApplyOrderDecides(t *testing.T) {
	old := "a\nb\nc\nmiddle\na\nb\nc\nend\n"
	for _, diff := range []string{
		"@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -5,3 +5,3 @@\n a\n-b\n+B\n c\n",
		"@@ -40,3 +40,3 @@\n a\n-b\n+B\n c\n@@ -2,3 +2,3 @@\n a\n-b\n+B\n c\n",
		"@@\n a\n-b\n+B\n c\n@@\n a\n-b\n+B\n c\n",
	} {
		got, _, err := Apply(old, diff)
		if want := "a\nB\nc\nmiddle\na\nB\nc\nend\n"; err != nil || got != want {
			t.Errorf("Apply(%q) = %q, %v; want %q", diff, got, err, want)
		}
	}
	// One hunk for two places stays ambiguous.
	if _, _, err := Apply(old, "@@ -5,3 +5,3 @@\n a\n-b\n+B\n c\n"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("one hunk, two places: %v", err)
	}
	// A unique neighbour pins the hunk after it.
	old2 := "a\nb\nc\nunique\nx\na\nb\nc\n"
	got, _, err := Apply(old2, "@@\n unique\n-x\n+X\n@@\n a\n-b\n+B\n c\n")
	if want := "a\nb\nc\nunique\nX\na\nB\nc\n"; err != nil || got != want {
		t.Errorf("pinned by neighbour: %q, %v; want %q", got, err, want)
	}
}

func TestApplyParseErrorPassesThrough(t *testing.T) {
	if _, _, err := Apply("a\n", "no diff here"); !errors.Is(err, ErrNoHunks) {
		t.Errorf("err = %v", err)
	}
}

func TestApplyDriftBetweenHunks(t *testing.T) {
	p := Diff(numbered(60), strings.NewReplacer("line 5\n", "five\n", "line 30\n", "thirty\n", "line 55\n", "fifty-five\n").Replace(numbered(60)), 3)
	if len(p.Hunks) != 3 {
		t.Fatalf("want 3 hunks, got %d", len(p.Hunks))
	}
	// Someone added lines above each hunk since the diff was made.
	old := strings.NewReplacer("line 1\n", "line 1\nnew 1\n", "line 20\n", "new 20a\nnew 20b\nline 20\n", "line 50\n", "line 50\nnew 50\n").Replace(numbered(60))
	got, rep, err := p.Apply(old, Options{Fuzz: DefaultFuzz})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer("line 5\n", "five\n", "line 30\n", "thirty\n", "line 55\n", "fifty-five\n").Replace(old)
	if got != want {
		t.Errorf("got\n%s", got)
	}
	if offs := []int{rep.Hunks[0].Offset, rep.Hunks[1].Offset, rep.Hunks[2].Offset}; !reflect.DeepEqual(offs, []int{1, 3, 4}) {
		t.Errorf("offsets %v", offs)
	}
}

// TestApplyBounded: a hostile patch against a hostile text is refused in
// bounded time, not searched forever.
func TestApplyBounded(t *testing.T) {
	text := strings.Repeat("a\n", 20000)
	var d strings.Builder
	for range 50 {
		d.WriteString("@@\n")
		for range 100 {
			d.WriteString(" a\n")
		}
		d.WriteString("+b\n")
		for range 100 {
			d.WriteString(" a\n")
		}
	}
	_, _, err := Apply(text, d.String())
	var ae *ApplyError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v", err)
	}
}

// TestApplyBlindHunkFollowsNeighbours: a hunk without context lines is
// shifted like the placed hunk nearest to it, even one after it.
func TestApplyBlindHunkFollowsNeighbours(t *testing.T) {
	old := "new 1\nnew 2\n" + numbered(20)
	diff := "@@ -3,0 +4 @@\n+inserted after line 3\n@@ -10,3 +11,3 @@\n line 10\n-line 11\n+LINE 11\n line 12\n"
	got, rep, err := Apply(old, diff)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(old, "line 3\n", "line 3\ninserted after line 3\n", 1), "line 11\n", "LINE 11\n", 1)
	if got != want {
		t.Errorf("got\n%s", got)
	}
	if rep.Hunks[0].Offset != 2 || rep.Hunks[1].Offset != 2 {
		t.Errorf("report %+v", rep.Hunks)
	}
}

// TestApplyReindent: with whitespace ignored, inserted lines take the
// text's indentation only when the hunk's own lines show how.
func TestApplyReindent(t *testing.T) {
	text := "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n"
	opt := Options{Fuzz: DefaultFuzz, IgnoreWhitespace: true}
	for _, tc := range []struct{ name, diff, want string }{
		{"retyped with spaces, added lines too",
			"@@ -2,3 +2,4 @@\n     if x {\n+        log()\n         return\n     }\n",
			"func f() {\n\tif x {\n\t\tlog()\n\t\treturn\n\t}\n}\n"},
		{"only context damaged: added lines kept",
			"@@ -2,3 +2,4 @@\n     if x {\n+\t\tlog()\n \t\treturn\n \t}\n",
			"func f() {\n\tif x {\n\t\tlog()\n\t\treturn\n\t}\n}\n"},
		{"an indentation the text has is kept",
			"@@ -2,3 +2,4 @@\n     if x {\n+\tlog()\n \t\treturn\n \t}\n",
			"func f() {\n\tif x {\n\tlog()\n\t\treturn\n\t}\n}\n"},
		{"no evidence: kept",
			"@@ -2,3 +2,4 @@\n \tif  x {\n+   odd()\n \t\treturn\n \t}\n",
			"func f() {\n\tif x {\n   odd()\n\t\treturn\n\t}\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := ApplyWith(text, tc.diff, opt)
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v\nwant %q", got, err, tc.want)
			}
		})
	}
}
