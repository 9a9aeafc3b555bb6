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

	names  []nameInfo                // every (folded name or inflected form, verb) pair
	groups [numClasses][]groupBucket // per class: base-name length → names with their forms
	// dix indexes the normal and loose names and forms of up to
	// delMaxLen runes by their deletions. It is built on the first token
	// the exact and case tiers do not resolve: a process that resolves
	// only exact names (most do) never pays for it.
	dix         func() *delIndex
	spread      [numClasses][2]int // per class: most a form is shorter, longer than its name
	strictNames []int32            // names of strict verbs
	strict      map[string]bool    // canonical verbs that are strict
	strictASCII map[string]string  // strict name, ASCII-folded → its folded key
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
	class   uint8 // classNormal, classLoose or classStrict
}

// CheckEntries reports what makes entries unusable by New: an entry with
// no verb, a verb listed twice, an empty name. It is cheap, so that a
// host can check a vocabulary before it builds the resolver it needs.
func CheckEntries(entries []Entry) error {
	seen := map[string]bool{}
	for i, e := range entries {
		v := fold(e.Verb)
		if v == "" {
			return fmt.Errorf("%w: entry %d has no verb", ErrBadEntry, i)
		}
		if seen[v] {
			return fmt.Errorf("%w: verb %q listed twice", ErrBadEntry, e.Verb)
		}
		seen[v] = true
		for _, n := range e.Names {
			if fold(n) == "" {
				return fmt.Errorf("%w: verb %q has an empty name", ErrBadEntry, e.Verb)
			}
		}
	}
	return nil
}

