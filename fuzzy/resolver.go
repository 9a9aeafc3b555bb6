package fuzzy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/antzucaro/matchr"
	"github.com/pattern-dialect/dialect/morph"
	"golang.org/x/text/unicode/norm"
)

// ErrBadEntry is wrapped by New's errors about the vocabulary it is given.
var ErrBadEntry = errors.New("fuzzy: bad vocabulary entry")

// Resolver resolves verb tokens against a fixed vocabulary. It is
// read-only after New and safe for concurrent use.
type Resolver struct {
	opts  Options
	lex   *morph.Lexicon
	verbs []verbInfo

	exact    map[string][]int32 // name as registered → verbs
	keys     map[string][]int32 // folded name → verbs
	exactHit map[string]Result  // name as registered → its tier-1 result
	foldHit  map[string]Result  // folded name → its tier-2 result

	names       []nameInfo         // every (folded name or inflected form, verb) pair
	groups      [2][]groupBucket   // per class (normal, loose): base-name length → names with their forms
	spread      [2][2]int          // per class: most a form is shorter, longer than its name
	strictNames []int32            // names of strict verbs
	strict      map[string]bool    // canonical verbs that are strict
	bySoundex   map[string][]int32 // Soundex digits (without the letter) → phonetically indexed names
	maxWords    int                // most words in a name

	emb embedCache // embedding vectors of the names, filled on first use
}

type verbInfo struct {
	name     string
	strict   Strictness
	priority int
}

// group is one non-strict name with its inflected forms, which are
// r.names[first : first+count]. A single test on the group rules most of
// them out at once: keep is the set of signature bits that no form changes,
// and a form within k edits of a token differs from it in at most 2k of
// those bits too.
type group struct {
	sig            uint64 // the name's signature
	keep           uint64 // bits equal in the signatures of the name and all its forms
	minLen, maxLen int32  // shortest and longest member, in runes
	first, count   int32  // members in r.names
}

// groupBucket holds the groups whose name has one length, contiguous so
// the filter loop stays in cache.
type groupBucket []group

type nameInfo struct {
	key     string // folded name, or an inflected form of it
	base    string // the folded name key is a form of (== key for names)
	runes   []rune
	sig     uint64
	soundex string    // "" when not phonetically indexed
	dm      [2]string // Double Metaphone primary and secondary codes
	verb    int32
}

// New builds a Resolver for the given vocabulary. Names are NFC-normalised
// and folded (lower case; - and _ as spaces); a name may belong to several
// verbs. It fails with an error wrapping ErrBadEntry when a verb is empty
// or listed twice, or a name folds to nothing.
func New(entries []Entry, opts Options) (*Resolver, error) {
	opts.fill()
	r := &Resolver{
		opts:      opts,
		lex:       morph.Default(),
		exact:     map[string][]int32{},
		keys:      map[string][]int32{},
		bySoundex: map[string][]int32{},
		strict:    map[string]bool{},
	}
	seenVerb := map[string]bool{}
	for i, e := range entries {
		v := fold(e.Verb)
		if v == "" {
			return nil, fmt.Errorf("%w: entry %d has no verb", ErrBadEntry, i)
		}
		if seenVerb[v] {
			return nil, fmt.Errorf("%w: verb %q listed twice", ErrBadEntry, e.Verb)
		}
		seenVerb[v] = true
		vi := int32(len(r.verbs))
		r.verbs = append(r.verbs, verbInfo{name: v, strict: e.Strictness, priority: e.Priority})
		if e.Strictness == Strict {
			r.strict[v] = true
		}
		seenKey := map[string]bool{}
		for _, n := range append([]string{e.Verb}, e.Names...) {
			k := fold(n)
			if k == "" {
				return nil, fmt.Errorf("%w: verb %q has an empty name", ErrBadEntry, e.Verb)
			}
			r.exact[n] = appendOnce(r.exact[n], vi)
			if k != n {
				r.exact[k] = appendOnce(r.exact[k], vi)
			}
			if seenKey[k] {
				continue
			}
			seenKey[k] = true
			r.keys[k] = appendOnce(r.keys[k], vi)
			r.addName(k, vi, e.Strictness)
		}
	}
	r.exactHit = make(map[string]Result, len(r.exact))
	for n, vs := range r.exact {
		r.exactHit[n] = r.hit("", n, vs, TierExact, 1)
	}
	r.foldHit = make(map[string]Result, len(r.keys))
	for k, vs := range r.keys {
		r.foldHit[k] = r.hit("", k, vs, TierCase, 0.98)
	}
	return r, nil
}

