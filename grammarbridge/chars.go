package grammarbridge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// isSep reports whether r is a separator: JavaScript whitespace (\s) or
// Unicode punctuation (\p{P}). Symbols (\p{S}) are not separators.
func isSep(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSep[r]
	}
	switch r {
	case 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	if r >= 0x2000 && r <= 0x200a {
		return true
	}
	return unicode.IsPunct(r)
}

// asciiSep is isSep for ASCII, as a table (of 256 entries, so that
// indexing it with a byte needs no bounds check; the others are false).
var asciiSep = func() (t [256]bool) {
	for _, c := range " \t\n\v\f\r" {
		t[c] = true
	}
	for c := rune(0); c < utf8.RuneSelf; c++ {
		if unicode.IsPunct(c) {
			t[c] = true
		}
	}
	return t
}()

// wordScripts are the scripts whose letters need a separator between two
// words (TypeAgent's "word-boundary scripts").
var wordScripts = []*unicode.RangeTable{
	unicode.Latin, unicode.Cyrillic, unicode.Greek, unicode.Armenian, unicode.Georgian,
	unicode.Hangul, unicode.Arabic, unicode.Hebrew, unicode.Devanagari, unicode.Bengali,
	unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Gujarati,
	unicode.Gurmukhi, unicode.Oriya, unicode.Sinhala, unicode.Ethiopic, unicode.Mongolian,
}

// isWordLetter reports whether r is a letter (or mark) of a word-boundary
// script.
func isWordLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	if !unicode.IsLetter(r) && !unicode.IsMark(r) {
		return false
	}
	return unicode.IsOneOf(wordScripts, r)
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// needsSep reports whether, in auto spacing, a separator is required
// between a and b.
func needsSep(a, b rune) bool {
	return isWordLetter(a) && isWordLetter(b) || isDigit(a) && isDigit(b)
}

// foldEq reports whether a and b are equal under Unicode simple case
// folding.
func foldEq(a, b rune) bool {
	if a == b {
		return true
	}
	if a < utf8.RuneSelf && b < utf8.RuneSelf {
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		return a == b
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// trimSeps returns the bounds of s[start:end] without leading and trailing
// separators.
func trimSeps(s string, start, end int) (int, int) {
	for start < end {
		if c := s[start]; c < utf8.RuneSelf {
			if !asciiSep[c] {
				break
			}
			start++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[start:end])
		if !isSep(r) {
			break
		}
		start += n
	}
	for end > start {
		if c := s[end-1]; c < utf8.RuneSelf {
			if !asciiSep[c] {
				break
			}
			end--
			continue
		}
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if !isSep(r) {
			break
		}
		end -= n
	}
	return start, end
}

// onlySeps reports whether s contains nothing but separators.
func onlySeps(s string) bool {
	for _, r := range s {
		if !isSep(r) {
			return false
		}
	}
	return true
}

// utf16Len is the length of s in UTF-16 code units, JavaScript's
// String.length.
func utf16Len(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i + utf16LenRunes(s[i:])
		}
	}
	return len(s) // ASCII
}

func utf16LenRunes(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}
