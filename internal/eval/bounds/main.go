// Command bounds measures how the patch applier and the grammar matcher
// grow with their input on the hostile inputs of package stress: time
// (CPU and wall) and peak memory at four sizes of each case, so the growth
// can be read off one table. Each measurement runs in a child process of
// its own (this command, run again with -one), so that its peak resident
// memory is its own; a second child that only makes the input gives the
// memory the input itself takes, and the difference is what the operation
// added.
//
// With -dialect PATH it also runs `dialect patch apply` on the patch cases,
// written to files, and with -gnu PATH GNU patch on the same files.
//
//	go run ./internal/eval/bounds [-case PREFIX] [-dialect PATH] [-gnu PATH]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/pattern-dialect/dialect/grammarbridge"
	"github.com/pattern-dialect/dialect/internal/stress"
	"github.com/pattern-dialect/dialect/patch"
)

// measure is one case at one size.
type measure struct {
	name string // case/size, as -one takes it
	size string // what the size is, for people
	// input makes the inputs; run runs the operation on them and says how
	// it ended.
	input func() any
	run   func(ctx context.Context, in any) string
}

// patchInput is the input of a patch case.
type patchInput struct{ old, diff, want string }

func patchCase(name, size string, make func() patchInput) measure {
	return measure{name: name, size: size, input: func() any { return make() }, run: func(ctx context.Context, in any) string {
		p := in.(patchInput)
		out, _, err := patch.ApplyContext(ctx, p.old, p.diff, patch.Options{Fuzz: patch.DefaultFuzz, IgnoreWhitespace: true})
		return patchOutcome(out, p.want, err)
	}}
}

func patchOutcome(out, want string, err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, patch.ErrAmbiguous):
		return "ambiguous"
	case err != nil && strings.Contains(err.Error(), "too long"):
		return "too long"
	case err != nil:
		return "refused"
	case want != "" && out != want:
		return "WRONG"
	}
	return "applied"
}

// cases lists every measurement.
func cases() []measure {
	var out []measure
	for _, lines := range []int{15000, 30000, 60000, 120000} {
		hunks := lines / 63 // 1,900 hunks against 120,000 lines, as in the issue
		size := fmt.Sprintf("lines=%d hunks=%d", lines, hunks)
		out = append(out, patchCase("patch/sameline/"+strconv.Itoa(lines), size, func() patchInput {
			old, diff := stress.SameLinePatch(lines, hunks)
			return patchInput{old: old, diff: diff}
		}))
	}
	for _, lines := range []int{15000, 30000, 60000, 120000} {
		hunks := lines / 63
		size := fmt.Sprintf("lines=%d hunks=%d", lines, hunks)
		out = append(out, patchCase("patch/sections/"+strconv.Itoa(lines), size, func() patchInput {
			old, diff := stress.AmbiguousPatch(lines, hunks)
			return patchInput{old: old, diff: diff}
		}))
	}
	for _, hunks := range []int{2500, 5000, 10000, 20000} {
		size := fmt.Sprintf("lines=%d hunks=%d", 6*hunks, hunks)
		out = append(out, patchCase("patch/manyhunks/"+strconv.Itoa(hunks), size, func() patchInput {
			old, diff, want := stress.ManyHunks(6*hunks, hunks)
			return patchInput{old, diff, want}
		}))
	}
	for _, hunks := range []int{2000, 4000, 8000, 16000} {
		size := fmt.Sprintf("lines=%d hunks=%d", 2*hunks-1, hunks)
		out = append(out, patchCase("patch/chain/"+strconv.Itoa(hunks), size, func() patchInput {
			old, diff, want := stress.ChainPatch(hunks)
			return patchInput{old, diff, want}
		}))
	}
	for _, kib := range []int{8, 16, 32, 64} {
		out = append(out, measure{name: "grammar/wildcards/" + strconv.Itoa(kib), size: fmt.Sprintf("input=%d KiB", kib),
			input: func() any { return stress.WildcardInput(kib << 10) },
			run: func(ctx context.Context, in any) string {
				g, err := grammarbridge.CompileString("w.agr", stress.WildcardGrammar, grammarbridge.Options{})
				if err != nil {
					return err.Error()
				}
				_, err = g.MatchContext(ctx, in.(string))
				switch {
				case errors.Is(err, grammarbridge.ErrWorkLimit):
					return "work limit"
				case errors.Is(err, context.DeadlineExceeded):
					return "timeout"
				case err != nil:
					return err.Error()
				}
				return "matched"
			}})
	}
	return out
}

func main() {
	one := flag.String("one", "", "(child) run the measurement `case/size` and print its figures")
	inputOnly := flag.Bool("input-only", false, "(child) with -one, only make the input")
	deadline := flag.Duration("deadline", 0, "(child) with -one, the context's deadline")
	prefix := flag.String("case", "", "measure only the cases whose name starts with `prefix`")
	dialect := flag.String("dialect", "", "also run `dialect patch apply` from `path` on the patch cases")
	gnu := flag.String("gnu", "", "also run GNU patch from `path` on the patch cases")
	flag.Parse()
	if *one != "" {
		if err := child(os.Stdout, *one, *inputOnly, *deadline); err != nil {
			fmt.Fprintln(os.Stderr, "bounds:", err)
			os.Exit(1)
		}
		return
	}
	if err := parent(*prefix, *dialect, *gnu); err != nil {
		fmt.Fprintln(os.Stderr, "bounds:", err)
		os.Exit(1)
	}
}

