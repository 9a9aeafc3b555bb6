// Command dialect is the command-line face of the Pattern Dialect runtime:
// it finds slash actions in model output, resolves and parses them, runs
// them, and reports what models failed to say.
//
// Each subcommand lives in a file of its own and registers itself with
// register; main only dispatches and turns errors into exit codes
// (0 ok, 1 a failure of the work, 2 bad usage or configuration).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
)

// command is one subcommand of the CLI.
type command struct {
	name  string // the word after "dialect"
	usage string // one line: arguments and flags
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

// usageErr marks an error as bad usage or configuration (exit status 2).
type usageErr struct{ err error }

func (e usageErr) Error() string { return e.err.Error() }
func (e usageErr) Unwrap() error { return e.err }

// usageError returns an error that makes the process exit with status 2.
func usageError(format string, a ...any) error {
	return usageErr{fmt.Errorf(format, a...)}
}

// parseFlags parses args with fl and refuses positional arguments. help is
// true after -h, when the flag package has printed the usage and the
// command has nothing more to do.
func parseFlags(fl *flag.FlagSet, args []string) (help bool, err error) {
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, usageError("%v", err)
	}
	if fl.NArg() > 0 {
		return false, usageError("unexpected argument %q", fl.Arg(0))
	}
	return false, nil
}

// exitCode maps an error returned by a command to the process exit status.
// A command that must exit with a specific status returns an exitStatus.
func exitCode(err error) int {
	var st exitStatus
	var ue usageErr
	switch {
	case err == nil:
		return 0
	case errors.As(err, &st):
		return int(st)
	case errors.As(err, &ue):
		return 2
	default:
		return 1
	}
}

// exitStatus is returned by a command that has already printed what it had
// to say and needs a specific exit status.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := runMain(ctx, &stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}

// runMain dispatches args to a subcommand and returns the exit status.
func runMain(ctx context.Context, sio *stdio, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printHelp(sio.out)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(sio.err, "dialect: unknown command %q (run 'dialect help')\n", args[0])
		return 2
	}
	err := c.run(ctx, sio, args[1:])
	var st exitStatus
	if err != nil && !errors.As(err, &st) {
		fmt.Fprintf(sio.err, "dialect %s: %v\n", c.name, err)
		if errors.As(err, new(usageErr)) {
			fmt.Fprintf(sio.err, "usage: dialect %s %s\n", c.name, c.usage)
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
	b.WriteString("dialect: a runtime for the Pattern Dialect\n\nusage: dialect COMMAND [ARGS]\n\ncommands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-10s %s\n", n, commands[n].short)
	}
	b.WriteString("\nexit status: 0 ok, 1 a failure of the work, 2 bad usage or configuration\n")
	io.WriteString(w, b.String())
}
