package detect

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Vocabulary is what the scanner knows about verbs. The scanner calls it
// only for candidate tokens (a sigil at a token boundary followed by a
// word), never per byte, so an implementation may be slow-ish (fuzzy).
type Vocabulary interface {
	// Resolve maps a verb token as written — one word, or several words
	// joined by single spaces ("look up") — to its canonical verb.
	Resolve(token string) (verb string, ok bool)
	// Extends reports whether some registered phrase continues
	// prefix + " " (so the scanner should try the next word too).
	Extends(prefix string) bool
}

// StaticVocabulary is a fixed, case-insensitive set of names (canonical
// verbs and aliases, possibly several words) with their canonical verbs. It
// is safe for concurrent use once built.
type StaticVocabulary struct {
	names    map[string]string // lower-case name, single-spaced → canonical
	prefixes map[string]bool   // lower-case proper word prefixes of multi-word names
}

// NewStaticVocabulary builds a vocabulary from name → canonical pairs. Names
// are matched case-insensitively with runs of whitespace read as one space;
// the canonical verb is returned as given.
func NewStaticVocabulary(names map[string]string) *StaticVocabulary {
	v := &StaticVocabulary{names: make(map[string]string, len(names)), prefixes: map[string]bool{}}
	for name, canon := range names {
		words := strings.Fields(strings.ToLower(name))
		if len(words) == 0 {
			continue
		}
		v.names[strings.Join(words, " ")] = canon
		for i := 1; i < len(words); i++ {
			v.prefixes[strings.Join(words[:i], " ")] = true
		}
	}
	return v
}

// Resolve implements Vocabulary.
func (v *StaticVocabulary) Resolve(token string) (string, bool) {
	c, ok := v.names[normName(token)]
	return c, ok
}

// Extends implements Vocabulary.
func (v *StaticVocabulary) Extends(prefix string) bool {
	return v.prefixes[normName(prefix)]
}

// normName NFC-normalises and lower-cases s and folds whitespace runs to
// single spaces, without allocating a second time for the common one-word
// case.
func normName(s string) string {
	s = strings.ToLower(norm.NFC.String(s))
	if !strings.ContainsAny(s, " \t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
