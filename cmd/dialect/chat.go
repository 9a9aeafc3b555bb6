package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/loop"
	"github.com/pattern-dialect/dialect/turn"
)

func init() {
	register(&command{
		name:  "chat",
		usage: "--upstream URL --model M [--api chat|responses|messages] [--loop N] [--system TEXT] [-v] [--agent A] [--session S] [--config F] [--db PATH]",
		short: "talk to a dialect-speaking model: each stdin line is a user turn",
		run:   runChat,
	})
}

// runChat reads user turns from stdin, one a line, and runs the loop for
// each: the assistant's text streams to stdout with action lines hidden,
// each result is shown briefly (in full with -v), and an action queued
// for approval is asked about when stdin is a terminal (queued
// otherwise). It ends at EOF.
func runChat(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["chat"], sio).state()
	upstream := f.String("upstream", "", "API base URL as the SDKs take it, e.g. http://127.0.0.1:11434/v1 (required)")
	model := f.String("model", "", "model name (required)")
	api := f.String("api", "chat", "wire format: chat (Chat Completions), responses (OpenAI Responses), messages (Anthropic Messages)")
	turns := f.Int("loop", loop.DefaultMaxTurns, "model turns at most per user turn")
	system := f.String("system", "", "system prompt; the dialect's instructions are added after it")
	verbose := f.Bool("v", false, "show every result's output in full")
	agent := f.String("agent", envOr("DIALECT_AGENT", ""), "agent the runtime records ($DIALECT_AGENT)")
	session := f.String("session", envOr("DIALECT_SESSION", ""), "session the runtime records ($DIALECT_SESSION)")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	if *upstream == "" || *model == "" {
		return usageError("--upstream and --model are required")
	}
	a := loop.API(*api)
	if a != loop.ChatCompletions && a != loop.Responses && a != loop.Messages {
		return usageError("--api wants chat, responses or messages, got %q", *api)
	}
	if *turns < 1 {
		return usageError("--loop wants 1 or more model turns, got %d", *turns)
	}
	key := os.Getenv("OPENAI_API_KEY")
	if a == loop.Messages {
		key = os.Getenv("ANTHROPIC_API_KEY")
	}
	rt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()

	in := bufio.NewScanner(sio.in)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	tty := false
	if fh, ok := sio.in.(*os.File); ok {
		tty = isatty.IsTerminal(fh.Fd())
	}
	m := &loop.HTTP{API: a, BaseURL: *upstream, Model: *model, APIKey: key}
	opts := loop.Options{
		MaxTurns: *turns, System: *system, HideActions: true,
		Meta:     dialect.Meta{Agent: *agent, Model: *model, Session: *session},
		OnText:   func(s string) { io.WriteString(sio.out, safeText(s)) },
		OnResult: func(r dialect.Result) { showResult(sio.out, r, *verbose) },
	}
	if tty {
		opts.Decide = func(ctx context.Context, r dialect.Result) dialect.Result {
			return askApproval(ctx, sio, in, rt, r)
		}
	}
	var conv []loop.Message
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		conv = append(conv, loop.Message{Role: loop.User, Text: line})
		out, err := loop.Run(ctx, rt, m, conv, opts)
		if out != nil {
			conv = out.Messages
		}
		fmt.Fprintln(sio.out)
		if out != nil && out.Stop == loop.StopTurns {
			fmt.Fprintln(sio.out, turn.Limit(len(out.Turns)))
		}
		if errors.Is(err, dialect.ErrHalted) {
			fmt.Fprintln(sio.err, "dialect chat: halted by /halt")
			return exitStatus(exitHalted)
		}
		if err != nil {
			return err
		}
	}
	return in.Err()
}

// showResult prints one result for a person: the action and its status,
// then the first line of its output (all of it with verbose).
func showResult(w io.Writer, r dialect.Result, verbose bool) {
	if r.Status == dialect.StatusSkipped || r.Status == "" {
		if verbose {
			fmt.Fprintf(w, "  · /%s not run (%s)\n", oneLine(r.Token), oneLine(r.Reason))
		}
		return
	}
	head := fmt.Sprintf("  → /%s %s", r.Token, r.Status)
	if r.Code != "" && r.Status != dialect.StatusOK {
		head += " " + string(r.Code)
	}
	out := strings.TrimSpace(r.Output)
	if !verbose {
		first, _, more := strings.Cut(out, "\n")
		if len(first) > 100 {
			first, more = first[:100], true
		}
		if more {
			first += " …"
		}
		if first != "" {
			head += ": " + first
		}
		io.WriteString(w, oneLine(head)+"\n")
		return
	}
	io.WriteString(w, oneLine(head)+"\n")
	for _, l := range strings.Split(safeText(out), "\n") {
		if l != "" {
			fmt.Fprintln(w, "    "+l)
		}
	}
}

// askApproval asks the person at the terminal about a queued action and
// returns what the runtime made of the answer: y runs it now (Approve),
// anything else leaves it queued.
func askApproval(ctx context.Context, sio *stdio, in *bufio.Scanner, rt *dialect.Runtime, r dialect.Result) dialect.Result {
	fmt.Fprintf(sio.out, "  ? %s — approve #%d? [y/N] ", oneLine(r.Output), r.Pending)
	if !in.Scan() || !strings.EqualFold(strings.TrimSpace(in.Text()), "y") {
		return r
	}
	res, err := rt.Approve(ctx, r.Pending, "owner", nil)
	if err != nil {
		fmt.Fprintf(sio.err, "dialect chat: approve #%d: %v\n", r.Pending, err)
		return r
	}
	res.Index, res.Line, res.Token, res.Action, res.Chain = r.Index, r.Line, r.Token, r.Action, r.Chain
	return res
}
