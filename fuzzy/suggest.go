package fuzzy

// sugg is one name or form near a token that did not resolve.
type sugg struct {
	verb     int32
	name     int32 // in r.names
	d        int
	phonetic bool // sounds like the token too
}

// better reports whether a ranks before b: nearer, then sounding alike,
// then the longer name (the same distance is a smaller share of it), then
// the first registered.
func (r *Resolver) better(a, b sugg) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	if a.phonetic != b.phonetic {
		return a.phonetic
	}
	la, lb := len(r.names[a.name].runes), len(r.names[b.name].runes)
	if la != lb {
		return la > lb
	}
	return a.name < b.name
}

// suggestions keeps the best few suggestions, one per verb, in rank order.
type suggestions struct {
	r       *Resolver
	best    []sugg
	max     int
	covered [numClasses]bool // classes already scanned at the suggestion radius
}

func (ss *suggestions) add(s sugg) {
	for i := range ss.best {
		if ss.best[i].verb == s.verb {
			if !ss.r.better(s, ss.best[i]) {
				return
			}
			ss.best = append(ss.best[:i], ss.best[i+1:]...)
			break
		}
	}
	i := len(ss.best)
	for i > 0 && ss.r.better(s, ss.best[i-1]) {
		i--
	}
	if i >= ss.max {
		return
	}
	ss.best = append(ss.best, sugg{})
	copy(ss.best[i+1:], ss.best[i:])
	ss.best[i] = s
	if len(ss.best) > ss.max {
		ss.best = ss.best[:ss.max]
	}
}

// suggest returns what a token that did not resolve may have meant, for
// the did-you-mean of UNKNOWN_VERB (DIALECT.md §6), at most MaxCandidates
// verbs, nearest first. A suggestion is never a resolution: nothing
// settles or runs it, so it may reach further than the tiers:
//
//   - every name and form within the suggestion radius, one edit more than
//     the tiers allow (the verb's allowance for a name, the normal one for
//     a form or a strict name); a token too short for edits gets one;
//   - every name within one edit more than the normal allowance of a stem
//     of the token ("escated" → escate ~ escalate);
//   - every name that sounds like the token (Soundex digits and Double
//     Metaphone agree) within two edits more than its allowance.
//
// Of these it keeps the nearest, and those that sound alike one edit
// further: "escate" is told /escalate (two edits), not also /save (three).
//
// cands are the names the tiers held back (a word guard): kept if the
// scan did not reach them. ss holds what the edit tier already found
// beyond the allowance (nil: nothing scanned yet), snd the token's
// phonetic codes if the phonetic tier computed them. A token with non-ASCII
// letters is compared as it reads once compatibility forms and marks are
// set aside.
func (r *Resolver) suggest(key string, stems []string, cands []Candidate, ss *suggestions, snd *sound) []Candidate {
	if !isASCII(key) {
		if l := lookalikeFold(key); l != "" && l != key {
			key, ss, snd = l, nil, nil // what the edit tier saw is not what is compared
		}
	}
	if ss == nil {
		ss = &suggestions{r: r, max: r.opts.MaxCandidates}
	}
	var q probe
	q.set(key)
	n := letterCount(key)
	add := func(ni int32, d int) { ss.add(sugg{verb: r.names[ni].verb, name: ni, d: d}) }
	for class := range numClasses {
		if ss.covered[class] {
			continue // the edit tier has scanned it at the radius
		}
		st := Normal
		if class == classLoose {
			st = Loose
		}
		kName, kForm := r.opts.allowance(st, n)+1, r.opts.allowance(Normal, n)+1
		if class == classNormal && r.dix().fits(q.n, kName) {
			r.dix().lookup(q.runes(), kName, len(r.names), func(ni int32) {
				if nm := &r.names[ni]; nm.class == classNormal {
					if d := q.dist(nm.runes, kName); d <= kName {
						add(ni, d)
					}
				}
			})
			continue
		}
		r.scanClass(class, &q, kName, kForm, add)
	}
	var sq probe
	for _, stem := range stems {
		sq.set(stem)
		r.nearNames(&sq, r.opts.allowance(Normal, letterCount(stem))+1, add)
	}
	if snd == nil {
		s := newSound(key)
		snd = &s
	}
	if sx := snd.soundex(); sx != "" && !r.opts.NoPhonetic {
		for _, ni := range r.bySoundex[sx] {
			nm := &r.names[ni]
			k := r.opts.allowance(r.verbs[nm.verb].strict, n) + 2
			if d := q.dist(nm.runes, k); d <= k && sameCode(snd.metaphone(), nm.dm) {
				ss.add(sugg{verb: nm.verb, name: ni, d: d, phonetic: true})
			}
		}
	}
	out := make([]Candidate, 0, len(ss.best)+len(cands))
	for _, s := range ss.best {
		if s.d > ss.best[0].d && !(s.phonetic && s.d == ss.best[0].d+1) {
			break // only the nearest, and what sounds alike one edit further
		}
		nm := &r.names[s.name]
		c := Candidate{Verb: r.verbs[s.verb].name, Name: nm.base, Tier: TierEdit, Score: 0.9 * editScore(s.d, n, len(nm.runes))}
		if nm.key != nm.base {
			c.Form = nm.key
		}
		if s.phonetic {
			c.Tier, c.Score = TierPhonetic, 0.75*editScore(s.d, n, len(nm.runes))
		}
		out = append(out, c)
	}
	for _, c := range cands {
		if len(out) < r.opts.MaxCandidates && !hasVerb(out, c.Verb) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func hasVerb(cs []Candidate, verb string) bool {
	for _, c := range cs {
		if c.Verb == verb {
			return true
		}
	}
	return false
}