func appendOnce(s []int32, v int32) []int32 {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func (r *Resolver) addName(key string, verb int32, s Strictness) {
	r.maxWords = max(r.maxWords, strings.Count(key, " ")+1)
	if s == Strict {
		// Strict names and their forms are only ever compared for near
		// misses ("aprooved" is within two edits of "approved").
		for _, f := range append([]string{key}, r.lex.Forms(key)...) {
			rs := []rune(f)
			r.strictNames = append(r.strictNames, int32(len(r.names)))
			r.names = append(r.names, nameInfo{key: f, base: key, runes: rs, sig: signature(rs), verb: verb})
		}
		return
	}
	first := int32(len(r.names))
	r.addForm(key, key, verb, true)
	// Inflected forms let tier 4 see "gettin" as a typo of "getting".
	for _, f := range r.lex.Forms(key) {
		r.addForm(f, key, verb, false)
	}
	base := &r.names[first]
	g := group{sig: base.sig, keep: ^uint64(0), minLen: int32(len(base.runes)), maxLen: int32(len(base.runes)),
		first: first, count: int32(len(r.names)) - first}
	for _, m := range r.names[first:] {
		g.keep &^= m.sig ^ base.sig
		g.minLen = min(g.minLen, int32(len(m.runes)))
		g.maxLen = max(g.maxLen, int32(len(m.runes)))
	}
	class := 0
	if s == Loose {
		class = 1
	}
	n := len(base.runes)
	for len(r.groups[class]) <= n {
		r.groups[class] = append(r.groups[class], nil)
	}
	r.groups[class][n] = append(r.groups[class][n], g)
	r.spread[class][0] = max(r.spread[class][0], n-int(g.minLen))
	r.spread[class][1] = max(r.spread[class][1], int(g.maxLen)-n)
}

func (r *Resolver) addForm(form, base string, verb int32, phonetic bool) {
	rs := []rune(form)
	ni := int32(len(r.names))
	nm := nameInfo{key: form, base: base, runes: rs, sig: signature(rs), verb: verb}
	if compact := strings.ReplaceAll(form, " ", ""); phonetic && isASCIILetters(compact) && len(compact) >= 2 {
		nm.soundex = matchr.Soundex(compact)
		nm.dm[0], nm.dm[1] = matchr.DoubleMetaphone(compact)
		r.bySoundex[nm.soundex[1:]] = append(r.bySoundex[nm.soundex[1:]], ni)
	}
	r.names = append(r.names, nm)
}

// Options returns the options in effect, defaults filled in.
func (r *Resolver) Options() Options { return r.opts }

// Resolve resolves one verb token (without its slash) through tiers 1–6,
// the semantic tier using the offline lexicon only. It never does I/O.
func (r *Resolver) Resolve(token string) Result {
	if res, ok := r.exactHit[token]; ok {
		res.Input = token
		res.Candidates = slices.Clone(res.Candidates) // callers may modify theirs
		return res
	}
	return r.slow(token)
}

// ResolveContext is Resolve followed, when the offline tiers find nothing,
// by embedding similarity through Options.Embedder (if set). The error
// reports a failing embedder; the Result is then the offline one.
func (r *Resolver) ResolveContext(ctx context.Context, token string) (Result, error) {
	res := r.Resolve(token)
	if res.OK() || res.Code != UnknownVerb || r.opts.Embedder == nil || res.nearMiss {
		return res, nil
	}
	key := fold(token)
	if letterCount(key) < r.opts.MinFuzzyLen {
		return res, nil
	}
	sem, err := r.embedTier(ctx, token, key)
	if err != nil {
		return res, err
	}
	if sem.Tier != TierNone || sem.Code == AmbiguousVerb {
		return sem, nil
	}
	return res, nil
}

// hit builds the result for a match of name to the verbs vs at tier t.
func (r *Resolver) hit(input, name string, vs []int32, t Tier, score float64) Result {
	v := vs[0]
	if len(vs) > 1 {
		best, tied := v, false
		for _, w := range vs[1:] {
			switch pw, pb := r.verbs[w].priority, r.verbs[best].priority; {
			case pw > pb:
				best, tied = w, false
			case pw == pb:
				tied = true
			}
		}
		if tied {
			res := Result{Input: input, Code: AmbiguousVerb}
			for _, w := range vs {
				if r.verbs[w].priority == r.verbs[best].priority {
					res.Candidates = append(res.Candidates, Candidate{Verb: r.verbs[w].name, Name: name, Tier: t, Score: score})
				}
			}
			res.Candidates = r.trim(res.Candidates)
			return res
		}
		v = best
	}
	return Result{Input: input, Verb: r.verbs[v].name, Name: name, Tier: t, Score: score}
}

func (r *Resolver) trim(cs []Candidate) []Candidate {
	if len(cs) > r.opts.MaxCandidates {
		return cs[:r.opts.MaxCandidates]
	}
	return cs
}

func (r *Resolver) slow(token string) Result {
	if len(token) <= 64 && isASCII(token) {
		// Tier 2 without allocating: lower-case into a buffer.
		var buf [64]byte
		b := buf[:len(token)]
		for i := 0; i < len(token); i++ {
			c := token[i]
			switch {
			case c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			case c == '-' || c == '_':
				c = ' '
			}
			b[i] = c
		}
		if res, ok := r.foldHit[string(b)]; ok {
			res.Input = token
			res.Candidates = slices.Clone(res.Candidates)
			return res
		}
	} else if off := mixedScript(token); off >= 0 {
		return Result{Input: token, Code: MixedScript, Offset: off}
	}
	key := fold(token)
	if key == "" {
		return Result{Input: token, Code: UnknownVerb}
	}
	if res, ok := r.foldHit[key]; ok {
		res.Input = token
		res.Candidates = slices.Clone(res.Candidates)
		return res
	}
	if !isASCII(key) {
		// A verb spelled entirely in Cyrillic or Greek look-alikes is a
		// spoof, not a word of another language.
		if sk, ok := skeleton(key); ok && sk != key {
			if _, hit := r.keys[sk]; hit {
				return Result{Input: token, Code: MixedScript}
			}
		}
	}

	first, rest := key, ""
	if i := strings.IndexByte(key, ' '); i >= 0 {
		first, rest = key[:i], key[i:]
	}
	stems := append(append([]string(nil), r.lex.Irregular(first)...), morph.Stems(first)...)

	// Tier 3: morphology, then spelling variants.
	for _, s := range stems {
		if vs, ok := r.keys[s+rest]; ok {
			return r.guardStrict(r.hit(token, s+rest, vs, TierMorph, 0.95))
		}
	}
	for _, w := range append([]string{first}, stems...) {
		for _, v := range morph.Variants(w) {
			if vs, ok := r.keys[v+rest]; ok {
				return r.guardStrict(r.hit(token, v+rest, vs, TierSpelling, 0.9))
			}
		}
	}

	letters := letterCount(key)
	if letters < r.opts.MinFuzzyLen || strings.ContainsRune(key, utf8.RuneError) {
		// Short tokens and tokens with invalid UTF-8 are never fuzzy.
		return Result{Input: token, Code: UnknownVerb}
	}
	forms := make([]string, 0, 4)
	forms = append(forms, key) // the token and its stems, for the strict check
	for _, s := range stems {
		if letterCount(s) >= r.opts.MinFuzzyLen {
			forms = append(forms, s+rest)
		}
	}

	// A near miss of a strict verb stops here (DIALECT.md §4).
	if res, ok := r.strictNearMiss(token, forms); ok {
		return res
	}

	var lemmas []string // WordNet base forms of the token, for the guard and tier 6
	if rest == "" {
		lemmas = r.lex.Lemmas(first)
	} else if r.lex.IsVerb(key) {
		lemmas = []string{key}
	}
	guarded := !r.opts.NoWordGuard && len(lemmas) > 0
	var sc scan
	r.editScan(&sc, key, !guarded)
	if !guarded {
		if res, ok := r.pick(token, sc.matches, TierEdit); ok {
			return res
		}
		if !r.opts.NoPhonetic {
			var ph scan
			r.phoneticScan(&ph, key)
			if res, ok := r.pick(token, ph.matches, TierPhonetic); ok {
				return res
			}
		}
	}
	if !r.opts.NoLexicon {
		if res, ok := r.lexiconTier(token, lemmas); ok {
			return res
		}
	}
	res := Result{Input: token, Code: UnknownVerb}
	res.Candidates = r.trim(sc.suggestions())
	return res
}

// guardStrict turns a tier-3 hit on a strict verb into a near miss:
// /approved is not /approve.
func (r *Resolver) guardStrict(res Result) Result {
	if res.Verb == "" {
		return res
	}
	if r.strict[res.Verb] {
		return Result{Input: res.Input, Code: UnknownVerb, nearMiss: true,
			Candidates: []Candidate{{Verb: res.Verb, Name: res.Name, Tier: res.Tier, Score: res.Score}}}
	}
	return res
}

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
		if k == 0 {
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
	return Result{Input: token, Code: UnknownVerb, nearMiss: true, Candidates: r.trim(cands)}, true
}

// match is a verb found by a fuzzy tier.
type match struct {
	verb int32
	name int32
	d    int
}

// scan collects the fuzzy matches of one tier and, for messages, names
// just outside the allowance.
type scan struct {
	matches []match
	near    []match
	r       *Resolver
	lens    []int // compared length per near entry
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
		if k == 0 {
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
		buckets := r.groups[class]
		lo, hi := int32(n-k), int32(n+k)
		// Names whose forms can reach the window [n-k, n+k].
		for l := max(1, n-k-r.spread[class][1]); l <= n+k+r.spread[class][0] && l < len(buckets); l++ {
			for gi := range buckets[l] {
				g := &buckets[l][gi]
				if g.maxLen < lo || g.minLen > hi || sigDistance((sig^g.sig)&g.keep, 0) > lim {
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

func addMatch(ms []match, m match) []match {
	for i := range ms {
		if ms[i].verb == m.verb {
			if m.d < ms[i].d {
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
		return Result{Input: token, Code: AmbiguousVerb, Candidates: r.trim(tied)}, true
	}
	return Result{Input: token, Verb: r.verbs[best.verb].name, Name: nm.base, Tier: t,
		Score: scale * editScore(best.d, letterCount(token), len(nm.runes))}, true
}

// lexiconTier resolves a real English verb through its WordNet synonyms.
func (r *Resolver) lexiconTier(token string, lemmas []string) (Result, bool) {
	if len(lemmas) == 0 {
		return Result{}, false
	}
	type sup struct {
		verb int32
		name string
		w    float64
	}
	var sups []sup
	for _, lem := range lemmas {
		for _, syn := range r.lex.Synonyms(lem) {
			for _, v := range r.keys[syn.Word] {
				if r.verbs[v].strict == Strict {
					continue
				}
				w := 1 / float64(syn.Sense*syn.Rank)
				found := false
				for i := range sups {
					if sups[i].verb == v {
						sups[i].w += w
						found = true
					}
				}
				if !found {
					sups = append(sups, sup{verb: v, name: syn.Word, w: w})
				}
			}
		}
	}
	if len(sups) == 0 {
		return Result{}, false
	}
	// Rank by support; the score maps support onto (0, 0.75).
	for i := 1; i < len(sups); i++ {
		for j := i; j > 0 && (sups[j].w > sups[j-1].w || sups[j].w == sups[j-1].w && r.verbs[sups[j].verb].name < r.verbs[sups[j-1].verb].name); j-- {
			sups[j], sups[j-1] = sups[j-1], sups[j]
		}
	}
	cands := make([]Candidate, len(sups))
	for i, s := range sups {
		cands[i] = Candidate{Verb: r.verbs[s.verb].name, Name: s.name, Tier: TierSemantic, Score: 0.75 * (1 - math.Exp(-s.w))}
	}
	if sups[0].w < r.opts.LexiconMinSupport {
		return Result{}, false
	}
	if len(sups) > 1 && sups[0].w < sups[1].w*r.opts.LexiconMargin {
		return Result{Input: token, Code: AmbiguousVerb, Candidates: r.trim(cands)}, true
	}
	c := cands[0]
	return Result{Input: token, Verb: c.Verb, Name: c.Name, Tier: TierSemantic, Score: c.Score}, true
}

// LongestPhrase returns how many of words (the verb token and the words
// after it, as written) form the longest multi-word name of the
// vocabulary, allowing an inflected first word ("looked up"); 0 when no
// name of two or more words matches. A scanner uses it to extend a verb
// token: "/look up the weather" → 2.
func (r *Resolver) LongestPhrase(words []string) int {
	if r.maxWords < 2 || len(words) < 2 {
		return 0
	}
	n := min(len(words), r.maxWords)
	first := fold(words[0])
	if first == "" {
		return 0
	}
	heads := append([]string{first}, morph.Stems(first)...)
	heads = append(heads, r.lex.Irregular(first)...)
	for ; n >= 2; n-- {
		var b strings.Builder
		for _, w := range words[1:n] {
			b.WriteByte(' ')
			b.WriteString(fold(w))
		}
		tail := b.String()
		for _, h := range heads {
			if _, ok := r.keys[h+tail]; ok {
				return n
			}
		}
	}
	return 0
}

// Verbs returns the canonical verbs of the vocabulary in entry order.
func (r *Resolver) Verbs() []string {
	out := make([]string, len(r.verbs))
	for i, v := range r.verbs {
		out[i] = v.name
	}
	return out
}

func editScore(d, a, b int) float64 {
	m := max(a, b, 1)
	s := 1 - float64(d)/float64(m)
	if s < 0 {
		return 0
	}
	return s
}

func addCandidate(cs []Candidate, c Candidate) []Candidate {
	for i := range cs {
		if cs[i].Verb == c.Verb {
			if c.Score > cs[i].Score {
				cs[i] = c
			}
			return cs
		}
	}
	return append(cs, c)
}

func sortCandidates(cs []Candidate) {
	// insertion sort: a handful of elements, stable by score then verb.
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && (cs[j].Score > cs[j-1].Score || cs[j].Score == cs[j-1].Score && cs[j].Verb < cs[j-1].Verb); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// fold is the key of tier 2: valid UTF-8, NFC, lower case, with runs of
// whitespace, - and _ as one space, trimmed.
func fold(s string) string {
	if isASCII(s) {
		clean := true
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') || c < ' ' || c == '\t' {
				clean = false
				break
			}
		}
		if clean {
			return s
		}
	} else {
		s = norm.NFC.String(strings.ToValidUTF8(s, "\uFFFD"))
	}
	s = strings.ToLower(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, c := range s {
		if c == '-' || c == '_' || unicode.IsSpace(c) {
			space = b.Len() > 0
			continue
		}
		if unicode.IsControl(c) {
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(c)
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isASCIILetters(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// letterCount counts the runes of a folded key, spaces excluded.
func letterCount(s string) int {
	n := 0
	for _, c := range s {
		if c != ' ' {
			n++
		}
	}
	return n
}

func toRunes(buf []rune, s string) []rune {
	for _, c := range s {
		buf = append(buf, c)
	}
	return buf
}

// embedCache holds the names' embedding vectors once computed.
type embedCache struct {
	mu      sync.Mutex
	vectors [][]float32 // per name index; nil for strict names
	ready   bool
}
