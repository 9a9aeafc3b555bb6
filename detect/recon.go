package detect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// unit kinds of a compiled phrase.
const (
	uRune  = iota // one rune, compared folded (fold)
	uSpace        // one or more whitespace characters, no line break
	uApos         // an optional apostrophe or a look-alike (isApostrophe)
)

// What a phrase reads through. Emphasis markers (*, _, ~), format
// characters (soft hyphen, zero-width space and joiners, bidi marks) and
// variation selectors are transparent: they neither hide a phrase
// ("_actually_", "act\u00adually") nor make one ("*wait*ress" is not
// "wait"). A no-break or other Unicode space is a space, an apostrophe
// look-alike an apostrophe, and fullwidth letters are their ASCII
// letters.

type unit struct {
	kind int
	r    rune
}

type phrase struct {
	text  string // as configured, for Action.Phrase
	units []unit
	word0 bool // starts with a letter or digit: needs a word boundary before
	wordZ bool // ends with a letter or digit: needs a word boundary after
}

// phraseMatcher finds the first reconsideration phrase in a piece of prose.
type phraseMatcher struct {
	phrases []phrase
	first   [256]bool // ASCII bytes (both cases) that can start a phrase
	nonASCI bool      // some phrase starts with a non-ASCII rune
}

func newPhraseMatcher(list []string) *phraseMatcher {
	m := &phraseMatcher{}
	for _, text := range list {
		p := phrase{text: text}
		lower := strings.ToLower(strings.TrimSpace(text))
		for _, r := range lower {
			switch {
			case isSpaceRune(r):
				if n := len(p.units); n == 0 || p.units[n-1].kind != uSpace {
					p.units = append(p.units, unit{kind: uSpace})
				}
			case isApostrophe(r):
				p.units = append(p.units, unit{kind: uApos})
			case transparent(r):
			default:
				p.units = append(p.units, unit{kind: uRune, r: fold(r)})
			}
		}
		if len(p.units) == 0 || p.units[0].kind != uRune {
			continue // a phrase must start with a character
		}
		last := p.units[len(p.units)-1]
		p.word0 = isWordRune(p.units[0].r)
		p.wordZ = last.kind == uRune && isWordRune(last.r)
		r0 := p.units[0].r
		if r0 < utf8.RuneSelf {
			m.first[r0] = true
			m.first[unicode.ToUpper(r0)] = true
		} else {
			m.nonASCI = true
		}
		m.phrases = append(m.phrases, p)
	}
	return m
}

// isApostrophe reports whether r is an apostrophe or written as one: ' ’ ‘
// ʼ ´ ′ ＇ ʹ ‛ ‵ and the backtick.
func isApostrophe(r rune) bool {
	switch r {
	case '\'', '\u2019', '\u2018', '\u02bc', '\u00b4', '\u2032', '\uff07', '\u02b9', '\u201b', '\u2035', '`':
		return true
	}
	return false
}

// transparent reports whether a phrase reads through r (see the unit kinds).
func transparent(r rune) bool {
	switch {
	case r == '*' || r == '_' || r == '~':
		return true
	case r < 0xAD:
		return false
	}
	return unicode.Is(unicode.Cf, r) || r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF
}

// isSpaceRune reports whether r is whitespace other than a line break.
func isSpaceRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\f' || r == '\v'
	}
	return r != '\u2028' && r != '\u2029' && r != '\u0085' && unicode.IsSpace(r)
}

// fold lower-cases r and maps fullwidth ASCII to ASCII.
func fold(r rune) rune {
	if r >= 0xFF01 && r <= 0xFF5E {
		r -= 0xFEE0
	}
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(r)
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// find returns the configured text of the first phrase occurring in b, or
// "" when there is none. A phrase never matches across the ends of b.
func (m *phraseMatcher) find(b []byte) string {
	if len(m.phrases) == 0 {
		return ""
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c < utf8.RuneSelf {
			if !m.first[c] {
				continue
			}
		} else {
			if c < 0xC0 {
				continue // inside a multi-byte rune
			}
			r, _ := utf8.DecodeRune(b[i:])
			if f := fold(r); f < utf8.RuneSelf {
				if !m.first[f] {
					continue
				}
			} else if !m.nonASCI {
				continue
			}
		}
		for k := range m.phrases {
			p := &m.phrases[k]
			if p.word0 && i > 0 && wordBefore(b, i) {
				continue
			}
			if end, ok := p.matchAt(b, i); ok {
				if p.wordZ && wordAt(b, end) {
					continue
				}
				return p.text
			}
		}
	}
	return ""
}

// wordBefore reports whether the last rune before b[i] that is not
// transparent is a word rune.
func wordBefore(b []byte, i int) bool {
	for i > 0 {
		c := b[i-1]
		if c < utf8.RuneSelf && c != '*' && c != '_' && c != '~' {
			return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		}
		r, n := utf8.DecodeLastRune(b[:i])
		if !transparent(r) {
			return isWordRune(r)
		}
		i -= n
	}
	return false
}

// wordAt reports whether the first rune at or after b[i] that is not
// transparent is a word rune.
func wordAt(b []byte, i int) bool {
	i = skipTransparent(b, i)
	if i >= len(b) {
		return false
	}
	r, _ := utf8.DecodeRune(b[i:])
	return isWordRune(r)
}

// skipTransparent returns the offset of the first rune at or after b[i]
// that is not transparent.
func skipTransparent(b []byte, i int) int {
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if c != '*' && c != '_' && c != '~' {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if !transparent(r) {
			return i
		}
		i += n
	}
	return i
}

// matchAt matches p at b[i:], reading through transparent runes between
// its units, and returns the end offset.
func (p *phrase) matchAt(b []byte, i int) (int, bool) {
	for k, u := range p.units {
		if k > 0 {
			i = skipTransparent(b, i)
		}
		switch u.kind {
		case uSpace:
			j, space := i, false
			for j < len(b) {
				r, n := rune(b[j]), 1
				if r >= utf8.RuneSelf {
					r, n = utf8.DecodeRune(b[j:])
				}
				if isSpaceRune(r) {
					space = true
				} else if !transparent(r) {
					break
				}
				j += n
			}
			if !space {
				return 0, false
			}
			i = j
		case uApos:
			if i < len(b) {
				if r, n := utf8.DecodeRune(b[i:]); isApostrophe(r) {
					i += n
				}
			}
		default:
			if i >= len(b) {
				return 0, false
			}
			r, n := rune(b[i]), 1
			if r >= utf8.RuneSelf {
				r, n = utf8.DecodeRune(b[i:])
			}
			if r != u.r && fold(r) != u.r {
				return 0, false
			}
			i += n
		}
	}
	return i, true
}
