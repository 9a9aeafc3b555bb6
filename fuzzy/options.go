package fuzzy

// Allowance is the number of edits a token may be away from a name: Short
// for tokens of MinFuzzyLen up to LongLen-1 letters, Long for LongLen
// letters and more. A negative value means no edits (zero means the
// default).
type Allowance struct {
	Short int
	Long  int
}

// Options configure a Resolver. The zero value of every field means its
// documented default, so Options{} is the configuration of docs/language.md §4.
type Options struct {
	// Loose and Normal are the edit allowances per strictness. Defaults:
	// loose {2, 3}, normal {1, 2}. A token within the Normal allowance of a
	// strict verb is a near miss of it.
	Loose, Normal Allowance

	// MinFuzzyLen is the shortest token, in letters, that tiers 4–6 may
	// resolve (default 4: /f, /tmp, /etc are never typos of anything).
	MinFuzzyLen int
	// LongLen is the length from which the Long allowance applies
	// (default 8).
	LongLen int

	// NoPhonetic turns tier 5 off.
	NoPhonetic bool
	// NoLexicon turns off the offline WordNet synonym lexicon of tier 6.
	NoLexicon bool
	// NoWordGuard lets tiers 4–5 correct tokens that are English verbs in
	// their own right (by default /code is not taken for a typo of /note).
	NoWordGuard bool

	// LexiconMinSupport is the least synonym support a verb needs in the
	// lexicon tier (default 0.5). A shared sense adds
	// 1/(rank of the sense for the token) × 1/(rank for the name).
	LexiconMinSupport float64
	// LexiconMargin is how many times the runner-up's support the best
	// verb needs (default 1.25); closer than that is AMBIGUOUS_VERB.
	LexiconMargin float64

	// Embedder, when set, adds embedding similarity to tier 6 in
	// ResolveContext.
	Embedder Embedder
	// SemanticThreshold is the least cosine similarity an embedding match
	// needs (default 0.85).
	SemanticThreshold float64
	// SemanticMargin is the least lead in cosine similarity over the next
	// verb (default 0.02); closer than that is AMBIGUOUS_VERB.
	SemanticMargin float64

	// MaxCandidates bounds the candidates reported on failure (default 3).
	MaxCandidates int
}

// DefaultOptions returns Options with every default filled in.
func DefaultOptions() Options {
	var o Options
	o.fill()
	return o
}

func (o *Options) fill() {
	if o.Loose == (Allowance{}) {
		o.Loose = Allowance{Short: 2, Long: 3}
	}
	if o.Normal == (Allowance{}) {
		o.Normal = Allowance{Short: 1, Long: 2}
	}
	if o.MinFuzzyLen <= 0 {
		o.MinFuzzyLen = 4
	}
	if o.LongLen <= 0 {
		o.LongLen = 8
	}
	if o.LexiconMinSupport <= 0 {
		o.LexiconMinSupport = 0.5
	}
	if o.LexiconMargin <= 0 {
		o.LexiconMargin = 1.25
	}
	if o.SemanticThreshold <= 0 {
		o.SemanticThreshold = 0.85
	}
	if o.SemanticMargin <= 0 {
		o.SemanticMargin = 0.02
	}
	if o.MaxCandidates <= 0 {
		o.MaxCandidates = 3
	}
}

// allowance returns the edits allowed for a token of n letters against a
// verb of strictness s (for Strict: the near-miss allowance).
func (o *Options) allowance(s Strictness, n int) int {
	if n < o.MinFuzzyLen {
		return 0
	}
	a := o.Normal
	if s == Loose {
		a = o.Loose
	}
	if n >= o.LongLen {
		return max(0, a.Long)
	}
	return max(0, a.Short)
}

// maxAllowance is the largest allowance any strictness gets at n letters.
func (o *Options) maxAllowance(n int) int {
	return max(o.allowance(Loose, n), o.allowance(Normal, n))
}
