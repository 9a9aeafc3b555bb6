package fuzzy

import (
	"strings"

	"github.com/antzucaro/matchr"
)

// phoneticScan finds names whose Soundex digits agree with the token's (so
// /data never sounds like "edit"), that are within one edit more than the
// verb's allowance, and whose Double Metaphone code equals the token's.
// Double Metaphone, the costly encoder, runs only when a name passes the
// first two checks.
func (r *Resolver) phoneticScan(s *scan, key string) {
	s.r = r
	compact := strings.ReplaceAll(key, " ", "")
	if !isASCIILetters(compact) {
		return
	}
	sx := matchr.Soundex(compact)
	cands := r.bySoundex[sx[1:]]
	if len(cands) == 0 {
		return
	}
	var buf [64]rune
	rs := toRunes(buf[:0], key)
	var code [2]string
	coded := false
	for _, ni := range cands {
		nm := &r.names[ni]
		k := r.opts.allowance(r.verbs[nm.verb].strict, len(rs)) + 1
		d := osa(rs, nm.runes, k)
		if d > k {
			continue
		}
		if !coded {
			code[0], code[1] = matchr.DoubleMetaphone(compact)
			coded = true
		}
		if sameCode(code, nm.dm) {
			s.matches = addMatch(s.matches, match{verb: nm.verb, name: ni, d: d})
		}
	}
}

// sameCode reports whether two Double Metaphone results share a code.
func sameCode(a, b [2]string) bool {
	for _, x := range a {
		for _, y := range b {
			if x != "" && x == y {
				return true
			}
		}
	}
	return false
}
