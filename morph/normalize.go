package morph

import "strings"

// Normalize returns the base form of an English verb form using the default
// lexicon: see Lexicon.Normalize.
func Normalize(word string) string { return Default().Normalize(word) }

// Normalize returns the base form of an English verb form: "searching",
// "searched", "searches" → "search"; "queried" → "query"; "stopped" →
// "stop"; "caching" → "cache"; "wrote" → "write". The word is lower-cased
// first. A word that is already a base form, or that morph cannot analyse,
// comes back lower-cased and otherwise unchanged.
//
// The order of preference is: WordNet's irregular forms, the word itself
// when it is a WordNet verb, a rule-based base form that WordNet knows, and
// finally the most plausible rule-based base form (for verbs WordNet does
// not know, such as custom verbs).
func (l *Lexicon) Normalize(word string) string {
	w := strings.ToLower(word)
	stems := Stems(w)
	if lem := l.exceptions[w]; len(lem) > 0 {
		// fulfilled → fulfil or fulfill: side with the regular rules.
		for _, s := range stems {
			for _, e := range lem[1:] {
				if s == e {
					return e
				}
			}
		}
		return lem[0]
	}
	if l.IsVerb(w) {
		return w
	}
	for _, s := range stems {
		if l.IsVerb(s) {
			return s
		}
	}
	if c := l.compound(w); c != "" {
		return c
	}
	if len(stems) > 0 {
		return stems[0]
	}
	return w
}

// compound undoes an irregular form at the end of a compound verb whose
// head WordNet lists only as a simple verb: "breastfed" → "breastfeed",
// "misspoke" → "misspeak".
func (l *Lexicon) compound(w string) string {
	for i := 2; i+2 <= len(w); i++ {
		lem := l.exceptions[w[i:]]
		for _, h := range lem {
			if c := w[:i] + h; l.IsVerb(c) {
				return c
			}
		}
	}
	return ""
}

// Lemmas returns every base form of word (lower case) that WordNet knows,
// best first: irregular lemmas, then the word itself if it is a verb, then
// base forms found by the suffix rules. It returns nil when none is known.
func (l *Lexicon) Lemmas(word string) []string {
	var out []string
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	for _, s := range l.exceptions[word] {
		add(s)
	}
	if l.IsVerb(word) {
		add(word)
	}
	for _, s := range Stems(word) {
		if l.IsVerb(s) {
			add(s)
		}
	}
	if len(out) == 0 {
		if c := l.compound(word); c != "" {
			add(c)
		}
	}
	return out
}

