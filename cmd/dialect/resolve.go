package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/fuzzy"
)

func init() {
	register(&command{
		name:  "resolve",
		usage: "WORD... [--json] [--config F]",
		short: "resolve verb tokens to canonical verbs (fuzzy tiers)",
		run:   runResolve,
	})
}

// resolveOutput is one line of `dialect resolve --json`, a form outside
// checks rely on: input, verb, tier, score, candidates, code.
type resolveOutput struct {
	Input      string            `json:"input"`
	Verb       *string           `json:"verb"`
	Tier       string            `json:"tier"`
	Form       string            `json:"form,omitempty"` // the inflected form an edit matched ("canceled")
	Score      float64           `json:"score"`
	Candidates []fuzzy.Candidate `json:"candidates"`
	Code       string            `json:"code"`
	Message    string            `json:"message,omitempty"`
}

func runResolve(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["resolve"], sio).state()
	asJSON := f.Bool("json", false, "print one JSON object per word")
	words, err := f.parse(args, 1, -1)
	if err != nil {
		return err
	}
	rt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	enc := json.NewEncoder(sio.out)
	failed := false
	for _, w := range words {
		if err := ctx.Err(); err != nil {
			return err
		}
		res := rt.Resolve(strings.TrimPrefix(w, "/"))
		if !res.OK() {
			failed = true
		}
		if *asJSON {
			out := resolveOutput{Input: w, Tier: res.Tier.String(), Form: res.Form, Score: round3(res.Score),
				Candidates: res.Candidates, Code: string(res.Code), Message: res.Message()}
			if res.Code == codes.UnknownVerb {
				// The did-you-mean: suggestions only, never run.
				out.Candidates = slices.Clone(res.Suggestions)
			}
			if out.Candidates == nil {
				out.Candidates = []fuzzy.Candidate{}
			}
			for i := range out.Candidates {
				out.Candidates[i].Score = round3(out.Candidates[i].Score)
			}
			if res.OK() {
				v := res.Verb
				out.Verb = &v
			}
			if err := enc.Encode(out); err != nil {
				return err
			}
			continue
		}
		// The word is the user's: escape control characters before they
		// reach a terminal.
		if res.OK() {
			fmt.Fprintf(sio.out, "%s\t%s\t%s\t%.2f\n", oneLine(w), res.Verb, res.Tier, res.Score)
		} else {
			fmt.Fprintf(sio.out, "%s\t-\t%s\t%s\n", oneLine(w), res.Code, oneLine(res.Message()))
		}
	}
	if failed {
		return exitStatus(1)
	}
	return nil
}

func round3(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}
