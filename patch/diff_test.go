package patch

import (
	"strings"
	"testing"
)

func TestDiffGolden(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	for _, tc := range []struct {
		context int
		want    string
	}{
		{3, "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -8,3 +8,4 @@\n h\n i\n j\n+k\n"},
		{1, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -10 +10,2 @@\n j\n+k\n"},
		{0, "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n@@ -10,0 +11 @@\n+k\n"},
		{4, "--- a/f\n+++ b/f\n@@ -1,10 +1,11 @@\n a\n-b\n+B\n c\n d\n e\n f\n g\n h\n i\n j\n+k\n"},
	} {
		p := Diff(old, new, tc.context)
		p.OldName, p.NewName = "a/f", "b/f"
		if got := p.String(); got != tc.want {
			t.Errorf("-U%d:\n%s\nwant\n%s", tc.context, got, tc.want)
		}
	}
}

func TestDiffRoundTrip(t *testing.T) {
	cases := [][2]string{
		{"", ""},
		{"same\n", "same\n"},
		{"", "a\nb\n"},
		{"a\nb\n", ""},
		{"a\nb", "a\nb\n"},
		{"a\nb\n", "a\nb"},
		{"a\nb", "a\nc"},
		{"x\n", "y"},
		{"one\ntwo\nthree\n", "zero\none\nthree\nfour\n"},
		{"\n\n\n", "\n\n"},
		{"é\n€\n𝄞\n", "é\n𝄞\n€\n"},
		{numbered(100), strings.Replace(numbered(100), "line 50\n", "", 1)},
	}
	for _, fx := range loadFixtures(t) {
		cases = append(cases, [2]string{fx.old, fx.new})
	}
	for _, c := range cases {
		for _, n := range []int{0, 1, 3} {
			text := Diff(c[0], c[1], n).String()
			if c[0] == c[1] {
				if text != "" {
					t.Errorf("equal texts gave %q", text)
				}
				continue
			}
			got, _, err := ApplyWith(c[0], text, Options{Strict: true})
			if err != nil || got != c[1] {
				t.Errorf("-U%d %q -> %q: diff\n%s\napplied: %q, %v", n, c[0], c[1], text, got, err)
			}
		}
	}
}
