package executor

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello\tworld\n", "hello\tworld\n"},
		{"csi color", "\x1b[31mred\x1b[0m", "red"},
		{"csi clear", "a\x1b[2J\x1b[Hb", "ab"},
		{"osc title bel", "a\x1b]0;pwned\x07b", "ab"},
		{"osc hyperlink st", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"two char", "a\x1bcb", "ab"},
		{"charset", "a\x1b(Bb", "ab"},
		{"c0", "a\x00b\x07c\x08d", "abcd"},
		{"del", "a\x7fb", "ab"},
		{"crlf", "a\r\nb", "a\nb"},
		{"lone cr", "progress\rdone", "progress\ndone"},
		{"c1 csi", "a\u009b31mb", "ab"},
		{"c1 other", "a\u0085b", "ab"},
		{"bidi override", "abc\u202edcba\u202c", "abcdcba"},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
		{"unicode kept", "café ünïcode 日本 🎉", "café ünïcode 日本 🎉"},
		{"escape at end", "abc\x1b", "abc"},
		{"unterminated osc", "abc\x1b]0;title", "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in); got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"\x1b[31mred", "a\x1b]0;t\x07", "\u009b1m", "\xff\xfe", "ok\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := Clean(s)
		if !utf8.ValidString(c) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		for _, r := range c {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || isBidiControl(r) {
				t.Fatalf("Clean(%q) keeps %U", s, r)
			}
		}
		if Clean(c) != c {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
	})
}

func TestTruncateAndBound(t *testing.T) {
	if s, cut := truncate("héllo", 2); s != "h" || !cut {
		t.Errorf("truncate = %q %v", s, cut)
	}
	if s, cut := truncate("abc", 5); s != "abc" || cut {
		t.Errorf("truncate short = %q %v", s, cut)
	}
	if got := bound("\x1b[1m"+strings.Repeat("a", 20), 10); got != strings.Repeat("a", 10)+"\n[truncated]" {
		t.Errorf("bound = %q", got)
	}
	lb := &limitedBuffer{max: 4}
	lb.Write([]byte("abcdef"))
	lb.Write([]byte("gh"))
	if lb.String() != "abcd" || lb.dropped != 4 {
		t.Errorf("limitedBuffer = %q, dropped %d", lb.String(), lb.dropped)
	}
}
