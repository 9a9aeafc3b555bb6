package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/verbs"
)

func init() {
	register(&command{
		name:  "parse",
		usage: "'/VERB ARGS...' [--json] [--config FILE] [--block NAME]...",
		short: "parse one action into its typed intent",
		run:   runParse,
	})
}

// parseOutput is what `dialect parse --json` prints (ARCHITECTURE.md).
type parseOutput struct {
	Verb       *string         `json:"verb"`
	Intent     json.RawMessage `json:"intent"`
	Code       string          `json:"code"`
	Message    string          `json:"message"`
	Token      string          `json:"token,omitempty"`
	Pos        int             `json:"pos,omitempty"`
	Candidates []string        `json:"candidates,omitempty"`
	Chain      string          `json:"chain,omitempty"`
	ReadOnly   *bool           `json:"read_only,omitempty"`
}

// blockList is the --block flag: memory blocks to treat as existing.
type blockList map[string]bool

func (b blockList) String() string { return "" }
func (b blockList) Set(s string) error {
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			b[n] = true
		}
	}
	return nil
}
func (b blockList) HasBlock(_ context.Context, name string) (bool, error) { return b[name], nil }

func runParse(ctx context.Context, sio *stdio, args []string) error {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	fs.SetOutput(sio.err)
	asJSON := fs.Bool("json", false, "print one JSON object")
	path := fs.String("config", "", "configuration file (default: lookup order)")
	blocks := blockList{}
	fs.Var(blocks, "block", "a memory block name to treat as existing (repeatable, or comma-separated)")
	var words []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return usageErr{err}
		}
		args = fs.Args()
		if len(args) > 0 {
			words = append(words, args[0])
			args = args[1:]
		}
	}
	text := strings.TrimSpace(strings.Join(words, " "))
	if text == "" {
		return usageError("no action to parse")
	}
	if !strings.HasPrefix(text, "/") {
		text = "/" + text
	}
	rt, err := loadRuntime(*path)
	if err != nil {
		return err
	}
	out := parseAction(ctx, rt, text, blocks)
	if err := ctx.Err(); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(sio.out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else if out.Code == "" {
		fmt.Fprintf(sio.out, "/%s → %s\n", *out.Verb, out.Intent)
	} else {
		fmt.Fprintf(sio.out, "%s: %s\n", out.Code, out.Message)
	}
	if out.Code != "" {
		return exitStatus(1)
	}
	return nil
}

// runtimeParts is what parseAction needs of the runtime.
type runtimeParts interface {
	Vocabulary() detect.Vocabulary
	DetectOptions() detect.Options
	Resolver() *fuzzy.Resolver
	Registry() *verbs.Registry
}

// parseAction scans text as one action, resolves its verb and parses its
// arguments, reporting the first failure by its DIALECT.md §6 code.
func parseAction(ctx context.Context, rt runtimeParts, text string, blocks verbs.Blocks) parseOutput {
	fail := func(code, msg string) parseOutput {
		return parseOutput{Code: code, Message: msg, Intent: json.RawMessage("null")}
	}
	acts := detect.Scan(rt.Vocabulary(), rt.DetectOptions(), []byte(text))
	if len(acts) == 0 || acts[0].Span.Start != 0 {
		return fail(string(verbs.MalformedSyntax), fmt.Sprintf("%q is not an action: write /verb arguments", text))
	}
	a := acts[0]
	out := func(o parseOutput) parseOutput {
		o.Token, o.Chain = a.Token, a.Chain
		return o
	}
	switch a.Reason {
	case detect.InvalidMarker:
		return out(fail("PERMISSION_MARKER_INVALID", fmt.Sprintf("%s is not a permission marker (., ?, ?ask, !)", a.Marker)))
	case detect.TooLarge:
		return out(fail(string(verbs.InputTooLarge), "the action's arguments and content are too large"))
	case detect.Unterminated:
		return out(fail(string(verbs.MalformedSyntax), `the """ block is never closed`))
	}
	in := verbs.Input{Token: a.Token, Args: a.Args, Content: a.Content, Kind: verbs.ContentKind(a.Kind), Marker: a.Marker, Blocks: blocks}
	reg := rt.Registry()
	var verb string
	var it intent.Intent
	var err error
	if a.Verb != "" {
		verb, it, err = reg.ParseAction(ctx, a.Token, a.Verb, in)
	} else {
		res := rt.Resolver().Resolve(a.Token)
		switch {
		case res.OK():
			verb, it, err = reg.ParseAction(ctx, a.Token, res.Verb, in)
		case res.Code == fuzzy.AmbiguousVerb:
			var cands []string
			for _, c := range res.Candidates {
				if !contains(cands, c.Verb) {
					cands = append(cands, c.Verb)
				}
			}
			verb, it, err = reg.Settle(ctx, cands, in)
		default:
			o := fail(string(res.Code), res.Message())
			for _, c := range res.Candidates {
				o.Candidates = append(o.Candidates, c.Verb)
			}
			return out(o)
		}
	}
	if err != nil {
		var pe *verbs.ParseError
		if !errors.As(err, &pe) {
			return out(fail(string(verbs.MalformedSyntax), err.Error()))
		}
		o := fail(string(pe.Code), pe.Message)
		o.Pos, o.Candidates = pe.Pos, pe.Candidates
		if verb != "" {
			o.Verb = &verb
		}
		return out(o)
	}
	b, err := intent.Marshal(it)
	if err != nil {
		return out(fail(string(verbs.MalformedSyntax), err.Error()))
	}
	ro := it.ReadOnly()
	return out(parseOutput{Verb: &verb, Intent: b, ReadOnly: &ro})
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
