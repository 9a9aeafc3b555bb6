package fuzzy

import (
	"math"

	"github.com/pattern-dialect/dialect/codes"
)

// lexiconTier resolves a real English verb through its WordNet synonyms.
//
// Each (shared sense, name) pair adds 1/(rank of the sense for the token ×
// rank for the name) to the name's verb. A verb qualifies with support of
// at least LexiconMinSupport and either two pieces of evidence or one that
// is both words' primary sense: a single secondary sense is how polysemous
// aliases mislead ("appear" shares look's second sense, "become" get's).
func (r *Resolver) lexiconTier(token string, lemmas []string) (Result, bool) {
	if len(lemmas) == 0 {
		return Result{}, false
	}
	type sup struct {
		verb  int32
		name  string
		w     float64
		pairs int     // pieces of evidence
		top   float64 // the strongest single piece
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
						sups[i].pairs++
						sups[i].top = max(sups[i].top, w)
						found = true
					}
				}
				if !found {
					sups = append(sups, sup{verb: v, name: syn.Word, w: w, pairs: 1, top: w})
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
	if sups[0].w < r.opts.LexiconMinSupport || sups[0].pairs < 2 && sups[0].top < 1 {
		return Result{}, false
	}
	if len(sups) > 1 && sups[0].w < sups[1].w*r.opts.LexiconMargin {
		return Result{Input: token, Code: codes.AmbiguousVerb, Candidates: r.trim(cands)}, true
	}
	c := cands[0]
	return Result{Input: token, Verb: c.Verb, Name: c.Name, Tier: TierSemantic, Score: c.Score}, true
}
