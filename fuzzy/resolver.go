package fuzzy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/antzucaro/matchr"
	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/morph"
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
	del1        map[string][]int32 // normal class: every name and form, and each with one rune deleted → names
	spread      [2][2]int          // per class: most a form is shorter, longer than its name
	strictNames []int32            // names of strict verbs
	strict      map[string]bool    // canonical verbs that are strict
	bySoundex   map[string][]int32 // Soundex digits (without the letter) → phonetically indexed names
	maxWords    int                // most words in a name
	prefixes    map[string]bool    // proper word prefixes of multi-word names ("look", "note to")

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
		prefixes:  map[string]bool{},
		del1:      map[string][]int32{},
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
	for i := range len(key) {
		if key[i] == ' ' {
			r.prefixes[key[:i]] = true
		}
	}
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
	if class == 0 {
		for ni := g.first; ni < g.first+g.count; ni++ {
			r.indexDeletions(ni)
		}
	}
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
	if res.OK() || res.Code != codes.UnknownVerb || r.opts.Embedder == nil || res.nearMiss {
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
	if sem.Tier != TierNone || sem.Code == codes.AmbiguousVerb {
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
			res := Result{Input: input, Code: codes.AmbiguousVerb}
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
		return Result{Input: token, Code: codes.MixedScript, Offset: off}
	}
	key := fold(token)
	if key == "" {
		return Result{Input: token, Code: codes.UnknownVerb}
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
				return Result{Input: token, Code: codes.MixedScript}
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
		return Result{Input: token, Code: codes.UnknownVerb}
	}
	forms := make([]string, 0, 4)
	forms = append(forms, key) // the token and its stems, for the strict check
	for _, s := range stems {
		if letterCount(s) >= r.opts.MinFuzzyLen {
			forms = append(forms, s+rest)
		}
	}

	// A near miss of a strict verb stops here (docs/language.md §4).
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
	res := Result{Input: token, Code: codes.UnknownVerb}
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
		return Result{Input: res.Input, Code: codes.UnknownVerb, nearMiss: true,
			Candidates: []Candidate{{Verb: res.Verb, Name: res.Name, Tier: res.Tier, Score: res.Score}}}
	}
	return res
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

// Extends reports whether prefix (one or more words, as written) is the
// beginning of a longer multi-word name, allowing an inflected first word:
// "look" and "looked" extend ("look up"), "note to" extends ("note to
// self"), "search" does only if "search web" is a name. A streaming scanner
// uses it to decide whether to wait for the next word.
func (r *Resolver) Extends(prefix string) bool {
	key := fold(prefix)
	if key == "" || len(r.prefixes) == 0 {
		return false
	}
	if r.prefixes[key] {
		return true
	}
	first, rest := key, ""
	if i := strings.IndexByte(key, ' '); i >= 0 {
		first, rest = key[:i], key[i:]
	}
	for _, h := range r.lex.Irregular(first) {
		if r.prefixes[h+rest] {
			return true
		}
	}
	for _, h := range morph.Stems(first) {
		if r.prefixes[h+rest] {
			return true
		}
	}
	return false
}

// Verbs returns the canonical verbs of the vocabulary in entry order.
func (r *Resolver) Verbs() []string {
	out := make([]string, len(r.verbs))
	for i, v := range r.verbs {
		out[i] = v.name
	}
	return out
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

// embedCache holds the names' embedding vectors once computed.
type embedCache struct {
	mu      sync.Mutex
	vectors [][]float32 // per name index; nil for strict names
	ready   bool
}
