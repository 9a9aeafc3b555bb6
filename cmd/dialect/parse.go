package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pattern-dialect/dialect/intent"
)

func init() {
	register(&command{
		name:  "parse",
		usage: "'/VERB ARGS...' [--json] [--block NAME]... [--config F]",
		short: "parse one action into its typed intent",
		run:   runParse,
	})
}

// parseOutput is what `dialect parse --json` prints, a form outside checks
// rely on: verb, intent, code, message.
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
	f := newFlags(commands["parse"], sio).state()
	asJSON := f.Bool("json", false, "print one JSON object")
	blocks := blockList{}
	f.Var(blocks, "block", "a memory block name to treat as existing (repeatable, or comma-separated)")
	words, err := f.parse(args, 1, -1)
	if err != nil {
		return err
	}
	text := strings.TrimSpace(strings.Join(words, " "))
	if text == "" {
		return usageError("no action to parse")
	}
	if !strings.HasPrefix(text, "/") {
		text = "/" + text
	}
	rt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	r := rt.Parse(ctx, text, blocks)
	if err := ctx.Err(); err != nil {
		return err
	}
	out := parseOutput{Code: string(r.Code), Message: r.Output, Token: r.Token, Pos: r.Pos, Candidates: r.Candidates, Chain: r.Chain, Intent: json.RawMessage("null")}
	if r.Verb != "" {
		out.Verb = &r.Verb
	}
	if r.Code != "" {
		out.Intent = json.RawMessage("null")
	} else if r.Intent != nil {
		b, err := intent.Marshal(r.Intent)
		if err != nil {
			return err
		}
		ro := r.Intent.ReadOnly()
		out.Intent, out.ReadOnly, out.Message = b, &ro, ""
	}
	if *asJSON {
		enc := json.NewEncoder(sio.out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else if out.Code == "" {
		fmt.Fprintf(sio.out, "/%s → %s\n", r.Verb, safeText(string(out.Intent)))
	} else {
		fmt.Fprintf(sio.out, "%s: %s\n", out.Code, safeText(out.Message))
	}
	if out.Code != "" {
		return exitStatus(1)
	}
	return nil
}
