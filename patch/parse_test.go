package patch

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// fixture is one change in testdata/changes: old + diff.patch gives new.
type fixture struct {
	name, old, new, diff string
}

func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata", "changes", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var out []fixture
	for _, d := range dirs {
		read := func(n string) string {
			b, err := os.ReadFile(filepath.Join(d, n))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		out = append(out, fixture{filepath.Base(d), read("old"), read("new"), read("diff.patch")})
	}
	return out
}

func TestParseGitDiff(t *testing.T) {
	diff := "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n" +
		"@@ -3,4 +3,5 @@ func f() {\n a\n-b\n+B\n+C\n c\n d\n"
	p, err := Parse(diff)
	if err != nil {
		t.Fatal(err)
	}
	if p.OldName != "a/x.go" || p.NewName != "b/x.go" {
		t.Errorf("names = %q, %q", p.OldName, p.NewName)
	}
	want := Hunk{
		OldStart: 3, OldLines: 4, NewStart: 3, NewLines: 5, Section: "func f() {",
		Lines:  []Line{{Context, "a", false}, {Delete, "b", false}, {Insert, "B", false}, {Insert, "C", false}, {Context, "c", false}, {Context, "d", false}},
		Header: "@@ -3,4 +3,5 @@ func f() {", Pos: 5,
	}
	if len(p.Hunks) != 1 || !reflect.DeepEqual(p.Hunks[0], want) {
		t.Errorf("hunk = %+v\nwant   %+v", p.Hunks, want)
	}
}

func TestParseLenient(t *testing.T) {
	for _, tc := range []struct {
		name, diff string
		check      func(t *testing.T, p *Patch)
	}{
		{"no headers", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n", func(t *testing.T, p *Patch) {
			if p.OldName != "" || len(p.Hunks) != 1 || p.Hunks[0].NoNumbers || p.Hunks[0].Recounted {
				t.Errorf("got %+v", p)
			}
		}},
		{"prose around", "Here is the patch:\n\n```diff\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n```\nThat should do it.\n", func(t *testing.T, p *Patch) {
			if len(p.Hunks) != 1 || len(p.Hunks[0].Lines) != 3 || p.Hunks[0].Recounted {
				t.Errorf("got %+v", p.Hunks)
			}
		}},
		{"bare @@", "@@\n a\n-b\n+c\n d\n", func(t *testing.T, p *Patch) {
			h := p.Hunks[0]
			if !h.NoNumbers || h.OldLines != 3 || h.NewLines != 3 {
				t.Errorf("got %+v", h)
			}
		}},
		{"@@ with prose", "@@ in function f @@\n a\n-b\n+c\n", func(t *testing.T, p *Patch) {
			if !p.Hunks[0].NoNumbers {
				t.Errorf("got %+v", p.Hunks[0])
			}
		}},
		{"counts too small", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n d\n e\n-f\n", func(t *testing.T, p *Patch) {
			h := p.Hunks[0]
			if !h.Recounted || h.OldLines != 5 || h.NewLines != 4 || len(h.Lines) != 6 {
				t.Errorf("got %+v", h)
			}
		}},
		{"counts too large", "@@ -1,9 +1,9 @@\n a\n-b\n+c\n\nnot a hunk line\n", func(t *testing.T, p *Patch) {
			h := p.Hunks[0]
			if !h.Recounted || h.OldLines != 2 || h.NewLines != 2 {
				t.Errorf("got %+v", h)
			}
		}},
		{"missing counts mean 1", "@@ -3 +3 @@\n-b\n+c\n", func(t *testing.T, p *Patch) {
			h := p.Hunks[0]
			if h.Recounted || h.OldStart != 3 || h.OldLines != 1 || h.NewLines != 1 {
				t.Errorf("got %+v", h)
			}
		}},
		{"blank context line", "@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n", func(t *testing.T, p *Patch) {
			h := p.Hunks[0]
			if h.Recounted || len(h.Lines) != 4 || h.Lines[1] != (Line{Op: Context}) {
				t.Errorf("got %+v", h)
			}
		}},
		{"no newline marker", "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n", func(t *testing.T, p *Patch) {
			h := p.Hunks[0]
			if h.Recounted || !h.Lines[0].NoEOL || h.Lines[1].NoEOL {
				t.Errorf("got %+v", h)
			}
		}},
		{"crlf diff", "--- a/f\r\n+++ b/f\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n", func(t *testing.T, p *Patch) {
			if p.NewName != "b/f" || p.Hunks[0].Lines[2].Text != "c" {
				t.Errorf("got %+v", p)
			}
		}},
		{"format-patch signature", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n-- \n2.43.0\n\n", func(t *testing.T, p *Patch) {
			h := p.Hunks[0]
			if h.Recounted || len(h.Lines) != 3 {
				t.Errorf("got %+v", h)
			}
		}},
		{"counted hunk may hold header-like lines", "@@ -1,2 +1,2 @@\n--- a\n+++ b\n c\n", func(t *testing.T, p *Patch) {
			h := p.Hunks[0]
			if h.Recounted || len(h.Lines) != 3 || h.Lines[0] != (Line{Delete, "-- a", false}) {
				t.Errorf("got %+v", h)
			}
		}},
		{"headers repeated for the same file", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -10,2 +10,2 @@\n x\n-y\n+z\n", func(t *testing.T, p *Patch) {
			if len(p.Hunks) != 2 || p.OldName != "a/f" {
				t.Errorf("got %+v", p)
			}
		}},
		{"context line without its space", "@@ -1,3 +1,3 @@\nfoo bar\n-b\n+c\n d\n", func(t *testing.T, p *Patch) {
			h := p.Hunks[0]
			if !h.Recounted || len(h.Lines) != 4 || h.Lines[0] != (Line{Context, "foo bar", false}) || h.OldLines != 3 {
				t.Errorf("got %+v", h)
			}
		}},
		{"prose after a bare hunk is not context", "@@\n a\n-b\n+c\nThat is all.\nThanks\n", func(t *testing.T, p *Patch) {
			if h := p.Hunks[0]; len(h.Lines) != 3 {
				t.Errorf("got %+v", h)
			}
		}},
		{"fenced body without @@", "Change it so:\n```diff\n a\n-b\n+c\n```\n", func(t *testing.T, p *Patch) {
			h := p.Hunks[0]
			if !h.NoNumbers || h.Header != "" || h.Pos != 3 || len(h.Lines) != 3 {
				t.Errorf("got %+v", h)
			}
		}},
		{"headers and body without @@", "--- a/f\n+++ b/f\n a\n-b\n+c\n", func(t *testing.T, p *Patch) {
			if h := p.Hunks[0]; !h.NoNumbers || len(h.Lines) != 3 || p.NewName != "b/f" {
				t.Errorf("got %+v", p)
			}
		}},
		{"two hunks", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n@@ -10,2 +10,2 @@\n x\n-y\n+z\n", func(t *testing.T, p *Patch) {
			if len(p.Hunks) != 2 || p.Hunks[1].OldStart != 10 || p.Hunks[1].Pos != 5 {
				t.Errorf("got %+v", p.Hunks)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.diff)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p)
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, diff string
		kind       error
		line       int
	}{
		{"empty", "", ErrNoHunks, 0},
		{"prose only", "I changed the file.\n", ErrNoHunks, 0},
		{"headers only", "--- a/f\n+++ b/f\n", ErrNoHunks, 0},
		{"a bullet list is not a diff", "Plan:\n- first\n- second\n+ extra\n", ErrNoHunks, 0},
		{"a fence of another language is not a diff", "```go\n-x\n+y\n```\n", ErrNoHunks, 0},
		{"two files", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n", ErrMultipleFiles, 6},
		{"two git files", "diff --git a/f b/f\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/g b/g\n", ErrMultipleFiles, 5},
		{"headers after a headerless hunk", "@@ -1 +1 @@\n-a\n+b\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n", ErrMultipleFiles, 4},
		{"git line after a hunk", "@@ -1 +1 @@\n-a\n+b\ndiff --git a/g b/g\n", ErrMultipleFiles, 4},
		{"combined diff", "@@@ -1 -1 +1 @@@\n- a\n", ErrMalformed, 1},
		{"empty hunk", "@@ -1 +1 @@\nnot a line\n", ErrMalformed, 1},
		{"huge number", "@@ -99999999999999999999 +1 @@\n-a\n+b\n", ErrMalformed, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.diff)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("Parse = %+v, %v; want %v", p, err, tc.kind)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != tc.line {
				t.Errorf("error %v: want a *ParseError at line %d", err, tc.line)
			}
		})
	}
}

