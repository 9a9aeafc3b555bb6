package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/pattern-dialect/dialect/fuzzy"
)

func init() {
	register(&command{
		name:  "resolve",
		usage: "WORD... [--json]",
		short: "resolve verb tokens to canonical verbs (fuzzy tiers)",
		run:   runResolve,
	})
}

// resolveOutput is one line of `dialect resolve --json` (ARCHITECTURE.md).
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
	fs := flag.NewFlagSet("resolve", flag.ContinueOnError)
	fs.SetOutput(sio.err)
	asJSON := fs.Bool("json", false, "print one JSON object per word")
	config := fs.String("config", "", "configuration file (default: lookup order)")
	// Allow flags after the words: dialect resolve serch --json.
	var words []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return usageError("%v", err)
		}
		args = fs.Args()
		if len(args) > 0 {
			words = append(words, args[0])
			args = args[1:]
		}
	}
	if len(words) == 0 {
		return usageError("no word to resolve")
	}
	rt, err := loadRuntime(*config)
	if err != nil {
		return err
	}
	r := rt.Resolver()
	enc := json.NewEncoder(sio.out)
	failed := false
	for _, w := range words {
		if err := ctx.Err(); err != nil {
			return err
		}
		res := r.Resolve(strings.TrimPrefix(w, "/"))
		if !res.OK() {
			failed = true
		}
		if *asJSON {
			out := resolveOutput{Input: w, Tier: res.Tier.String(), Form: res.Form, Score: round3(res.Score),
				Candidates: res.Candidates, Code: string(res.Code), Message: res.Message()}
			if res.Code == fuzzy.UnknownVerb {
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
			fmt.Fprintf(sio.out, "%s\t%s\t%s\t%.2f\n", fuzzy.Printable(w), res.Verb, res.Tier, res.Score)
		} else {
			fmt.Fprintf(sio.out, "%s\t-\t%s\t%s\n", fuzzy.Printable(w), res.Code, res.Message())
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
