package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/pattern-dialect/dialect"
	"github.com/pelletier/go-toml/v2"
)

func init() {
	register(&command{
		name:  "config",
		usage: "[--config FILE] check|show|path",
		short: "check, show or locate the configuration in force",
		run:   runConfig,
	})
}

// loadConfig finds the configuration by the documented lookup order; a
// broken file is a usage error (exit 2).
func loadConfig(explicit string) (*dialect.Config, error) {
	cfg, err := dialect.LoadConfig(dialect.DefaultLookup(explicit))
	if err != nil {
		return nil, usageErr{err}
	}
	return cfg, nil
}

func runConfig(ctx context.Context, sio *stdio, args []string) error {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	fs.SetOutput(sio.err)
	path := fs.String("config", "", "configuration file (default: lookup order)")
	if err := fs.Parse(args); err != nil {
		return usageErr{err}
	}
	if fs.NArg() != 1 {
		return usageError("want one of check, show, path")
	}
	cfg, err := loadConfig(*path)
	if err != nil {
		return err
	}
	switch fs.Arg(0) {
	case "check":
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
		return usageError("unknown config action %q", fs.Arg(0))
	}
	return nil
}
