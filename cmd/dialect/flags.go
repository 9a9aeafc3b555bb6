package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pattern-dialect/dialect"
)

// errHelp is returned by flags.parse after -h or --help, when the usage
// has been printed to stdout: the command has nothing more to do, and the
// process exits 0.
var errHelp = errors.New("help shown")

// flags is the one way every command reads its command line.
type flags struct {
	*flag.FlagSet
	cmd *command
	sio *stdio

	// config and db are --config and --db, for commands that open the
	// runtime (see state).
	config, db string
}

// newFlags returns the flag set of command c.
func newFlags(c *command, sio *stdio) *flags {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flags{FlagSet: fs, cmd: c, sio: sio}
}

// state adds --config and --db: the configuration file (default: the
// lookup order) and the store (default: [store] path, $DIALECT_DB, the XDG
// state directory).
func (f *flags) state() *flags {
	f.StringVar(&f.config, "config", "", "configuration file (default: $DIALECT_CONFIG, ./dialect.toml, $XDG_CONFIG_HOME/dialect/dialect.toml, the embedded default)")
	f.StringVar(&f.db, "db", "", "store: a SQLite file or a postgres:// URL (default: [store] path, $DIALECT_DB, $XDG_STATE_HOME/dialect/dialect.db)")
	return f
}

// parse reads args, flags before, between and after the arguments, and
// returns the arguments; "--" ends the flags. It refuses fewer than min or
// more than max arguments (max < 0: no limit). After -h or --help it
// prints the usage to stdout and returns errHelp.
func (f *flags) parse(args []string, min, max int) ([]string, error) {
	var pos []string
	for {
		err := f.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			f.printUsage(f.sio.out)
			return nil, errHelp
		}
		if err != nil {
			return nil, usageErr{err}
		}
		rest := f.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	switch {
	case len(pos) < min:
		return nil, usageError("too few arguments")
	case max >= 0 && len(pos) > max:
		return nil, usageError("unexpected argument %q", pos[max])
	}
	return pos, nil
}

// printUsage writes the command's usage and its flags.
func (f *flags) printUsage(w io.Writer) {
	printUsage(w, f.cmd)
	var b strings.Builder
	f.VisitAll(func(fl *flag.Flag) {
		name, usage := flag.UnquoteUsage(fl)
		dash := "--"
		if len(fl.Name) == 1 {
			dash = "-"
		}
		fmt.Fprintf(&b, "  %s%s", dash, fl.Name)
		if name != "" {
			b.WriteString(" " + name)
		}
		fmt.Fprintf(&b, "\n    \t%s", usage)
		if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "0" {
			fmt.Fprintf(&b, " (default %q)", fl.DefValue)
		}
		b.WriteByte('\n')
	})
	if b.Len() > 0 {
		io.WriteString(w, "\nflags:\n"+b.String())
	}
}

// printUsage writes a command's usage lines and what it does.
func printUsage(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", strings.ReplaceAll(usageLines(c), "\n", "\n       "), c.short)
}

// loadConfig finds the configuration by the documented lookup order; a
// broken file is a usage error (exit 2).
func (f *flags) loadConfig() (*dialect.Config, error) {
	cfg, err := dialect.LoadConfig(dialect.DefaultLookup(f.config))
	if err != nil {
		return nil, usageErr{err}
	}
	if f.db != "" {
		cfg.Store.Path = f.db
	}
	return cfg, nil
}

// open loads the configuration and opens the runtime: the one way every
// command gets one. Deliveries to stdout targets go to the command's
// stdout unless it passes another WithOutput.
func (f *flags) open(ctx context.Context, opts ...dialect.Option) (*dialect.Runtime, error) {
	cfg, err := f.loadConfig()
	if err != nil {
		return nil, err
	}
	return f.openConfig(ctx, cfg, opts...)
}

// openConfig opens the runtime on cfg, which the command has loaded with
// loadConfig and needed before (dialect proxy opens the store from it).
func (f *flags) openConfig(ctx context.Context, cfg *dialect.Config, opts ...dialect.Option) (*dialect.Runtime, error) {
	rt, err := dialect.Open(ctx, cfg, append([]dialect.Option{dialect.WithOutput(f.sio.out)}, opts...)...)
	var ce *dialect.ConfigError
	if errors.As(err, &ce) {
		return nil, usageErr{err}
	}
	return rt, err
}

// envOr returns $name, or def when it is unset.
func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// subcommand takes the first of args that names one of subs out of args,
// so that flags may come before it (`dialect memory --db x ls`); "" when
// none does.
func subcommand(args []string, subs ...string) (string, []string) {
	for i, a := range args {
		for _, s := range subs {
			if a == s {
				return s, append(append([]string(nil), args[:i]...), args[i+1:]...)
			}
		}
		if a == "--" {
			break
		}
	}
	return "", args
}
