package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pattern-dialect/dialect/patch"
)

func init() {
	register(&command{
		name:  "patch",
		usage: "apply --file ORIGINAL --patch DIFF [--strict] [--fuzz N] [-l] [-v]\ndiff OLD NEW [-U N]",
		short: "apply and create unified diffs",
		run:   runPatch,
	})
}

// runPatch dispatches "dialect patch apply" and "dialect patch diff".
func runPatch(ctx context.Context, sio *stdio, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		_, err := newFlags(commands["patch"], sio).parse(args, 1, -1)
		return err
	}
	switch args[0] {
	case "apply":
		return runPatchApply(ctx, sio, args[1:])
	case "diff":
		return runPatchDiff(sio, args[1:])
	}
	return usageError("unknown patch subcommand %q: want apply or diff", args[0])
}

// runPatchApply writes the patched text to stdout. Nothing is written when
// the patch cannot be applied safely, or ctx ends first: the whole text is
// built first.
func runPatchApply(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags(commands["patch"], sio)
	file := fs.String("file", "", "the original text (- for stdin)")
	diff := fs.String("patch", "", "the unified diff (- for stdin)")
	strict := fs.Bool("strict", false, "apply every hunk at its stated line, byte for byte, or fail")
	fuzz := fs.Int("fuzz", patch.DefaultFuzz, "most outer context lines a hunk may lose at each end")
	var ignoreWS bool
	fs.BoolVar(&ignoreWS, "l", false, "let context and removed lines differ in whitespace only (GNU patch -l)")
	fs.BoolVar(&ignoreWS, "ignore-whitespace", false, "same as -l")
	verbose := fs.Bool("v", false, "say on stderr where each hunk went when it was not where the diff said")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	switch {
	case *file == "" || *diff == "":
		return usageError("patch apply needs --file and --patch")
	case *file == "-" && *diff == "-":
		return usageError("only one of --file and --patch can be stdin")
	case *fuzz < 0:
		return usageError("--fuzz must be 0 or more")
	}
	original, err := patchReadInput(sio, *file)
	if err != nil {
		return err
	}
	diffText, err := patchReadInput(sio, *diff)
	if err != nil {
		return err
	}
	out, rep, err := patch.ApplyContext(ctx, original, diffText, patch.Options{Strict: *strict, Fuzz: *fuzz, IgnoreWhitespace: ignoreWS})
	if errors.Is(err, patch.ErrAmbiguous) {
		return fmt.Errorf("%w (--strict applies a diff whose line numbers are right where they say)", err)
	}
	if err != nil {
		return err
	}
	if *verbose && !rep.Strict {
		for _, h := range rep.Hunks {
			fmt.Fprintf(sio.err, "hunk #%d applied at line %d (offset %d, fuzz %d, whitespace ignored %v)\n", h.Hunk, h.Line, h.Offset, h.Fuzz, h.Whitespace)
		}
	}
	_, err = io.WriteString(sio.out, out)
	return err
}

// runPatchDiff writes the unified diff from OLD to NEW; nothing when they
// are equal. The exit status is 0 either way: 1 means a failure here.
func runPatchDiff(sio *stdio, args []string) error {
	fs := newFlags(commands["patch"], sio)
	context := fs.Int("U", patch.DefaultContext, "lines of context around each change")
	rest, err := fs.parse(args, 2, 2)
	if err != nil {
		return err
	}
	if *context < 0 {
		return usageError("-U must be 0 or more")
	}
	if rest[0] == "-" && rest[1] == "-" {
		return usageError("only one of OLD and NEW can be stdin")
	}
	old, err := patchReadInput(sio, rest[0])
	if err != nil {
		return err
	}
	updated, err := patchReadInput(sio, rest[1])
	if err != nil {
		return err
	}
	p := patch.Diff(old, updated, *context)
	p.OldName, p.NewName = rest[0], rest[1]
	_, err = io.WriteString(sio.out, p.String())
	return err
}

// patchReadInput reads a file, or stdin for "-".
func patchReadInput(sio *stdio, name string) (string, error) {
	if name == "-" {
		b, err := io.ReadAll(sio.in)
		return string(b), err
	}
	b, err := os.ReadFile(name)
	return string(b), err
}
