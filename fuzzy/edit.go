package fuzzy

import (
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/codes"
)

// strictNearMiss reports a near miss of a strict verb: one of forms is
// within the normal allowance of a strict verb's name.
func (r *Resolver) strictNearMiss(token string, forms []string) (Result, bool) {
	if len(r.strictNames) == 0 {
		return Result{}, false
	}
	var buf [64]rune
	var cands []Candidate
	for _, f := range forms {
		rs := toRunes(buf[:0], f)
		k := r.opts.allowance(Normal, len(rs))
		if k <= 0 {
			continue
		}
		sig := signature(rs)
		for _, ni := range r.strictNames {
			nm := &r.names[ni]
			if sigDistance(sig, nm.sig) > 2*k {
				continue
			}
			if d := osa(rs, nm.runes, k); d <= k {
				cands = addCandidate(cands, Candidate{Verb: r.verbs[nm.verb].name, Name: nm.base, Tier: TierEdit, Score: editScore(d, len(rs), len(nm.runes))})
			}
		}
	}
	if len(cands) == 0 {
		return Result{}, false
	}
	sortCandidates(cands)
	return Result{Input: token, Code: codes.UnknownVerb, nearMiss: true, Candidates: r.trim(cands)}, true
}

// match is a verb found by a fuzzy tier.
type match struct {
	verb int32
	name int32
	d    int
}

// scan collects the matches of one fuzzy tier: matches resolve; near holds
// those found for a token the word guard protects, kept as suggestions.
type scan struct {
	matches []match
	near    []match
	r       *Resolver
}

func (s *scan) suggestions() []Candidate {
	var cs []Candidate
	for _, m := range s.matches {
		nm := &s.r.names[m.name]
		cs = addCandidate(cs, Candidate{Verb: s.r.verbs[m.verb].name, Name: nm.base, Tier: TierEdit, Score: editScore(m.d, len(nm.runes), len(nm.runes))})
	}
	for _, m := range s.near {
		nm := &s.r.names[m.name]
		cs = addCandidate(cs, Candidate{Verb: s.r.verbs[m.verb].name, Name: nm.base, Tier: TierEdit, Score: editScore(m.d, len(nm.runes), len(nm.runes))})
	}
	sortCandidates(cs)
	return cs
}

// editScan compares key with the names and forms of each strictness class
// whose length and letter signature allow a distance within that class's
// allowance. Matches go to s.matches when accept is set, else (the token
// is a word in its own right) to s.near, as suggestions only.
func (r *Resolver) editScan(s *scan, key string, accept bool) {
	s.r = r
	var buf [64]rune
	rs := toRunes(buf[:0], key)
	n := len(rs)
	sig := signature(rs)
	for class, st := range [2]Strictness{Normal, Loose} {
		k := r.opts.allowance(st, n)
		if k <= 0 {
			continue
		}
		lim := 2 * k
		visit := func(ni int32) {
			nm := &r.names[ni]
			d := osa(rs, nm.runes, k)
			if d > k {
				return
			}
			if nm.key != nm.base && d > r.opts.allowance(Normal, n) {
				// An inflected form gets only the normal allowance:
				// "strong" is two edits from "storing", not a /store.
				return
			}
			m := match{verb: nm.verb, name: ni, d: d}
			if accept {
				s.matches = addMatch(s.matches, m)
			} else {
				s.near = addMatch(s.near, m)
			}
		}
		if class == 0 && k == 1 && r.del1 != nil {
			r.deletionScan(rs, visit)
			continue
		}
		buckets := r.groups[class]
		lo, hi := int32(n-k), int32(n+k)
		// Names whose forms can reach the window [n-k, n+k].
		for l := max(1, n-k-r.spread[class][1]); l <= n+k+r.spread[class][0] && l < len(buckets); l++ {
			for gi := range buckets[l] {
				g := &buckets[l][gi]
				if g.maxLen < lo || g.minLen > hi || bits.OnesCount64((sig^g.sig)&g.keep) > lim {
					continue
				}
				for ni := g.first; ni < g.first+g.count; ni++ {
					nm := &r.names[ni]
					if l := int32(len(nm.runes)); l >= lo && l <= hi && sigDistance(sig, nm.sig) <= lim {
						visit(ni)
					}
				}
			}
		}
	}
}

// indexDeletions adds name ni to the one-deletion index: under its own
// spelling and under each spelling with one rune removed.
func (r *Resolver) indexDeletions(ni int32) {
	rs := r.names[ni].runes
	r.del1[string(rs)] = appendOnce(r.del1[string(rs)], ni)
	buf := make([]rune, 0, len(rs))
	for i := range rs {
		buf = append(append(buf[:0], rs[:i]...), rs[i+1:]...)
		k := string(buf)
		r.del1[k] = appendOnce(r.del1[k], ni)
	}
}

// deletionScan calls visit for every normal-class name or form within one
// edit of rs, and a few more. Two strings are within one edit (insertion,
// deletion, substitution or transposition) only if deleting at most one
// rune from each makes them equal, so looking up rs and its one-rune
// deletions in the index finds them all without touching the others.
func (r *Resolver) deletionScan(rs []rune, visit func(ni int32)) {
	var seenBuf [32]int32
	seen := seenBuf[:0]
	try := func(key []rune) {
		var kb [64]byte
		b := kb[:0]
		for _, c := range key {
			b = utf8.AppendRune(b, c)
		}
		for _, ni := range r.del1[string(b)] {
			if !slices.Contains(seen, ni) {
				seen = append(seen, ni)
				visit(ni)
			}
		}
	}
	try(rs)
	var buf [64]rune
	for i := range rs {
		try(append(append(buf[:0], rs[:i]...), rs[i+1:]...))
	}
}

func addMatch(ms []match, m match) []match {
	for i := range ms {
		if ms[i].verb == m.verb {
			// the closest name; among equals the first registered, so
			// the result does not depend on the order of the search
			if m.d < ms[i].d || m.d == ms[i].d && m.name < ms[i].name {
				ms[i] = m
			}
			return ms
		}
	}
	return append(ms, m)
}

// pick returns the match with the smallest distance; two verbs at the same
// distance are AMBIGUOUS_VERB.
func (r *Resolver) pick(token string, ms []match, t Tier) (Result, bool) {
	if len(ms) == 0 {
		return Result{}, false
	}
	best := ms[0]
	for _, m := range ms[1:] {
		if m.d < best.d {
			best = m
		}
	}
	scale := 0.9
	if t == TierPhonetic {
		scale = 0.75
	}
	var tied []Candidate
	for _, m := range ms {
		nm := &r.names[m.name]
		c := Candidate{Verb: r.verbs[m.verb].name, Name: nm.base, Tier: t, Score: scale * editScore(m.d, letterCount(token), len(nm.runes))}
		tied = append(tied, c)
	}
	n := 0
	for _, m := range ms {
		if m.d == best.d {
			n++
		}
	}
	nm := &r.names[best.name]
	if n > 1 {
		sortCandidates(tied)
		return Result{Input: token, Code: codes.AmbiguousVerb, Candidates: r.trim(tied)}, true
	}
	return Result{Input: token, Verb: r.verbs[best.verb].name, Name: nm.base, Tier: t,
		Score: scale * editScore(best.d, letterCount(token), len(nm.runes))}, true
}

func editScore(d, a, b int) float64 {
	m := max(a, b, 1)
	s := 1 - float64(d)/float64(m)
	if s < 0 {
		return 0
	}
	return s
}
