package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pattern-dialect/dialect"

	"github.com/pattern-dialect/dialect/verbs"
)

func init() {
	register(&command{
		name:  "verbs",
		usage: "[--instructions [--agent NAME] | --json] [--config FILE]",
		short: "list the verbs in force, or print agent instructions for a system prompt",
		run:   runVerbs,
	})
}

func runVerbs(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["verbs"], sio).state()
	instr := f.Bool("instructions", false, "print compact agent instructions: what works in this configuration for the agent")
	agent := f.String("agent", envOr("DIALECT_AGENT", ""), "with --instructions: the agent they are for; its authority roles decide what is taught ($DIALECT_AGENT)")
	asJSON := f.Bool("json", false, "print one JSON object per verb")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	rt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	if *instr {
		err := rt.Instructions(ctx, sio.out, *agent)
		if errors.Is(err, dialect.ErrAgentName) {
			return usageErr{err}
		}
		return err
	}
	if *agent != "" && *agent != envOr("DIALECT_AGENT", "") {
		return usageError("--agent goes with --instructions")
	}
	if *asJSON {
		enc := json.NewEncoder(sio.out)
		enc.SetEscapeHTML(false)
		var errs []error
		for _, v := range rt.Verbs().Verbs() {
			o := verbJSON(v)
			if v.HasOperations {
				ops, err := rt.Verbs().Operations(ctx, v.Name)
				if err != nil {
					o.ToolsError = err.Error()
					errs = append(errs, fmt.Errorf("/%s: %w", v.Name, err))
				}
				o.Tools = toolsJSON(ops)
			}
			if err := enc.Encode(o); err != nil {
				return err
			}
		}
		return errors.Join(errs...)
	}
	return rt.Verbs().WriteTable(sio.out)
}

// verbOutput is one line of `dialect verbs --json`.
type verbOutput struct {
	Name               string   `json:"name"`
	Aliases            []string `json:"aliases"`
	Strictness         string   `json:"strictness"`
	Description        string   `json:"description,omitempty"`
	Form               string   `json:"form,omitempty"`
	Examples           []string `json:"examples,omitempty"`
	Custom             bool     `json:"custom"`
	MapsTo             string   `json:"maps_to,omitempty"`
	Authority          bool     `json:"authority"`
	RequiresPermission bool     `json:"requires_permission"`
	Priority           int      `json:"priority,omitempty"`
	Grammar            string   `json:"grammar,omitempty"`
	// Tools are an MCP server's tools; ToolsError says why they could not
	// be listed.
	Tools      []toolOutput `json:"tools,omitempty"`
	ToolsError string       `json:"tools_error,omitempty"`
}

// toolOutput is one tool of an MCP server verb.
type toolOutput struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Params      []verbs.Param `json:"params"`
	ReadOnly    bool          `json:"read_only"`
	Destructive bool          `json:"destructive"`
}

func toolsJSON(ops []verbs.Operation) []toolOutput {
	out := make([]toolOutput, 0, len(ops))
	for _, op := range ops {
		t := toolOutput{Name: op.Name, Description: op.Description, Params: op.Params, ReadOnly: op.ReadOnly, Destructive: op.Destructive}
		if t.Params == nil {
			t.Params = []verbs.Param{}
		}
		out = append(out, t)
	}
	return out
}

func verbJSON(v *verbs.Verb) verbOutput {
	o := verbOutput{Name: v.Name, Aliases: v.Aliases, Strictness: v.Strictness.String(), Description: v.Description,
		Form: v.Form, Examples: v.Examples, Custom: v.Custom, MapsTo: v.MapsTo, Authority: v.Authority,
		RequiresPermission: v.RequiresPermission, Priority: v.Priority}
	if o.Aliases == nil {
		o.Aliases = []string{}
	}
	if v.Grammar != nil {
		o.Grammar = v.Grammar.File + "#" + v.Grammar.Start
	}
	return o
}
