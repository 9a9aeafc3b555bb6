package fuzzy

import (
	"strings"
	"unicode"
)

// mixedScript returns the byte offset of the first Cyrillic or Greek letter
// in s if s also holds Latin letters, else -1.
func mixedScript(s string) int {
	latin, other := false, -1
	for i, r := range s {
		switch {
		case r < 0x80:
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				latin = true
			}
		case unicode.Is(unicode.Latin, r):
			latin = true
		case unicode.Is(unicode.Cyrillic, r) || unicode.Is(unicode.Greek, r):
			if other < 0 {
				other = i
			}
		}
	}
	if latin && other >= 0 {
		return other
	}
	return -1
}

// lookalike maps Cyrillic and Greek letters that look like Latin ones to
// those Latin letters (lower case), for spotting a verb spelled entirely in
// look-alikes.
var lookalike = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o',
	'р': 'p', 'с': 'c', 'т': 't', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ї': 'i',
	'ј': 'j', 'ԁ': 'd', 'һ': 'h', 'ӏ': 'l', 'ԛ': 'q', 'ԝ': 'w', 'ɡ': 'g',
	'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o',
	'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'γ': 'y', 'ω': 'w',
}

// skeleton rewrites every look-alike letter of s (lower case) as its Latin
// twin; ok is false if s has a letter that is neither Latin nor a
// look-alike.
func skeleton(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		if l, ok := lookalike[r]; ok {
			b.WriteRune(l)
			continue
		}
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		return "", false
	}
	return b.String(), true
}