// Stems returns the base forms the regular suffix rules allow for word
// (lower case), most plausible first, whether or not they are real words:
// "stopped" → ["stop", "stopp"], "caching" → ["cache", "cach"]. A word with
// no verb suffix gives nil. The result never contains word itself.
//
// The rules: -s, -es (after a sibilant or o), -ies → -y or -ie; -ed and -ing
// with an undoubled final consonant (stopped → stop), a restored silent e
// (caching → cache) or neither; -ied → -y or -ie; -ying → -ie (dying → die).
// The order among the candidates follows English spelling: a doubled
// consonant is undone unless it is one that base forms end in (ll, ss, ff,
// zz); a final e is restored after a short vowel in a one-syllable stem
// (hoped → hope, but visited → visit) and after endings that need it (-v,
// -u, -c, -at, -ut, -iz, -yz, ...).
func Stems(word string) []string {
	w := word
	n := len(w)
	var out []string
	add := func(s string) {
		if len(s) < 1 || s == w {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	switch {
	case strings.HasSuffix(w, "ies") && n >= 4:
		base := w[:n-3]
		if n > 4 {
			add(base + "y")
			add(base + "ie")
		} else {
			add(base + "ie")
			add(base + "y")
		}
	case strings.HasSuffix(w, "sses"):
		add(w[:n-2])
	case strings.HasSuffix(w, "es") && n >= 4:
		base := w[:n-2]
		if endsSibilant(base) || strings.HasSuffix(base, "o") {
			add(base)
			add(w[:n-1])
		} else {
			add(w[:n-1])
			add(base)
		}
	case strings.HasSuffix(w, "s") && n >= 3 && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		add(w[:n-1])
	case strings.HasSuffix(w, "ied") && n >= 4:
		base := w[:n-3]
		if n > 4 {
			add(base + "y")
			add(base + "ie")
		} else {
			add(base + "ie")
			add(base + "y")
		}
	case strings.HasSuffix(w, "eed") && n >= 5:
		// agreed → agree, but also proceed/need are bases themselves.
		add(w[:n-1])
		add(w[:n-2])
	case strings.HasSuffix(w, "ed") && n >= 4:
		for _, s := range undo(w[:n-2]) {
			add(s)
		}
	case strings.HasSuffix(w, "ying") && n >= 5:
		base := w[:n-4]
		if len(base) <= 2 && !hasVowel(base) {
			add(base + "ie") // dying → die, lying → lie
			add(w[:n-3])
		} else {
			add(w[:n-3]) // saying → say, copying → copy
			add(base + "ie")
		}
	case strings.HasSuffix(w, "ing") && n >= 5:
		base := w[:n-3]
		if !hasVowel(base) {
			// "bring", "sing", "string": no vowel left, not a suffix.
			return nil
		}
		for _, s := range undo(base) {
			add(s)
		}
	}
	return out
}

// undo proposes base forms for a stem left by removing -ed or -ing.
func undo(base string) []string {
	n := len(base)
	if n == 0 {
		return nil
	}
	last := base[n-1]
	if n >= 4 && strings.HasSuffix(base, "ick") && vowelGroups(base) > 1 {
		// picnicked → picnic, trafficking → traffic (but not locked → loc).
		return []string{base[:n-1], base, base + "e"}
	}
	if n >= 3 && base[n-2] == last && isConsonant(last) {
		undoubled := base[:n-1]
		switch last {
		case 'l', 's', 'f', 'z':
			// call, miss, stuff, buzz are base forms; cancelled → cancel too.
			return []string{base, undoubled, base + "e"}
		default:
			return []string{undoubled, base, base + "e"}
		}
	}
	if strings.HasSuffix(base, "e") {
		// seeing → see, agreeing → agree, singeing → singe.
		return []string{base, base + "e"}
	}
	if needsE(base) {
		return []string{base + "e", base}
	}
	return []string{base, base + "e"}
}

// needsE reports whether a stem most likely lost a silent e (hop-ed is
// "hopped", so "hoped" is hope; "saved" is save; "created" is create).
func needsE(base string) bool {
	n := len(base)
	last := base[n-1]
	switch last {
	case 'v', 'u':
		return true
	case 'c':
		return n < 2 || base[n-2] != 'c' && base[n-2] != 'n' || strings.HasSuffix(base, "nc")
	}
	for _, suf := range []string{"iz", "yz", "dg", "rg", "ng", "at", "ut", "ur", "ir", "ar", "os", "rs", "ps", "ns", "ls", "as", "is", "ys", "rc", "rv", "lv", "rs", "th", "ot", "et"} {
		if strings.HasSuffix(base, suf) {
			switch suf {
			case "ng":
				// changed/change but banged/bang: the lexicon decides.
				return false
			case "th":
				return false
			case "ot", "et":
				return false
			case "ar", "ir", "ur":
				return n >= 4 && !isVowel(base[n-3])
			case "is":
				return n >= 4 && base[n-3] != 'a' && base[n-3] != 'h' && base[n-3] != 'x'
			case "as":
				return n >= 4
			}
			return n >= 3
		}
	}
	// A one-syllable stem ending consonant-vowel-consonant keeps its e:
	// a doubled consonant would otherwise have been written (hoped/hopped).
	if n >= 2 && isConsonant(last) && last != 'w' && last != 'x' && last != 'y' &&
		isVowel(base[n-2]) && (n == 2 || !isVowel(base[n-3])) && vowelGroups(base) == 1 {
		return true
	}
	return false
}

func endsSibilant(s string) bool {
	return strings.HasSuffix(s, "s") || strings.HasSuffix(s, "x") || strings.HasSuffix(s, "z") ||
		strings.HasSuffix(s, "ch") || strings.HasSuffix(s, "sh")
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}

func isConsonant(c byte) bool { return c >= 'a' && c <= 'z' && !isVowel(c) }

func hasVowel(s string) bool {
	for i := 0; i < len(s); i++ {
		if isVowel(s[i]) || s[i] == 'y' && i > 0 {
			return true
		}
	}
	return false
}

// vowelGroups counts runs of vowels, a rough syllable count.
func vowelGroups(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		v := isVowel(s[i]) || s[i] == 'y' && i > 0 && !isVowel(s[i-1])
		if v && !in {
			n++
		}
		in = v
	}
	return n
}
