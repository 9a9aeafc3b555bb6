package morph

import (
	"slices"
	"strings"
)

// Forms returns the inflected forms of a base form: third person singular,
// past (and past participle), present participle, plus the irregular forms
// WordNet lists for it ("send" → sends, sent, sending). Regular forms follow
// English spelling (queries, queried; stopped, stopping; saving); a lemma
// with irregular forms gets no regular -ed form unless it is the other
// spelling of one of them ("cancel" → cancelled and canceled). Multi-word
// lemmas inflect their first word ("look up" → "looks up", ...).
func (l *Lexicon) Forms(lemma string) []string {
	head, tail := lemma, ""
	if i := strings.IndexByte(lemma, ' '); i >= 0 {
		head, tail = lemma[:i], lemma[i:]
	}
	if head == "" {
		return nil
	}
	var out []string
	add := func(s string) {
		s += tail
		if s == lemma {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	irr := l.irregular[lemma]
	for _, f := range irr {
		out = append(out, f)
	}
	add(thirdPerson(head))
	if p := past(head); len(irr) == 0 || spelledAlike(irr, p+tail) {
		add(p)
	}
	add(participle(head))
	return out
}

func thirdPerson(w string) string {
	n := len(w)
	switch {
	case endsSibilant(w) || strings.HasSuffix(w, "o") && n > 1 && !isVowel(w[n-2]):
		return w + "es"
	case n > 1 && w[n-1] == 'y' && !isVowel(w[n-2]):
		return w[:n-1] + "ies"
	}
	return w + "s"
}

func past(w string) string {
	n := len(w)
	switch {
	case strings.HasSuffix(w, "e"):
		return w + "d"
	case n > 1 && w[n-1] == 'y' && !isVowel(w[n-2]):
		return w[:n-1] + "ied"
	case doublesFinal(w):
		return w + w[n-1:] + "ed"
	}
	return w + "ed"
}

func participle(w string) string {
	n := len(w)
	switch {
	case strings.HasSuffix(w, "ie"):
		return w[:n-2] + "ying"
	case strings.HasSuffix(w, "e") && !strings.HasSuffix(w, "ee") && !strings.HasSuffix(w, "ye") && !strings.HasSuffix(w, "oe") && n > 2:
		return w[:n-1] + "ing"
	case doublesFinal(w):
		return w + w[n-1:] + "ing"
	}
	return w + "ing"
}

// doublesFinal reports whether a one-syllable word ending consonant-vowel-
// consonant doubles its final consonant before -ed/-ing (stop → stopped).
func doublesFinal(w string) bool {
	n := len(w)
	if n < 3 {
		return false
	}
	c := w[n-1]
	return isConsonant(c) && c != 'w' && c != 'x' && c != 'y' &&
		isVowel(w[n-2]) && !isVowel(w[n-3]) && vowelGroups(w) == 1
}

// spelledAlike reports whether w is a British/American variant of one of
// forms (canceled of cancelled).
func spelledAlike(forms []string, w string) bool {
	for _, f := range forms {
		for _, v := range Variants(f) {
			if v == w {
				return true
			}
		}
	}
	return false
}

// Spellings returns every written form of a lemma except the lemma itself:
// its inflected forms (Forms), then each British/American variant of the
// lemma that WordNet knows as a verb, with that variant's inflected forms
// ("summarize" → summarizes, summarized, summarizing, summarise,
// summarises, summarised, summarising). It is what a typo of any form of
// the verb may be a typo of.
func (l *Lexicon) Spellings(lemma string) []string {
	out := l.Forms(lemma)
	head, tail := lemma, ""
	if i := strings.IndexByte(lemma, ' '); i >= 0 {
		head, tail = lemma[:i], lemma[i:]
	}
	for _, v := range Variants(head) {
		if !l.IsVerb(v + tail) {
			continue
		}
		for _, f := range append([]string{v + tail}, l.Forms(v+tail)...) {
			if f != lemma && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}