// New builds a Resolver for the given vocabulary. Names are NFC-normalised
// and folded (lower case; - and _ as spaces); a name may belong to several
// verbs. It fails with an error wrapping ErrBadEntry when a verb is empty
// or listed twice, or a name folds to nothing.
func New(entries []Entry, opts Options) (*Resolver, error) {
	opts.fill()
	r := &Resolver{
		opts:        opts,
		lex:         morph.Default(),
		exact:       map[string][]int32{},
		keys:        map[string][]int32{},
		bySoundex:   map[string][]int32{},
		prefixes:    map[string]bool{},
		strict:      map[string]bool{},
		strictASCII: map[string]string{},
	}
	if err := CheckEntries(entries); err != nil {
		return nil, err
	}
	type pending struct {
		key  string
		verb int32
		s    Strictness
	}
	var names []pending // indexed once every name is known
	for _, e := range entries {
		v := fold(e.Verb)
		vi := int32(len(r.verbs))
		r.verbs = append(r.verbs, verbInfo{name: v, strict: e.Strictness, priority: e.Priority})
		if e.Strictness == Strict {
			r.strict[v] = true
		}
		seenKey := map[string]bool{}
		for _, n := range append([]string{e.Verb}, e.Names...) {
			k := fold(n)
			r.exact[n] = appendOnce(r.exact[n], vi)
			if e.Strictness == Strict {
				// A strict name matches as registered or up to ASCII
				// case and separators, never through Unicode folding.
				a := asciiFold(n)
				r.exact[a] = appendOnce(r.exact[a], vi)
				r.strictASCII[a] = k
			} else if k != n {
				r.exact[k] = appendOnce(r.exact[k], vi)
			}
			if seenKey[k] {
				continue
			}
			seenKey[k] = true
			r.keys[k] = appendOnce(r.keys[k], vi)
			names = append(names, pending{k, vi, e.Strictness})
		}
	}
	for _, p := range names {
		r.addName(p.key, p.verb, p.s)
	}
	r.dix = sync.OnceValue(func() *delIndex { return buildDelIndex(r) })
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

// The classes of names, by the strictness of their verb: the edit tier
// scans the first two; strict names serve near misses and suggestions.
const (
	classNormal = iota
	classLoose
	classStrict
	numClasses
)

func classOf(s Strictness) uint8 {
	switch s {
	case Loose:
		return classLoose
	case Strict:
		return classStrict
	}
	return classNormal
}

func (r *Resolver) addName(key string, verb int32, s Strictness) {
	r.maxWords = max(r.maxWords, strings.Count(key, " ")+1)
	for i := range len(key) {
		if key[i] == ' ' {
			r.prefixes[key[:i]] = true
		}
	}
	class := classOf(s)
	first := int32(len(r.names))
	r.addForm(key, key, verb, class, class != classStrict)
	// Every spelling of the name lets tier 4 see "gettin" as a typo of
	// "getting" and "cancled" of "canceled"; strict names and their forms
	// are only ever compared for near misses ("aprooved" is within two
	// edits of "approved") and suggestions.
	spellings := r.lex.Spellings(key)
	for _, v := range morph.Variants(key) {
		if _, isName := r.keys[v]; isName {
			// "analyse" and "analyze" both registered: each keeps its own.
			spellings = r.lex.Forms(key)
			break
		}
	}
	for _, f := range spellings {
		if _, isName := r.keys[f]; !isName { // a name belongs to its own verb
			r.addForm(f, key, verb, class, false)
		}
	}
	if class == classStrict {
		for ni := first; ni < int32(len(r.names)); ni++ {
			r.strictNames = append(r.strictNames, ni)
		}
	}
	base := &r.names[first]
	g := group{sig: base.sig, keep: ^uint64(0), minLen: int32(len(base.runes)), maxLen: int32(len(base.runes)),
		first: first, count: int32(len(r.names)) - first}
	for _, m := range r.names[first:] {
		g.keep &^= m.sig ^ base.sig
		g.minLen = min(g.minLen, int32(len(m.runes)))
		g.maxLen = max(g.maxLen, int32(len(m.runes)))
	}
	n := len(base.runes)
	for len(r.groups[class]) <= n {
		r.groups[class] = append(r.groups[class], nil)
	}
	r.groups[class][n] = append(r.groups[class][n], g)
	r.spread[class][0] = max(r.spread[class][0], n-int(g.minLen))
	r.spread[class][1] = max(r.spread[class][1], int(g.maxLen)-n)
}

func (r *Resolver) addForm(form, base string, verb int32, class uint8, phonetic bool) {
	rs := []rune(form)
	ni := int32(len(r.names))
	nm := nameInfo{key: form, base: base, runes: rs, sig: signature(rs), verb: verb, class: class}
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
	if !isASCII(token) && len(r.strictNames) > 0 {
		// Unicode folding and normalisation never make a strict verb.
		if res, ok := r.strictLookalike(token, key); ok {
			return res
		}
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

	if strings.ContainsRune(key, utf8.RuneError) {
		// Tokens with invalid UTF-8 are never fuzzy, nor suggested for.
		return Result{Input: token, Code: codes.UnknownVerb}
	}
	if letterCount(key) < r.opts.MinFuzzyLen {
		// Short tokens are never fuzzy, but may be told what is near.
		return r.unknown(token, key, nil, nil, nil, nil)
	}
	forms := make([]string, 0, 4)
	forms = append(forms, key) // the token and its stems, for the strict check
	for _, s := range stems {
		if letterCount(s) >= r.opts.MinFuzzyLen {
			forms = append(forms, s+rest)
		}
	}

	// A near miss of a strict verb stops here (DIALECT.md §4), also once
	// compatibility forms and marks are set aside ("ａｐｒｏｖｅ").
	strictForms := forms
	if !isASCII(key) {
		if l := lookalikeFold(key); l != key && letterCount(l) >= r.opts.MinFuzzyLen {
			strictForms = append(slices.Clip(forms), l)
		}
	}
	if res, ok := r.strictNearMiss(token, strictForms); ok {
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
	ss := &suggestions{r: r, max: r.opts.MaxCandidates}
	var q probe
	q.set(key)
	snd := newSound(key) // the token's phonetic codes, computed when needed
	r.editScan(&sc, &q, letterCount(key), !guarded, ss)
	var st scan // stems: only where the whole token found nothing
	r.stemScan(&st, key, forms[1:], !guarded)
	sc.near = append(sc.near, st.near...)
	if !guarded {
		if res, ok := r.pick(token, sc.matches, TierEdit); ok {
			return res
		}
		if res, ok := r.pick(token, st.matches, TierEdit); ok {
			return res
		}
		if !r.opts.NoPhonetic {
			var ph scan
			r.phoneticScan(&ph, &q, letterCount(key), &snd)
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
	return r.unknown(token, key, forms[1:], sc.suggestions(), ss, &snd)
}

// unknown is the UNKNOWN_VERB result for a token no tier resolved, with the
// candidates the fuzzy tiers held back (cands) and the suggestions.
func (r *Resolver) unknown(token, key string, stems []string, cands []Candidate, ss *suggestions, snd *sound) Result {
	res := Result{Input: token, Code: codes.UnknownVerb, Candidates: r.trim(cands)}
	res.Suggestions = r.suggest(key, stems, cands, ss, snd)
	return res
}

// nearMiss is the UNKNOWN_VERB result for a near miss of a strict verb:
// the strict verbs are both its candidates and its suggestions.
func (r *Resolver) nearMiss(token string, cands []Candidate) Result {
	cands = r.trim(cands)
	return Result{Input: token, Code: codes.UnknownVerb, nearMiss: true, Candidates: cands, Suggestions: slices.Clone(cands)}
}

// strictLookalike decides a token with non-ASCII letters that reaches a
// strict name through Unicode: by case folding or NFC (its key: "oK" with
// U+212A, "permİt"), or by compatibility forms, dotless i or marks
// (lookalikeFold: "ｏｋ", "yeſ", "permıt", "ók"), either directly or as
// an inflection or spelling variant ("blocKed", "ａｐｐｒｏｖｅｄ"). Such
// a token is a near miss naming the strict verb, unless it equals a
// (non-ASCII) strict name up to ASCII case.
func (r *Resolver) strictLookalike(token, key string) (Result, bool) {
	if k, ok := r.strictASCII[asciiFold(token)]; ok {
		res := r.foldHit[k]
		res.Input = token
		res.Candidates = slices.Clone(res.Candidates)
		return res, true
	}
	var cands []Candidate
	keys := []string{key}
	if look := lookalikeFold(key); look != key && look != "" {
		keys = append(keys, look)
	}
	for _, k := range keys {
		first, rest := k, ""
		if i := strings.IndexByte(k, ' '); i >= 0 {
			first, rest = k[:i], k[i:]
		}
		try := func(name string, t Tier) {
			for _, v := range r.keys[name] {
				if r.verbs[v].strict == Strict {
					cands = addCandidate(cands, Candidate{Verb: r.verbs[v].name, Name: name, Tier: t, Score: 0.98})
				}
			}
		}
		try(k, TierCase)
		stems := append(append([]string(nil), r.lex.Irregular(first)...), morph.Stems(first)...)
		for _, s := range stems {
			try(s+rest, TierMorph)
		}
		for _, w := range append([]string{first}, stems...) {
			for _, v := range morph.Variants(w) {
				try(v+rest, TierSpelling)
			}
		}
	}
	if len(cands) == 0 {
		return Result{}, false
	}
	return r.nearMiss(token, cands), true
}

// guardStrict turns a tier-3 hit on a strict verb into a near miss:
// /approved is not /approve.
func (r *Resolver) guardStrict(res Result) Result {
	if res.Verb == "" {
		return res
	}
	if r.strict[res.Verb] {
		return r.nearMiss(res.Input, []Candidate{{Verb: res.Verb, Name: res.Name, Tier: res.Tier, Score: res.Score}})
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
