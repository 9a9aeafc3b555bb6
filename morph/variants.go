package morph

import "strings"

// spellingPairs are the British/American suffix pairs Variants swaps, each
// listed with its inflected forms so that "summarised" and "summarized" meet.
var spellingPairs = [...][2]string{
	{"ise", "ize"}, {"ises", "izes"}, {"ised", "ized"}, {"ising", "izing"},
	{"isation", "ization"},
	{"yse", "yze"}, {"yses", "yzes"}, {"ysed", "yzed"}, {"ysing", "yzing"},
	{"our", "or"}, {"ours", "ors"}, {"oured", "ored"}, {"ouring", "oring"},
	{"lled", "led"}, {"lling", "ling"}, {"ller", "ler"},
	{"ll", "l"}, {"lls", "ls"},
}

// Variants returns the other spellings of word (lower case) under the
// British/American alternations -ise/-ize, -yse/-yze, -our/-or and a doubled
// final l (cancelled/canceled, fulfil/fulfill), applied at the end of the
// word. word itself is not included; the result may contain non-words, so
// use it to look words up, not to produce text.
func Variants(word string) []string {
	if word == "" || !strings.ContainsRune("edgrnls", rune(word[len(word)-1])) {
		return nil // no spelling pair ends in any other letter
	}
	var out []string
	add := func(s string) {
		if s == word || len(s) < 3 {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	for _, p := range spellingPairs {
		for dir := 0; dir < 2; dir++ {
			from, to := p[dir], p[1-dir]
			if strings.HasSuffix(word, from) {
				stem := word[:len(word)-len(from)]
				if from == "or" || from == "ors" || from == "ored" || from == "oring" {
					// -or → -our only after a consonant (color, not door).
					if stem == "" || isVowel(stem[len(stem)-1]) {
						continue
					}
				}
				if from == "l" || from == "led" || from == "ling" || from == "ls" || from == "ler" {
					// one l → two only after a single vowel (travel, enrol).
					if len(stem) < 2 || !isVowel(stem[len(stem)-1]) || isVowel(stem[len(stem)-2]) {
						continue
					}
				}
				add(stem + to)
			}
		}
	}
	return out
}
