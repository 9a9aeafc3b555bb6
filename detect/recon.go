package detect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// unit kinds of a compiled phrase.
const (
	uRune  = iota // one rune, compared lower-cased
	uSpace        // one or more spaces or tabs
	uApos         // an optional apostrophe: ' ’ ‘ ʼ or nothing
)

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
			case r == ' ' || r == '\t':
				if n := len(p.units); n == 0 || p.units[n-1].kind != uSpace {
					p.units = append(p.units, unit{kind: uSpace})
				}
			case isApostrophe(r):
				p.units = append(p.units, unit{kind: uApos})
			default:
				p.units = append(p.units, unit{kind: uRune, r: r})
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

func isApostrophe(r rune) bool {
	return r == '\'' || r == '\u2019' || r == '\u2018' || r == '\u02bc'
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
		} else if !m.nonASCI {
			continue
		}
		for k := range m.phrases {
			p := &m.phrases[k]
			if p.word0 && i > 0 && wordBefore(b, i) {
				continue
			}
			if end, ok := p.matchAt(b, i); ok {
				if p.wordZ && end < len(b) {
					r, _ := utf8.DecodeRune(b[end:])
					if isWordRune(r) {
						continue
					}
				}
				return p.text
			}
		}
	}
	return ""
}

// wordBefore reports whether the rune ending at b[i] is a word rune.
func wordBefore(b []byte, i int) bool {
	c := b[i-1]
	if c < utf8.RuneSelf {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	r, _ := utf8.DecodeLastRune(b[:i])
	return isWordRune(r)
}

// matchAt matches p at b[i:], returning the end offset.
func (p *phrase) matchAt(b []byte, i int) (int, bool) {
	for _, u := range p.units {
		switch u.kind {
		case uSpace:
			j := i
			for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
				j++
			}
			if j == i {
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
			if r != u.r && unicode.ToLower(r) != u.r {
				return 0, false
			}
			i += n
		}
	}
	return i, true
}
