package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/failures"
)

func init() {
	register(&command{
		name:  "failures",
		usage: "[list] [--since 7d] [--until T] [--code C] [--model M] [--agent A] [--session S] [--verb V] [--token T] [--limit N] [--json] [--db PATH]\nprune --older-than 90d [--dry-run] [--db PATH]",
		short: "list and filter the failure log, or prune old rows",
		run:   runFailures,
	})
}

func runFailures(ctx context.Context, sio *stdio, args []string) error {
	if len(args) > 0 && args[0] == "prune" {
		return runFailuresPrune(ctx, sio, args[1:])
	}
	if len(args) > 0 && args[0] == "list" {
		args = args[1:]
	}
	fl := newFlags(commands["failures"], sio).state()
	since := fl.String("since", "", "only rows since: an age (7d, 12h) or a date")
	until := fl.String("until", "", "only rows before: an age or a date")
	code := fl.String("code", "", "failure code, e.g. UNKNOWN_VERB")
	model := fl.String("model", "", "model")
	agent := fl.String("agent", "", "agent")
	session := fl.String("session", "", "session")
	verb := fl.String("verb", "", "canonical verb")
	token := fl.String("token", "", "subject: the unknown verb, modifier, marker...")
	limit := fl.Int("limit", 50, "at most this many rows, newest first (0: all)")
	oldest := fl.Bool("oldest", false, "oldest first")
	asJSON := fl.Bool("json", false, "one JSON object per row, one per line")
	if _, err := fl.parse(args, 0, 0); err != nil {
		return err
	}
	if *limit < 0 {
		return usageError("--limit must be ≥ 0")
	}
	now := time.Now()
	f := failures.Filter{Code: codes.Code(strings.ToUpper(*code)), Model: *model, Agent: *agent,
		Session: *session, Verb: *verb, Subject: *token, Limit: *limit, Oldest: *oldest}
	var err error
	if *since != "" {
		if f.Since, err = failures.ParseSince(*since, now); err != nil {
			return usageError("--since: %v", err)
		}
	}
	if *until != "" {
		if f.Until, err = failures.ParseSince(*until, now); err != nil {
			return usageError("--until: %v", err)
		}
	}
	rt, err := fl.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	log, err := rt.Failures(ctx)
	if err != nil {
		return err
	}

	enc := json.NewEncoder(sio.out)
	n := 0
	err = log.List(ctx, f, func(r failures.Failure) error {
		n++
		if *asJSON {
			return enc.Encode(r)
		}
		return writeFailureLine(sio.out, r)
	})
	if err != nil {
		return err
	}
	if !*asJSON && n == 0 {
		fmt.Fprintln(sio.err, "dialect failures: no rows match")
	}
	return nil
}

// writeFailureLine prints one row for people: time, code, model, agent,
// the action, and the context hint.
func writeFailureLine(w io.Writer, r failures.Failure) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-18s %-14s %-10s %s", r.Time.Format("2006-01-02 15:04:05"), r.Code,
		oneLine(orDash(r.Model)), oneLine(orDash(r.Agent)), oneLine(clipText(r.Raw, 80)))
	if r.Context != "" {
		fmt.Fprintf(&b, "   ← %s", oneLine(clipText(r.Context, 60)))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func runFailuresPrune(ctx context.Context, sio *stdio, args []string) error {
	fl := newFlags(commands["failures"], sio).state()
	older := fl.String("older-than", "", "prune: delete rows older than this age (90d, 12w) or date (required)")
	dry := fl.Bool("dry-run", false, "prune: only count the rows that would be deleted")
	if _, err := fl.parse(args, 0, 0); err != nil {
		return err
	}
	if *older == "" {
		return usageError("prune needs --older-than (e.g. 90d)")
	}
	before, err := failures.ParseSince(*older, time.Now())
	if err != nil {
		return usageError("--older-than: %v", err)
	}
	rt, err := fl.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	log, err := rt.Failures(ctx)
	if err != nil {
		return err
	}
	if *dry {
		n, err := log.Count(ctx, failures.Filter{Until: before})
		if err != nil {
			return err
		}
		fmt.Fprintf(sio.out, "would delete %d rows older than %s\n", n, before.UTC().Format(time.RFC3339))
		return nil
	}
	bar := newProgress(sio.err, "prune")
	n, err := log.Prune(ctx, before, func(done, total int64) { bar.update(int(done), int(total)) })
	bar.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "deleted %d rows older than %s\n", n, before.UTC().Format(time.RFC3339))
	return nil
}

// progress draws a bar on stderr when stderr is a terminal, at most ten
// times a second; elsewhere it draws nothing.
type progress struct {
	w     io.Writer
	label string
	on    bool
	last  time.Time
	drawn bool
}

func newProgress(w io.Writer, label string) *progress {
	p := &progress{w: w, label: label}
	if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		p.on = true
	}
	return p
}

// update redraws the bar with done of total.
func (p *progress) update(done, total int) {
	if !p.on || total <= 0 {
		return
	}
	if now := time.Now(); done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	} else {
		p.last = now
	}
	io.WriteString(p.w, renderBar(p.label, done, total, 30))
	p.drawn = true
}

// done clears the bar's line.
func (p *progress) done() {
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
	}
}

// renderBar is one frame of the bar, starting with a carriage return.
func renderBar(label string, done, total, width int) string {
	done = min(max(done, 0), total)
	fill := width * done / total
	return fmt.Sprintf("\r%s [%s%s] %d/%d", label, strings.Repeat("#", fill), strings.Repeat(".", width-fill), done, total)
}
