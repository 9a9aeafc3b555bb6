package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"

	"github.com/pattern-dialect/dialect"
)

func init() {
	register(&command{
		name:  "verbs",
		usage: "[--instructions] [--config FILE]",
		short: "list the verbs in force, or print agent instructions for a system prompt",
		run:   runVerbs,
	})
}

func runVerbs(ctx context.Context, sio *stdio, args []string) error {
	fs := flag.NewFlagSet("verbs", flag.ContinueOnError)
	fs.SetOutput(sio.err)
	instr := fs.Bool("instructions", false, "print compact agent instructions (descriptions, forms, examples)")
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
	if st, err := os.Stat(cfg.Source); err == nil && !st.IsDir() {
		dir := filepath.Dir(cfg.Source)
		for name, v := range cfg.Dialect.Verbs {
			if v.Grammar != nil && v.Grammar.File != "" && !filepath.IsAbs(v.Grammar.File) {
				g := *v.Grammar
				g.File = filepath.Join(dir, g.File)
				v.Grammar = &g
				cfg.Dialect.Verbs[name] = v
			}
		}
	}
	rt, err := dialect.New(cfg)
	if err != nil {
		return nil, usageErr{err}
	}
	return rt, nil
}
