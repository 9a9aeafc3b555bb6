package fuzzy

import (
	"math/bits"

	"strings"

	"github.com/pattern-dialect/dialect/codes"
)

// strictNearMiss reports a near miss of a strict verb: one of forms is
// within the normal allowance of a strict verb's name.
func (r *Resolver) strictNearMiss(token string, forms []string) (Result, bool) {
	if len(r.strictNames) == 0 {
		return Result{}, false
	}
	var q probe
	var cands []Candidate
	for _, f := range forms {
		k := r.opts.allowance(Normal, letterCount(f))
		if k <= 0 {
			continue
		}
		q.set(f)
		for _, ni := range r.strictNames {
			nm := &r.names[ni]
			if sigDistance(q.sig, nm.sig) > 2*k {
				continue
			}
			if d := q.dist(nm.runes, k); d <= k {
				cands = addCandidate(cands, Candidate{Verb: r.verbs[nm.verb].name, Name: nm.base, Tier: TierEdit, Score: editScore(d, q.n, len(nm.runes))})
			}
		}
	}
	if len(cands) == 0 {
		return Result{}, false
	}
	sortCandidates(cands)
	return r.nearMiss(token, cands), true
}

// match is a verb found by a fuzzy tier.
type match struct {
	verb int32
	name int32 // the name or form compared, in r.names
	d    int
	stem bool // a stem of the token was compared with the name
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
//
// When ss is not nil, a class scanned name by name is scanned one edit
// further and what it finds goes to ss too, so that a token that does not
// resolve has its suggestions without a second pass.
func (r *Resolver) editScan(s *scan, q *probe, n int, accept bool, ss *suggestions) {
	s.r = r
	kf := r.opts.allowance(Normal, n) // for inflected forms
	for class, st := range [2]Strictness{Normal, Loose} {
		k := r.opts.allowance(st, n)
		if k <= 0 {
			continue
		}
		found := func(ni int32, d int) {
			nm := &r.names[ni]
			if ss != nil {
				ss.add(sugg{verb: nm.verb, name: ni, d: d})
			}
			if d > k || nm.key != nm.base && d > kf {
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
		if class == classNormal && r.dix().fits(q.n, k) {
			r.dix().lookup(q.runes(), k, len(r.names), func(ni int32) {
				if nm := &r.names[ni]; int(nm.class) == class { // the index holds both classes
					if d := q.dist(nm.runes, k); d <= k {
						found(ni, d)
					}
				}
			})
			continue
		}
		wide := 0
		if ss != nil {
			wide = 1
			ss.covered[class] = true
		}
		r.scanClass(class, q, k+wide, kf+wide, found)
	}
}

// scanClass calls found(ni, d) for every name of the class within kName
// edits of the probe and every inflected form within kForm, with its
// distance d. One test on a group of a name and its forms (length range,
// and the signature bits no form changes) rules most of them out at once.
func (r *Resolver) scanClass(class int, q *probe, kName, kForm int, found func(ni int32, d int)) {
	n := q.n
	k := max(kName, kForm)
	buckets := r.groups[class]
	lo, hi := int32(n-k), int32(n+k)
	// Names whose forms can reach the window [n-k, n+k].
	for l := max(1, n-k-r.spread[class][1]); l <= n+k+r.spread[class][0] && l < len(buckets); l++ {
		for gi := range buckets[l] {
			g := &buckets[l][gi]
			if g.maxLen < lo || g.minLen > hi || bits.OnesCount64((q.sig^g.sig)&g.keep) > 2*k {
				continue
			}
			for ni := g.first; ni < g.first+g.count; ni++ {
				nm := &r.names[ni]
				kk := kForm
				if ni == g.first {
					kk = kName
				}
				if dl := len(nm.runes) - n; dl > kk || -dl > kk || sigDistance(q.sig, nm.sig) > 2*kk {
					continue
				}
				if d := q.dist(nm.runes, kk); d <= kk {
					found(ni, d)
				}
			}
		}
	}
}

// scanNames calls found(ni, d) for every name (not form) of the given
// classes within k edits of the probe.
func (r *Resolver) scanNames(q *probe, k int, classes []int, found func(ni int32, d int)) {
	n := q.n
	for _, class := range classes {
		buckets := r.groups[class]
		for l := max(1, n-k); l <= n+k && l < len(buckets); l++ {
			for gi := range buckets[l] {
				g := &buckets[l][gi]
				if sigDistance(q.sig, g.sig) > 2*k {
					continue
				}
				if d := q.dist(r.names[g.first].runes, k); d <= k {
					found(g.first, d)
				}
			}
		}
	}
}

// nearNames calls found(ni, d) for every name (not form) of any class
// within k edits of the probe, through the deletion index where it holds
// them.
func (r *Resolver) nearNames(q *probe, k int, found func(ni int32, d int)) {
	if !r.dix().fits(q.n, k) {
		r.scanNames(q, k, []int{classNormal, classLoose, classStrict}, found)
		return
	}
	r.dix().lookup(q.runes(), k, len(r.names), func(ni int32) {
		if nm := &r.names[ni]; nm.key == nm.base {
			if d := q.dist(nm.runes, k); d <= k {
				found(ni, d)
			}
		}
	})
	r.scanNames(q, k, []int{classStrict}, found)
}

// stemScan compares the token's stems with the names of the normal and
// loose classes: morph's rules undo the suffix ("shtoped" → shtop,
// "udateed" → udate, "safeing" → safe) and the stem is then a typo of a
// name ("stop", "update", "save"). That is a typo inside an inflection
// whose suffix was spelled by rule, which the edit distance to the
// inflected form ("stopped", two edits) overstates. Like a form, a stem
// gets only the normal allowance, counted on the stem's letters, and the
// name must have a form with the token's ending: "maches" (mach + es) is
// not /math, whose form is "maths", and "asended" (asend + ed) is not
// /send, whose past is "sent".
func (r *Resolver) stemScan(s *scan, key string, stems []string, accept bool) {
	s.r = r
	var q probe
	for _, stem := range stems {
		suffix := key[commonPrefix(key, stem):]
		k := r.opts.allowance(Normal, letterCount(stem))
		if k <= 0 || suffix == "" {
			continue
		}
		q.set(stem)
		r.nearNames(&q, k, func(ni int32, d int) {
			nm := &r.names[ni]
			if nm.class == classStrict || r.formEnding(ni, suffix) < 0 {
				return
			}
			m := match{verb: nm.verb, name: ni, d: d, stem: true}
			if accept {
				s.matches = addMatch(s.matches, m)
			} else {
				s.near = addMatch(s.near, m)
			}
		})
	}
}

// formEnding returns the index of the first form of name ni that ends with
// suffix, or -1. A name's forms follow it in r.names.
func (r *Resolver) formEnding(ni int32, suffix string) int32 {
	nm := &r.names[ni]
	for fi := ni + 1; fi < int32(len(r.names)); fi++ {
		f := &r.names[fi]
		if f.base != nm.base || f.verb != nm.verb || f.key == f.base {
			break
		}
		if strings.HasSuffix(f.key, suffix) {
			return fi
		}
	}
	return -1
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
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
	return Result{Input: token, Verb: r.verbs[best.verb].name, Name: nm.base, Form: r.formOf(best, token), Tier: t,
		Score: scale * editScore(best.d, letterCount(token), len(nm.runes))}, true
}

// formOf returns the inflected form a match was made against, or "" for
// the name itself. A stem match ("shtoped": shtop ~ stop) names the form
// of the name nearest to the whole token ("stopped").
func (r *Resolver) formOf(m match, token string) string {
	nm := &r.names[m.name]
	if !m.stem {
		if nm.key == nm.base {
			return ""
		}
		return nm.key
	}
	var buf [64]rune
	key := fold(token)
	rs := toRunes(buf[:0], key)
	best, bestD := "", len(rs)+1
	for ni := m.name + 1; ni < int32(len(r.names)) && r.names[ni].base == nm.base && r.names[ni].verb == nm.verb && r.names[ni].key != nm.base; ni++ {
		if d := osa(rs, r.names[ni].runes, bestD-1); d < bestD {
			best, bestD = r.names[ni].key, d
		}
	}
	return best
}

func editScore(d, a, b int) float64 {
	m := max(a, b, 1)
	s := 1 - float64(d)/float64(m)
	if s < 0 {
		return 0
	}
	return s
}
