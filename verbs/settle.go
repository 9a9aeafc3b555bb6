package verbs

import (
	"context"
	"errors"
	"fmt"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// ParseAction parses an action whose verb token resolved to the verbs
// given: one verb, or the verbs that claim the alias it names (remember:
// recall and context), which Settle decides between by argument shape,
// then priority. It returns the verb the action is.
func (r *Registry) ParseAction(ctx context.Context, verbs []string, in Input) (string, intent.Intent, error) {
	switch len(verbs) {
	case 0:
		return "", nil, perr(codes.UnknownVerb, "", 0, "/%s is not a verb", in.Token)
	case 1:
	default:
		return r.Settle(ctx, verbs, in)
	}
	verb := verbs[0]
	out, err := r.Parse(ctx, verb, in)
	if _, isRecall := out.(intent.Recall); isRecall && verb == "fetch" {
		verb = "recall" // /get NAME reads memory
	}
	return verb, out, err
}

// dropFallbacks removes the fits that only matched as a search of the
// whole text (recall's and search's catch-all form) when another verb
// matched a specific form: "/remember human "a" -> "b"" is a context
// replace, not a recall search for that text.
func dropFallbacks[F any](fits []F, in func(F) intent.Intent) []F {
	specific := fits[:0:0]
	for _, f := range fits {
		it := in(f)
		if c, ok := it.(intent.Custom); ok && c.Inner != nil {
			it = c.Inner
		}
		switch v := it.(type) {
		case intent.Search:
			continue
		case intent.Recall:
			if v.Op == intent.RecallSearch {
				continue
			}
		}
		specific = append(specific, f)
	}
	if len(specific) == 0 {
		return fits
	}
	return specific
}

// Settle decides between verbs that claim the same alias (docs/language.md §5):
// first by argument shape (the verbs whose grammar parses the arguments,
// a specific form before a catch-all search), then by configured priority; a tie left is AMBIGUOUS_VERB naming the
// candidates. Errors other than parse failures stop it.
func (r *Registry) Settle(ctx context.Context, verbs []string, in Input) (string, intent.Intent, error) {
	type fit struct {
		verb string
		in   intent.Intent
	}
	var fits []fit
	var firstErr error
	for _, name := range verbs {
		out, err := r.Parse(ctx, name, in)
		var pe *ParseError
		switch {
		case err == nil:
			fits = append(fits, fit{name, out})
		case errors.As(err, &pe):
			if firstErr == nil {
				firstErr = err
			}
		default:
			return "", nil, err
		}
	}
	fits = dropFallbacks(fits, func(f fit) intent.Intent { return f.in })
	switch len(fits) {
	case 1:
		return fits[0].verb, fits[0].in, nil
	case 0:
		if len(verbs) == 1 {
			return verbs[0], nil, firstErr
		}
	}
	pool := fits
	if len(pool) == 0 {
		for _, n := range verbs {
			pool = append(pool, fit{verb: n})
		}
	}
	best, tie := -1, false
	var top fit
	for _, f := range pool {
		p := 0
		if v := r.by[f.verb]; v != nil {
			p = v.Priority
		}
		switch {
		case p > best:
			best, top, tie = p, f, false
		case p == best:
			tie = true
		}
	}
	if !tie && top.in != nil {
		return top.verb, top.in, nil
	}
	if !tie && len(fits) == 0 {
		// Priority picks the verb, but its arguments do not parse.
		out, err := r.Parse(ctx, top.verb, in)
		return top.verb, out, err
	}
	names := make([]string, 0, len(pool))
	for _, f := range pool {
		names = append(names, f.verb)
	}
	slashed := make([]string, len(names))
	for i, n := range names {
		slashed[i] = "/" + n
	}
	return "", nil, &ParseError{Code: codes.AmbiguousVerb, Candidates: names,
		Message: fmt.Sprintf("I couldn't tell if you meant %s — which one?", orList(slashed))}
}