// child makes the input of one measurement and, unless inputOnly, runs it,
// writing "outcome cpu-seconds wall-seconds" to w.
func child(w io.Writer, name string, inputOnly bool, deadline time.Duration) error {
	for _, m := range cases() {
		if m.name != name {
			continue
		}
		in := m.input()
		if inputOnly {
			_, err := fmt.Fprintln(w, "input 0 0")
			return err
		}
		ctx := context.Background()
		if deadline > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, deadline)
			defer cancel()
		}
		cpu0, start := cpuTime(), time.Now()
		outcome := m.run(ctx, in)
		_, err := fmt.Fprintln(w, strings.ReplaceAll(outcome, " ", "_"), (cpuTime() - cpu0).Seconds(), time.Since(start).Seconds())
		return err
	}
	return fmt.Errorf("no case %q", name)
}

// cpuTime returns the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// result is what one child reported and what the parent saw of it.
type result struct {
	outcome   string
	cpu, wall float64 // seconds, of the operation (child) or the process
	rss       int64   // peak resident memory, KiB
}

// spawn runs argv and returns its report (the last line of its output,
// when it has one) and its peak memory and CPU time.
func spawn(argv []string, stdout *os.File) (result, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var out strings.Builder
	if stdout != nil {
		cmd.Stdout = stdout
	} else {
		cmd.Stdout = &out
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start).Seconds()
	var r result
	if cmd.ProcessState == nil {
		return r, err
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru != nil {
		r.rss = ru.Maxrss
		r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	r.wall = wall
	r.outcome = "exit " + strconv.Itoa(cmd.ProcessState.ExitCode())
	if stdout == nil {
		if err != nil {
			return r, fmt.Errorf("%v: %v: %s", argv, err, errb.String())
		}
		f := strings.Fields(out.String())
		if len(f) != 3 {
			return r, fmt.Errorf("%v printed %q", argv, out.String())
		}
		r.outcome = f[0]
		r.cpu, _ = strconv.ParseFloat(f[1], 64)
		r.wall, _ = strconv.ParseFloat(f[2], 64)
	}
	return r, nil
}

func parent(prefix, dialect, gnu string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tsize\toutcome\tcpu ms\twall ms\tpeak RSS MiB\tover input MiB\t")
	var largestChain string
	for _, m := range cases() {
		if !strings.HasPrefix(m.name, prefix) {
			continue
		}
		if strings.HasPrefix(m.name, "patch/chain/") {
			largestChain = m.name
		}
		base, err := spawn([]string{self, "-one", m.name, "-input-only"}, nil)
		if err != nil {
			return err
		}
		r, err := spawn([]string{self, "-one", m.name}, nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t\n", m.name[:strings.LastIndexByte(m.name, '/')], m.size, r.outcome,
			r.cpu*1e3, r.wall*1e3, float64(r.rss)/1024, float64(r.rss-base.rss)/1024)
		if strings.HasPrefix(m.name, "patch/") && (dialect != "" || gnu != "") {
			if err := external(tw, m, dialect, gnu); err != nil {
				return err
			}
		}
	}
	tw.Flush()
	if largestChain != "" {
		// The slowest patch case, stopped by a deadline: how soon after it
		// the application returns.
		const d = 5 * time.Millisecond
		r, err := spawn([]string{self, "-one", largestChain, "-deadline", d.String()}, nil)
		if err != nil {
			return err
		}
		fmt.Printf("\n%s with a %v deadline: %s after %.1f ms (%.1f ms after the deadline)\n", largestChain, d, r.outcome, r.wall*1e3, r.wall*1e3-float64(d.Milliseconds()))
	}
	return nil
}

// external runs `dialect patch apply` and GNU patch on m's input, written
// to files; each row is the whole process.
func external(tw *tabwriter.Writer, m measure, dialect, gnu string) error {
	dir, err := os.MkdirTemp("", "bounds")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	in := m.input().(patchInput)
	oldPath, diffPath := filepath.Join(dir, "old"), filepath.Join(dir, "diff")
	if err := os.WriteFile(oldPath, []byte(in.old), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(diffPath, []byte(in.diff), 0o644); err != nil {
		return err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	for _, x := range []struct{ name, path string }{{"  dialect patch apply", dialect}, {"  GNU patch", gnu}} {
		if x.path == "" {
			continue
		}
		argv := []string{x.path, "patch", "apply", "-l", "--file", oldPath, "--patch", diffPath}
		if strings.HasPrefix(strings.TrimSpace(x.name), "GNU") {
			argv = []string{x.path, "-s", "-l", "-f", "-o", "-", oldPath, diffPath}
		}
		r, _ := spawn(argv, devnull)
		fmt.Fprintf(tw, "%s\t\t%s\t%.1f\t%.1f\t%.1f\t\t\n", x.name, r.outcome, r.cpu*1e3, r.wall*1e3, float64(r.rss)/1024)
	}
	return nil
}
