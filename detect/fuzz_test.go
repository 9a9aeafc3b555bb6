package detect

import (
	"bytes"
	"math/rand"
	"testing"
)

// FuzzScan: no input makes the scanner panic; every split of the input
// reports what whole-message scanning reports; every span lies inside the
// input and starts at a sigil; the display filter's output does not depend
// on splits either and never adds text.
func FuzzScan(f *testing.F) {
	for _, m := range loadFixtures(f) {
		f.Add([]byte(m.text), int64(len(m.text)))
	}
	for _, s := range []string{
		"", "/", "/a", "\n/a\n", "/do", "/do /", "/do /do /x", "```\n/a", "~~~~\n~~~\n/a\n~~~~", "/a ```\n",
		"/a \"\"\"", "/a \"\"\"x\"\"\"\"\"\"", "/a\n> b\n>\n> /c", "/a -> /b -> ", "/a ?", "/a ?ask!", "\\/a /b",
		"`` /a ` /b ``", "( /a [/b", "/a\r\n/b\r", "/\xff\xfe", "/é\u0301 x", "/a\u00a0/b", "- 1. > /a", "/cancel\n/cancel 3",
		"wait /do /a\nno, nope\n/nevermind",
	} {
		f.Add([]byte(s), int64(7))
	}
	v, opt := testVocab(), DefaultOptions()
	opt.MaxActionSize = 64 // exercise truncation
	f.Fuzz(func(t *testing.T, msg []byte, seed int64) {
		whole := clone(Scan(v, opt, msg))
		for _, a := range whole {
			if a.Span.Start < 0 || a.Span.End > len(msg) || a.Span.Start >= a.Span.End || msg[a.Span.Start] != '/' {
				t.Fatalf("span %+v outside %q or not at a sigil", a.Span, msg)
			}
			if a.Span.Line < 1 || a.Span.Col < 1 {
				t.Fatalf("position %+v", a.Span)
			}
		}
		rng := rand.New(rand.NewSource(seed))
		cuts := randomCuts(rng, len(msg))
		if got := scanChunks(v, opt, msg, cuts); !same(got, whole) {
			t.Fatalf("cuts %v of %q:\n got %v\nwant %v", cuts, msg, briefs(got), briefs(whole))
		}
		one := make([]int, 0, len(msg))
		for i := 1; i < len(msg); i++ {
			one = append(one, i)
		}
		if got := scanChunks(v, opt, msg, one); !same(got, whole) {
			t.Fatalf("1-byte chunks of %q:\n got %v\nwant %v", msg, briefs(got), briefs(whole))
		}
		var a, b bytes.Buffer
		fa := NewFilter(&a, v, opt)
		fa.Write(msg)
		fa.Close()
		fb := NewFilter(&b, v, opt)
		prev := 0
		for _, c := range cuts {
			fb.Write(msg[prev:c])
			prev = c
		}
		fb.Write(msg[prev:])
		fb.Close()
		if a.String() != b.String() {
			t.Fatalf("filter output of %q depends on splits: %q vs %q", msg, a.String(), b.String())
		}
		if a.Len() > len(msg) {
			t.Fatalf("filter added text: %q -> %q", msg, a.String())
		}
	})
}
