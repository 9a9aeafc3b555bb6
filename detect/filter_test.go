package detect

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"
)

func filterChunks(msg string, cuts []int) (string, []Action) {
	var out bytes.Buffer
	f := NewFilter(&out, testVocab(), DefaultOptions())
	prev := 0
	for _, c := range cuts {
		f.Write([]byte(msg[prev:c]))
		prev = c
	}
	f.Write([]byte(msg[prev:]))
	f.Close()
	return out.String(), f.Scanner().Actions()
}

func TestFilter(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"trailing action hidden", "Let me check.\n/recall x\n", "Let me check.\n"},
		{"no final newline", "Let me check.\n/recall x", "Let me check.\n"},
		{"inline stays", "I could /recall x here.\n", "I could /recall x here.\n"},
		{"path shown", "/usr/bin/env is a path\n/recall x\nbye", "/usr/bin/env is a path\nbye"},
		{"bullet action hidden", "Plan:\n- /search y\n- buy milk\n", "Plan:\n- buy milk\n"},
		{"content hidden", "Saving.\n/recall + \"\"\"\nsecret\nlines\n\"\"\"\nDone.\n", "Saving.\nDone.\n"},
		{"fenced content hidden", "Patch:\n/recall patch notes\n```diff\n-a\n+b\n```\nok\n", "Patch:\nok\n"},
		{"quote content hidden", "/post @bluesky\n> hello\n> world\nafter\n> quoted prose\n", "after\n> quoted prose\n"},
		{"code shown", "```\n/recall x\n```\n", "```\n/recall x\n```\n"},
		{"code after blank line shown", "/recall x\n\n```\ncode\n```\n", "\n```\ncode\n```\n"},
		{"inline content shown", "See /recall x:\n```\ncode\n```\n", "See /recall x:\n```\ncode\n```\n"},
		{"numbers and fractions", "1/2 cup\n10. item\n", "1/2 cup\n10. item\n"},
		{"blank lines", "\n\n/recall x\n\n", "\n\n\n"},
		{"unknown verb is text", "/frob it\nok\n", "/frob it\nok\n"},
	}
	rng := rand.New(rand.NewSource(3))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, whole := filterChunks(c.in, nil)
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			if want := scanString(c.in); !same(clone(whole), want) {
				t.Errorf("filter's scanner disagrees: %v vs %v", briefs(whole), briefs(want))
			}
			for i := 0; i <= len(c.in); i++ {
				if got, _ := filterChunks(c.in, []int{i}); got != c.want {
					t.Fatalf("split at %d: got %q, want %q", i, got, c.want)
				}
			}
			for k := 0; k < 10; k++ {
				cuts := randomCuts(rng, len(c.in))
				if got, _ := filterChunks(c.in, cuts); got != c.want {
					t.Fatalf("cuts %v: got %q, want %q", cuts, got, c.want)
				}
			}
		})
	}
}

// TestFilterHoldsOnlySlashLines checks what reaches the person before the
// message ends: everything but a line that may be an action.
func TestFilterHoldsOnlySlashLines(t *testing.T) {
	var out bytes.Buffer
	f := NewFilter(&out, testVocab(), DefaultOptions())
	f.Write([]byte("Hello wor"))
	if out.String() != "Hello wor" {
		t.Fatalf("prose held back: %q", out.String())
	}
	f.Write([]byte("ld.\n  /rec"))
	if out.String() != "Hello world.\n" {
		t.Fatalf("after a sigil line start: %q", out.String())
	}
	f.Write([]byte("all x\nNext"))
	if out.String() != "Hello world.\nNext" {
		t.Fatalf("action line not dropped at its end: %q", out.String())
	}
	f.Close()
}

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) { return 0, errors.New("broken pipe") }

func TestFilterWriteError(t *testing.T) {
	f := NewFilter(failWriter{}, testVocab(), DefaultOptions())
	if _, err := f.Write([]byte("hello\n")); err == nil {
		t.Fatal("no error from a failing writer")
	}
	if err := f.Close(); err == nil {
		t.Error("Close lost the writer's error")
	}
}

// A sigil line is held only until it is known whether it is an action.
func TestFilterReleasesSigilLinesEarly(t *testing.T) {
	var out bytes.Buffer
	f := NewFilter(&out, testVocab(), DefaultOptions())
	step := func(in, want string) {
		t.Helper()
		f.Write([]byte(in))
		if out.String() != want {
			t.Fatalf("after %q: shown %q, want %q", in, out.String(), want)
		}
	}
	step("- /us", "")
	step("r", "")
	step("/bin is a path", "- /usr/bin is a path")
	step("\n/2", "- /usr/bin is a path\n/2")
	step(" halves\n/recall", "- /usr/bin is a path\n/2 halves\n")
	step(" x and more", "- /usr/bin is a path\n/2 halves\n")
	step("\n/index.", "- /usr/bin is a path\n/2 halves\n")
	step("h", "- /usr/bin is a path\n/2 halves\n/index.h")
	step("tml\n", "- /usr/bin is a path\n/2 halves\n/index.html\n")
	f.Close()
	if as := f.Scanner().Actions(); len(as) != 1 || as[0].Token != "recall" {
		t.Errorf("actions %v", briefs(as))
	}
}
