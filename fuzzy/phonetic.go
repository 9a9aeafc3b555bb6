package fuzzy

import (
	"strings"

	"github.com/antzucaro/matchr"
)

// sound holds a token's phonetic codes, each computed once and only when
// needed (Double Metaphone is the costly one).
type sound struct {
	compact        string    // the key without spaces
	sx             string    // its Soundex code
	dm             [2]string // its Double Metaphone codes
	indexed        bool      // compact is ASCII letters, so it has codes
	sxDone, dmDone bool
}

func newSound(key string) sound {
	c := strings.ReplaceAll(key, " ", "")
	return sound{compact: c, indexed: isASCIILetters(c)}
}

// soundex returns the Soundex digits (without the letter), or "" when the
// token has none.
func (s *sound) soundex() string {
	if !s.indexed {
		return ""
	}
	if !s.sxDone {
		s.sx, s.sxDone = matchr.Soundex(s.compact)[1:], true
	}
	return s.sx
}

func (s *sound) metaphone() [2]string {
	if !s.dmDone {
		s.dm[0], s.dm[1] = matchr.DoubleMetaphone(s.compact)
		s.dmDone = true
	}
	return s.dm
}

// phoneticScan finds names whose Soundex digits agree with the token's (so
// /data never sounds like "edit"), that are within one edit more than the
// verb's allowance, and whose Double Metaphone code equals the token's.
// Double Metaphone runs only when a name passes the first two checks.
func (r *Resolver) phoneticScan(s *scan, q *probe, n int, snd *sound) {
	s.r = r
	sx := snd.soundex()
	if sx == "" {
		return
	}
	for _, ni := range r.bySoundex[sx] {
		nm := &r.names[ni]
		k := r.opts.allowance(r.verbs[nm.verb].strict, n) + 1
		if d := q.dist(nm.runes, k); d <= k && sameCode(snd.metaphone(), nm.dm) {
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
