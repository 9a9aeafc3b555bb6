package main

import (
	"context"
	"encoding/json"
	"flag"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/verbs"
)

func init() {
	register(&command{
		name:  "verbs",
		usage: "[--instructions | --json] [--config FILE]",
		short: "list the verbs in force, or print agent instructions for a system prompt",
		run:   runVerbs,
	})
}

func runVerbs(ctx context.Context, sio *stdio, args []string) error {
	fs := flag.NewFlagSet("verbs", flag.ContinueOnError)
	fs.SetOutput(sio.err)
	instr := fs.Bool("instructions", false, "print compact agent instructions (descriptions, forms, examples)")
	asJSON := fs.Bool("json", false, "print one JSON object per verb")
	path := fs.String("config", "", "configuration file (default: lookup order)")
	if err := fs.Parse(args); err != nil {
		return usageErr{err}
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	rt, err := loadRuntime(*path)
	if err != nil {
		return err
	}
	if *instr {
		return rt.Registry().WriteInstructions(sio.out)
	}
	if *asJSON {
		enc := json.NewEncoder(sio.out)
		enc.SetEscapeHTML(false)
		for _, v := range rt.Registry().Verbs() {
			if err := enc.Encode(verbJSON(v)); err != nil {
				return err
			}
		}
		return nil
	}
	return rt.Registry().WriteTable(sio.out)
}

// loadRuntime loads the configuration and builds the runtime from it. A
// custom verb's grammar file is relative to the configuration file's
// directory; the runtime reads it relative to the current one, so the
// paths are made absolute here first.
func loadRuntime(path string) (*dialect.Runtime, error) {
	cfg, err := loadConfig(path)
	if err != nil {
		return nil, err
	}
	rt, err := dialect.New(cfg)
	if err != nil {
		return nil, usageErr{err}
	}
	return rt, nil
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