func TestParseStringRoundTrip(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		p, err := Parse(fx.diff)
		if err != nil {
			t.Fatalf("%s: %v", fx.name, err)
		}
		q, err := Parse(p.String())
		if err != nil {
			t.Fatalf("%s: reparse: %v", fx.name, err)
		}
		if !sameHunks(p, q) || p.OldName != q.OldName || p.NewName != q.NewName {
			t.Errorf("%s: round trip changed the patch:\n%s", fx.name, p.String())
		}
	}
}

// sameHunks compares what the hunks say, not where they were written.
func sameHunks(p, q *Patch) bool {
	if len(p.Hunks) != len(q.Hunks) {
		return false
	}
	for i := range p.Hunks {
		a, b := p.Hunks[i], q.Hunks[i]
		if a.OldStart != b.OldStart || a.OldLines != b.OldLines || a.NewStart != b.NewStart || a.NewLines != b.NewLines ||
			a.Section != b.Section || !reflect.DeepEqual(a.Lines, b.Lines) {
			return false
		}
	}
	return true
}

// TestParseAgreesWithGitdiff checks the parser against go-gitdiff on
// well-formed diffs: same positions, counts and lines.
func TestParseAgreesWithGitdiff(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		agreeWithGitdiff(t, fx.name, fx.diff)
	}
}

func agreeWithGitdiff(t testing.TB, name, diff string) {
	t.Helper()
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil || len(files) != 1 {
		t.Fatalf("%s: gitdiff: %d files, %v", name, len(files), err)
	}
	p, err := Parse(diff)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	frags := files[0].TextFragments
	if len(frags) != len(p.Hunks) {
		t.Fatalf("%s: %d hunks, gitdiff %d", name, len(p.Hunks), len(frags))
	}
	for i, f := range frags {
		h := p.Hunks[i]
		if int64(h.OldStart) != f.OldPosition || int64(h.OldLines) != f.OldLines || int64(h.NewStart) != f.NewPosition || int64(h.NewLines) != f.NewLines || h.Section != f.Comment {
			t.Errorf("%s hunk %d: %+v, gitdiff %+v", name, i+1, h, f)
		}
		if len(f.Lines) != len(h.Lines) {
			t.Fatalf("%s hunk %d: %d lines, gitdiff %d", name, i+1, len(h.Lines), len(f.Lines))
		}
		for k, l := range f.Lines {
			op := map[gitdiff.LineOp]Op{gitdiff.OpContext: Context, gitdiff.OpDelete: Delete, gitdiff.OpAdd: Insert}[l.Op]
			if h.Lines[k].Op != op || h.Lines[k].raw() != l.Line {
				t.Errorf("%s hunk %d line %d: %+v, gitdiff %+v", name, i+1, k+1, h.Lines[k], l)
			}
		}
	}
}
