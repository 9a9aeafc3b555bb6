package failures

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Matcher says which existing verb an unknown token most plausibly means.
// The runtime's verb resolver (fuzzy tiers, synonym lexicon) is the real
// implementation; EditMatcher is a small stand-in.
type Matcher interface {
	// Suggest returns the canonical verb that token is closest to and a
	// confidence in [0, 1], or ok=false when nothing is close.
	Suggest(token string) (verb string, confidence float64, ok bool)
}

// Term is one word of the vocabulary and the verb it reaches.
type Term struct {
	Word string // a canonical verb or an alias, one word or several
	Verb string // the canonical verb
}

// EditMatcher suggests the verb whose name or alias is closest in
// optimal-string-alignment distance (a transposition is one edit), with
// confidence 1 - distance/length of the longer word. Tokens shorter than
// three letters are never matched, and a distance above a third of the
// longer word is not close. Synonyms, if set, maps a word straight to a
// verb with confidence SynonymConfidence.
type EditMatcher struct {
	Terms    []Term
	Synonyms map[string]string // lower-case word -> canonical verb
}

// SynonymConfidence is the confidence EditMatcher gives a synonym match.
const SynonymConfidence = 0.8

// Suggest implements Matcher.
func (m *EditMatcher) Suggest(token string) (string, float64, bool) {
	tok := normWord(token)
	if v, ok := m.Synonyms[tok]; ok {
		return v, SynonymConfidence, true
	}
	n := utf8.RuneCountInString(tok)
	if n < 3 {
		return "", 0, false
	}
	best, bestConf := "", 0.0
	for _, t := range m.Terms {
		w := normWord(t.Word)
		if strings.ContainsRune(w, ' ') {
			continue
		}
		d := osaDistance(tok, w)
		longer := max(n, utf8.RuneCountInString(w))
		if d == 0 || d*3 > longer {
			continue
		}
		conf := 1 - float64(d)/float64(longer)
		if conf > bestConf || conf == bestConf && t.Verb < best {
			best, bestConf = t.Verb, conf
		}
	}
	return best, bestConf, best != ""
}

// osaDistance is the optimal string alignment distance between a and b in
// runes: insertions, deletions, substitutions and adjacent transpositions.
func osaDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// ValidAlias reports whether s can be a verb alias of docs/language.md §1: one or
// more words separated by single spaces, each a letter followed by letters,
// digits, '_' or '-'.
func ValidAlias(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, w := range strings.Split(s, " ") {
		if w == "" {
			return false
		}
		for i, r := range w {
			if i == 0 && !unicode.IsLetter(r) {
				return false
			}
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' {
				return false
			}
		}
	}
	return true
}
