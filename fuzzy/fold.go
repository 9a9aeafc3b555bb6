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

// asciiFold is the only folding a strict name allows (DIALECT.md §4): A–Z
// lower-cased and runs of ASCII whitespace, - and _ read as one space,
// trimmed. Every other byte is kept as it is, so a letter that Unicode
// case folding or normalisation would take to ASCII (U+212A KELVIN SIGN,
// U+0130, U+017F, fullwidth forms) keeps the token apart from the name.
func asciiFold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' || c == '_' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			space = b.Len() > 0
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// lookalikeFold is what a token reads as once compatibility forms, case
// and marks are set aside: NFKD (fullwidth letters, ligatures, ſ, K,
// mathematical letters; İ as I and a dot), combining marks dropped, each
// rune lower-cased through its upper case (ı → I → i), then fold. It only
// serves to recognise a strict name spelled with letters not its own; it
// never makes a match.
func lookalikeFold(s string) string {
	s = norm.NFKD.String(strings.ToValidUTF8(s, "\uFFFD"))
	var b strings.Builder
	b.Grow(len(s))
	for _, c := range s {
		if unicode.Is(unicode.Mn, c) {
			continue
		}
		b.WriteRune(unicode.ToLower(unicode.ToUpper(c)))
	}
	return fold(b.String())
}
