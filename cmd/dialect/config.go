package main

import (
	"context"
	"fmt"

	"github.com/pattern-dialect/dialect"
	"github.com/pelletier/go-toml/v2"
)

func init() {
	register(&command{
		name:  "config",
		usage: "check|show|path [--config F]",
		short: "check, show or locate the configuration in force",
		run:   runConfig,
	})
}

func runConfig(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["config"], sio).state()
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	cfg, err := f.loadConfig()
	if err != nil {
		return err
	}
	switch pos[0] {
	case "check":
		// Every check dialect run makes: the runtime is built as run
		// builds it (verbs, grammars, executors, tools), without opening
		// the store.
		rt, err := dialect.Open(ctx, cfg)
		if err != nil {
			return usageErr{err}
		}
		rt.Close()
		fmt.Fprintf(sio.out, "%s: ok\n", cfg.Source)
	case "path":
		fmt.Fprintln(sio.out, cfg.Source)
	case "show":
		b, err := toml.Marshal(cfg)
		if err != nil {
			return err
		}
		fmt.Fprintf(sio.out, "# in force, from %s\n%s", cfg.Source, b)
	default:
		return usageError("unknown config action %q: want check, show or path", pos[0])
	}
	return nil
}
