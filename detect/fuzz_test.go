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
		"> ```\n> /recall\n> ```\n/a", "1. ```\n   /recall x\n/a", "a `b\n/recall x`\n\n/a `", "<!--\n/recall\n-->/a <!-- /b",
		"- > ~~~\n  > /a\n  >~~~", "/a x `y\n> /b\n`", "/a\n> ```\n> /b\n> ```", "/a + \"\"\"\n```\n\"\"\"\n/b\n```",
		"/do /a\n_act\u00adually_ /f", "/search web.dev", "```\n    ```\n/a",
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
		"/do /search x\nUse `a\nb c d e\n/f` wait\nok\n",
		"/do /calc 1\na b c\n<!-- d e\nactually -->\n",
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
// lines of its line actions whose verb resolves (outside code and
// comments), from their line start through their span's end and line
// ending.
func hideLineActions(msg []byte, as []Action) string {
	var b bytes.Buffer
	from := 0
	for _, a := range as {
		if a.Inline || a.Verb == "" || a.Reason == InsideCode || a.Reason == InsideComment {
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

// containerMessage builds a message from choices: a sequence of pieces,
// each either noise (prose, actions, balanced code, quotes, retractions)
// or a hidden action — one that CommonMark shows as code or hides in a
// comment, whatever came before it — marked HIDDEN<k>. It returns the
// message and the markers.
func containerMessage(choices []byte) (string, []string) {
	noise := []string{
		"Some prose here.\n",
		"/recall notes\n",
		"I could /search x here.\n",
		"Actually, scratch that.\n",
		"Press ` to open.\n\n",
		"```\ncode /f\n```\n",
		"/do /calc 1+1\n",
		"\n",
		"> quoted prose\n\n",
		"- item with `code`\n",
		"/recall x ```\nbody\n```\n",
		"/recall + \"\"\"\nbody `x` <b>\n\"\"\"\n",
		"<!-- note -->\n",
		"Dirs:\n/tmp holds temp files.\n",
		"/post @bluesky\n> hello\n",
		"_wait_ **no**, nope\n",
		"1. first\n2. second /f\n",
		"   indented prose\n",
	}
	var b strings.Builder
	var ids []string
	for i := 0; i < len(choices) && i < 24; i++ {
		c := choices[i]
		if c&1 == 0 {
			b.WriteString(noise[int(c>>1)%len(noise)])
			continue
		}
		id := fmt.Sprintf("HIDDEN%d", len(ids))
		ids = append(ids, id)
		fence := [...]string{"```", "~~~", "````", "~~~~"}[c>>5&3]
		act := [...]string{"/send @user ", "/do /send @user ", "/recall ", "/do recall "}[c>>3&3] + id
		kind := 0
		if i+1 < len(choices) {
			i++
			kind = int(choices[i])
		}
		switch kind % 16 {
		case 0:
			b.WriteString(fence + "\n" + act + "\n" + fence + "\n")
		case 1:
			b.WriteString("> " + fence + "\n> " + act + "\n> " + fence + "\n")
		case 2:
			b.WriteString("1. " + fence + "text\n   " + act + "\n   " + fence + "\n")
		case 3:
			b.WriteString("- " + fence + "\n  " + act + "\n  " + fence + "\n")
		case 4:
			b.WriteString("Use `foo\n" + act + "`\n")
		case 5:
			b.WriteString("<!-- " + act + " -->\n")
		case 6:
			b.WriteString("<!--\n" + act + "\n-->\n")
		case 7:
			b.WriteString("> Use ``a\n> " + act + " ``\n")
		case 8:
			b.WriteString("- > " + fence + "\n  > " + act + "\n  > " + fence + "\n")
		case 9:
			b.WriteString("> > " + fence + "\n> > " + act + "\n> > " + fence + "\n")
		case 10:
			b.WriteString("Text `a\nb\n" + act + "` c\n")
		case 11:
			b.WriteString("> Use `foo\n" + act + "`\n")
		case 12:
			b.WriteString("<!-- x\n\n" + act + "\n\n-->\n")
		case 13:
			b.WriteString("1) " + fence + "\n    " + act + "\n   " + fence + "\n")
		case 14:
			b.WriteString("> - " + fence + "\n>   " + act + "\n>   " + fence + "\n")
		case 15:
			b.WriteString("* " + fence + "\n\n  " + act + "\n\n  " + fence + "\n")
		}
	}
	msg := b.String()
	if len(choices) > 0 && choices[0]&0x80 != 0 {
		msg = strings.ReplaceAll(msg, "\n", "\r\n")
	}
	return msg, ids
}

// FuzzContainers: messages built from CommonMark containers (block quotes,
// list items), fences, code spans across lines, HTML comments, actions and
// retractions. An action that CommonMark shows as code or hides in a
// comment is never executable, and is reported (with reason inside code
// or inside an HTML comment) unless it is another action's content; the
// report does not depend on splits or on skipping quiet lines; the filter
// shows the message without its line actions.
func FuzzContainers(f *testing.F) {
	for _, s := range []string{
		"\x01\x00", "\x01\x01", "\x01\x02", "\x01\x03", "\x01\x04", "\x01\x05", "\x01\x06", "\x01\x07",
		"\x01\x08", "\x01\x09", "\x01\x0a", "\x01\x0b", "\x01\x0c", "\x01\x0d", "\x01\x0e", "\x01\x0f",
		"\x02\x01\x01", "\x1c\x09\x01", "\x08\x29\x04\x06", "\x1a\x01\x03\x00", "\x81\x04\x02\x0b\x07\x1d",
		"\x16\x33\x05\x02\x00\x09\x04", "\x20\x01\x01", "\x1e\x39\x0e",
	} {
		f.Add([]byte(s), int64(5))
	}
	v, opt := testVocab(), DefaultOptions()
	f.Fuzz(func(t *testing.T, choices []byte, seed int64) {
		text, ids := containerMessage(choices)
		msg := []byte(text)
		whole := clone(Scan(v, opt, msg))
		for _, id := range ids {
			reported := false
			for _, a := range whole {
				in := strings.Contains(a.Args, id) || strings.Contains(a.Token, id) || strings.Contains(a.Chain, id)
				if in && a.Executable {
					t.Fatalf("%s is code or a comment but executable in %q: %v", id, msg, briefs(whole))
				}
				reported = reported || in && (a.Reason == InsideCode || a.Reason == InsideComment) || strings.Contains(a.Content, id)
			}
			if !reported {
				t.Fatalf("%s not reported in %q: %v", id, msg, briefs(whole))
			}
		}
		slow := NewScanner(v, opt)
		slow.noSkip = true
		if got := slow.Scan(msg); !same(got, whole) {
			t.Fatalf("skipping quiet lines changed the report for %q:\n got %v\nwant %v", msg, briefs(whole), briefs(got))
		}
		rng := rand.New(rand.NewSource(seed))
		for k := 0; k < 3; k++ {
			if cuts := randomCuts(rng, len(msg)); !same(scanChunks(v, opt, msg, cuts), whole) {
				t.Fatalf("cuts %v of %q:\n got %v\nwant %v", cuts, msg, briefs(scanChunks(v, opt, msg, cuts)), briefs(whole))
			}
		}
		one := make([]int, 0, len(msg))
		for i := 1; i < len(msg); i++ {
			one = append(one, i)
		}
		if got := scanChunks(v, opt, msg, one); !same(got, whole) {
			t.Fatalf("1-byte chunks of %q:\n got %v\nwant %v", msg, briefs(got), briefs(whole))
		}
		want := hideLineActions(msg, whole)
		for _, cuts := range [][]int{nil, one, randomCuts(rand.New(rand.NewSource(seed)), len(msg))} {
			if got, _ := filterChunks(string(msg), cuts); got != want {
				t.Fatalf("filter output of %q in pieces %v is %q, want %q", msg, cuts, got, want)
			}
		}
	})
}
