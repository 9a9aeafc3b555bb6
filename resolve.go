package dialect

import (
	"slices"
	"strings"
	"sync"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/morph"
	"github.com/pattern-dialect/dialect/verbs"
)

// word is what the resolve stage made of a verb token: the verbs it may
// mean, or the resolver's failure. It is computed once per token of a
// message, when the scanner first asks, and read again by every later
// stage of that message.
type word struct {
	// verbs are the verbs the token means: one, or several that claim the
	// same name (remember: recall and context), to be settled by argument
	// shape when the action is parsed. Empty when the token is no verb.
	verbs []string
	tier  fuzzy.Tier
	res   fuzzy.Result // the resolver's answer: its code and candidates
}

// ok reports whether the token names a verb.
func (w word) ok() bool { return len(w.verbs) > 0 }

// resolve is the resolve stage: the one place a verb token becomes verbs.
// A phrase of several words is a verb only when it matches a name up to
// case and word form ("search in" must not become "search web" by edit
// distance and swallow the "in"). An alias several verbs claim, exactly or
// through its word forms and spelling ("remember", "remembered",
// "remeber"), means each of them; two different names tied by edit
// distance or sound are never settled: that would be a guess.
func (rt *Runtime) resolve(token string) word {
	r := rt.resolver().Resolve(token)
	w := word{tier: r.Tier, res: r}
	multi := strings.ContainsAny(token, " \t")
	switch {
	case r.OK():
		if multi && r.Tier > fuzzy.TierSpelling {
			return word{res: fuzzy.Result{Input: token, Code: codes.UnknownVerb}}
		}
		w.verbs = []string{r.Verb}
	case r.Code == codes.AmbiguousVerb:
		if cs := rt.registry.Claimants(token); len(cs) > 1 {
			w.verbs, w.tier = cs, fuzzy.TierExact
			return w
		}
		sameName, tier := true, fuzzy.TierNone
		for _, c := range r.Candidates {
			sameName = sameName && c.Name == r.Candidates[0].Name
			tier = max(tier, c.Tier)
		}
		if tier > fuzzy.TierSpelling && !sameName {
			return w // different names tied by edit distance or sound: a guess
		}
		for _, c := range r.Candidates {
			if !slices.Contains(w.verbs, c.Verb) {
				w.verbs = append(w.verbs, c.Verb)
			}
		}
		if multi && tier > fuzzy.TierSpelling {
			w.verbs = nil
		}
		w.tier = tier
	}
	return w
}

// code is the failure code of a token that names no verb.
func (w word) code() codes.Code {
	if w.ok() {
		return ""
	}
	if w.res.Code == "" {
		return codes.UnknownVerb
	}
	return w.res.Code
}

// candidates are the verbs an unresolved token may have meant: the tied
// verbs of AMBIGUOUS_VERB, the suggestions of UNKNOWN_VERB.
func (w word) candidates() []string {
	var out []string
	for _, c := range w.offered() {
		if !slices.Contains(out, c.Verb) {
			out = append(out, c.Verb)
		}
	}
	return out
}

// offered is what the model is offered for an unresolved token: the
// suggestions of UNKNOWN_VERB (never settled nor run), else the resolver's
// candidates.
func (w word) offered() []fuzzy.Candidate {
	if w.res.Code == codes.UnknownVerb {
		return w.res.Suggestions
	}
	return w.res.Candidates
}

// vocab adapts the resolve stage to detect.Vocabulary for one message:
// each token is resolved once, and the pipeline reads the same answer
// afterwards. It is safe for concurrent use: an action run early reads it
// while the scanner goes on.
type vocab struct {
	rt    *Runtime
	mu    sync.Mutex
	words map[string]word
}

func (rt *Runtime) newVocab() *vocab { return &vocab{rt: rt, words: map[string]word{}} }

// word returns the token's resolution, resolving it on first use.
func (v *vocab) word(token string) word {
	v.mu.Lock()
	defer v.mu.Unlock()
	w, ok := v.words[token]
	if !ok {
		w = v.rt.resolve(token)
		v.words[token] = w
	}
	return w
}

// Resolve implements detect.Vocabulary: the first verb a token means.
func (v *vocab) Resolve(token string) (string, bool) {
	w := v.word(token)
	if !w.ok() {
		return "", false
	}
	return w.verbs[0], true
}

// Extends implements detect.Vocabulary: multi-word names are extended
// word by word over the registry's names, allowing an inflected first
// word.
func (v *vocab) Extends(prefix string) bool {
	return v.rt.prefixes.extends(prefix)
}

// prefixes are the proper word prefixes of the registry's multi-word
// names ("search" of "search web").
type prefixes map[string]bool

func newPrefixes(reg *verbs.Registry) prefixes {
	p := prefixes{}
	for _, vb := range reg.Verbs() {
		for _, name := range append([]string{vb.Name}, vb.Aliases...) {
			words := strings.Fields(name)
			for i := 1; i < len(words); i++ {
				p[strings.Join(words[:i], " ")] = true
			}
		}
	}
	return p
}

func (p prefixes) extends(prefix string) bool {
	words := strings.Fields(strings.ToLower(prefix))
	if len(words) == 0 {
		return false
	}
	if p[strings.Join(words, " ")] {
		return true
	}
	rest := strings.Join(words[1:], " ")
	for _, stem := range morph.Stems(words[0]) {
		if p[strings.TrimSpace(stem+" "+rest)] {
			return true
		}
	}
	return false
}
