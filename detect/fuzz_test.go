package detect

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
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
		slow := NewScanner(v, opt)
		slow.noSkip = true
		if got := slow.Scan(msg); !same(got, whole) {
			t.Fatalf("skipping quiet lines changed the report for %q:\n got %v\nwant %v", msg, briefs(whole), briefs(got))
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
		if want := hideLineActions(msg, whole); a.String() != want {
			t.Fatalf("filter output of %q is %q, want %q (the message without its line actions)", msg, a.String(), want)
		}
	})
}

// FuzzEarly: with early execution on (a 3-word window), the callbacks come
// in the same order for any split, only for /do actions, and an action
// withdrawn is never executable in the end.
func FuzzEarly(f *testing.F) {
	for _, s := range []string{
		"/do /search x\none two three four\nactually no\n",
		"/do /calc 1\na b c d\n/cancel\n",
		"/do /search x\n```\na b c d\n```\n/do /calc 2 ?\nwait\n",
	} {
		f.Add([]byte(s), int64(1))
	}
	f.Fuzz(func(t *testing.T, msg []byte, seed int64) {
		run := func(cuts []int) ([]string, []Action) {
			var events []string
			opt := DefaultOptions()
			opt.EarlyExecution, opt.EarlyWindow = true, 3
			opt.ReadOnly = func(a *Action) bool { return a.Verb != "send" }
			opt.OnEarly = func(a Action) {
				if !a.Do {
					t.Errorf("early action without /do: %s", brief(a))
				}
				events = append(events, fmt.Sprintf("run %d", a.Span.Start))
			}
			opt.OnWithdraw = func(a Action) { events = append(events, fmt.Sprintf("withdraw %d", a.Span.Start)) }
			return events, scanChunks(testVocab(), opt, msg, cuts)
		}
		whole, as := run(nil)
		as = clone(as)
		got, _ := run(randomCuts(rand.New(rand.NewSource(seed)), len(msg)))
		if fmt.Sprint(got) != fmt.Sprint(whole) {
			t.Fatalf("callbacks depend on splits for %q: %v vs %v", msg, got, whole)
		}
		withdrawn := map[string]bool{}
		for _, e := range whole {
			if strings.HasPrefix(e, "withdraw ") {
				withdrawn[strings.TrimPrefix(e, "withdraw ")] = true
			}
		}
		for _, a := range as {
			if withdrawn[fmt.Sprint(a.Span.Start)] && a.Executable {
				t.Fatalf("withdrawn action executable: %s in %q", brief(a), msg)
			}
			if a.Early && !a.Executable && !withdrawn[fmt.Sprint(a.Span.Start)] {
				t.Fatalf("early action not executable but never withdrawn: %s in %q", brief(a), msg)
			}
		}
	})
}

// hideLineActions is what the display filter should show: msg without the
// lines of its line actions, from their line start through their span's end
// and line ending.
func hideLineActions(msg []byte, as []Action) string {
	var b bytes.Buffer
	from := 0
	for _, a := range as {
		if a.Inline {
			continue
		}
		start := bytes.LastIndexByte(msg[:a.Span.Start], '\n') + 1
		end := a.Span.End
		if k := bytes.IndexByte(msg[end:], '\n'); k >= 0 {
			end += k + 1
		} else {
			end = len(msg)
		}
		b.Write(msg[from:start])
		from = end
	}
	b.Write(msg[from:])
	return b.String()
}
