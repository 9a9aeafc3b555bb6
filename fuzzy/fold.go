package fuzzy

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// fold is the key of tier 2: valid UTF-8, NFC, lower case, with runs of
// whitespace, - and _ as one space, trimmed.
func fold(s string) string {
	if isASCII(s) {
		clean := true
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') || c < ' ' || c == '\t' {
				clean = false
				break
			}
		}
		if clean {
			return s
		}
	} else {
		s = norm.NFC.String(strings.ToValidUTF8(s, "\uFFFD"))
	}
	s = strings.ToLower(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, c := range s {
		if c == '-' || c == '_' || unicode.IsSpace(c) {
			space = b.Len() > 0
			continue
		}
		if unicode.IsControl(c) {
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(c)
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isASCIILetters(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// letterCount counts the runes of a folded key, spaces excluded.
func letterCount(s string) int {
	n := 0
	for _, c := range s {
		if c != ' ' {
			n++
		}
	}
	return n
}

func toRunes(buf []rune, s string) []rune {
	for _, c := range s {
		buf = append(buf, c)
	}
	return buf
}
