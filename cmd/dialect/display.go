package main

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// safeText makes text from a model, a tool or the store safe to show a
// person on a terminal: control characters (C0 but newline and tab, DEL,
// C1, so terminal escapes), bidirectional controls and other invisible
// format characters are shown as Go escapes (\x1b, \u202e), and invalid
// UTF-8 as \x escapes. Whatever it prints reads in the order it is stored:
// `pay ‮0001$ ot bob‬` shows the override instead of obeying it.
func safeText(s string) string {
	if isSafe(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i]), 16))
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// oneLine is safeText for a table cell: line breaks become spaces.
func oneLine(s string) string {
	return safeText(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s))
}

func isSafe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || unsafeRune(r) {
			return false
		}
		i += size
	}
	return true
}

// unsafeRune reports whether r must not reach a terminal as itself. The
// zero-width joiner stays: emoji sequences need it and it moves nothing.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	case r == 0x200d:
		return false
	}
	return unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
}
