// Command dialect is the command-line face of the Pattern Dialect runtime:
// it finds slash actions in model output, resolves and parses them, runs
// them, and reports what models failed to say.
//
// Each subcommand lives in a file of its own and registers itself with
// register; main only dispatches and turns errors into exit codes
// (0 ok, 1 a failure of the work, 2 bad usage or configuration, 3 halted).
// Every command parses its flags with one helper (flags.go): flags may come
// before or after arguments, -h and --help print the usage to stdout, and
// --config and --db mean the same everywhere. The commands call the
// runtime's pipeline and format what it decided; they decide nothing.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
)

// command is one subcommand of the CLI.
type command struct {
	name  string // the word after "dialect"
	usage string // arguments and flags, one line per form
	short string // one sentence for the command list
	run   func(ctx context.Context, sio *stdio, args []string) error
}

// stdio is the process's standard streams, passed in so tests can run
// commands in-process.
type stdio struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// commands holds every registered subcommand by name. It is filled by init
// functions in this package only and read-only afterwards.
var commands = map[string]*command{}

// register adds c to the command table; a duplicate name is a programming
// error.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("dialect: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func init() {
	register(&command{name: "version", usage: "", short: "print the version of this build", run: runVersion})
}

// usageErr marks an error as bad usage or configuration (exit status 2).
type usageErr struct{ err error }

func (e usageErr) Error() string { return e.err.Error() }
func (e usageErr) Unwrap() error { return e.err }

// usageError returns an error that makes the process exit with status 2.
func usageError(format string, a ...any) error {
	return usageErr{fmt.Errorf(format, a...)}
}

// exitStatus is returned by a command that has already printed what it had
// to say and needs a specific exit status.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// exitCode maps an error returned by a command to the process exit status.
func exitCode(err error) int {
	var st exitStatus
	var ue usageErr
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &st):
		return int(st)
	case errors.As(err, &ue):
		return 2
	default:
		return 1
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := runMain(ctx, &stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}

// runMain dispatches args to a subcommand and returns the exit status.
func runMain(ctx context.Context, sio *stdio, args []string) int {
	if len(args) == 0 {
		printHelp(sio.err)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				printUsage(sio.out, c)
				return 0
			}
		}
		printHelp(sio.out)
		return 0
	case "--version", "-version":
		args = []string{"version"}
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(sio.err, "dialect: unknown command %q (run 'dialect help')\n", args[0])
		return 2
	}
	err := c.run(ctx, sio, args[1:])
	var st exitStatus
	if err != nil && !errors.As(err, &st) && !errors.Is(err, errHelp) {
		fmt.Fprintf(sio.err, "dialect %s: %v\n", c.name, err)
		if errors.As(err, new(usageErr)) {
			fmt.Fprintf(sio.err, "usage: %s\n", strings.ReplaceAll(usageLines(c), "\n", "\n       "))
		}
	}
	return exitCode(err)
}

func printHelp(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("dialect: a runtime for the Pattern Dialect\n\nusage: dialect COMMAND [ARGS] [FLAGS]\n\ncommands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-10s %s\n", n, commands[n].short)
	}
	b.WriteString("\n'dialect COMMAND -h' shows a command's flags.\n")
	b.WriteString("exit status: 0 ok, 1 a failure of the work, 2 bad usage or configuration, 3 halted\n")
	io.WriteString(w, b.String())
}

// usageLines is a command's usage: one line per form.
func usageLines(c *command) string {
	var lines []string
	for _, form := range strings.Split(c.usage, "\n") {
		lines = append(lines, strings.TrimSpace("dialect "+c.name+" "+form))
	}
	return strings.Join(lines, "\n")
}

// version is the module version of this build, with the VCS revision when
// the build recorded one.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" {
		v += " (" + rev[:min(12, len(rev))] + modified + ")"
	}
	return v + " " + bi.GoVersion
}

func runVersion(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["version"], sio)
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	fmt.Fprintln(sio.out, "dialect "+version())
	return nil
}
