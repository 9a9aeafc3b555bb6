package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pattern-dialect/dialect"
)

func init() {
	register(&command{
		name:  "run",
		usage: "[--json] [--jsonl] [--agent A] [--model M] [--session S] [--config F] [--db PATH] < message",
		short: "find the actions in a message on stdin and run them",
		run:   runRun,
	})
	register(&command{name: "pending", usage: "[--json] [--all] [--config F] [--db PATH]", short: "list actions waiting for approval", run: runPending})
	register(&command{name: "approve", usage: "ID [--always] [--as NAME] [--json] [--config F] [--db PATH]", short: "approve a pending action and run it now", run: runApprove})
	register(&command{name: "deny", usage: "ID [REASON] [--always] [--as NAME] [--config F] [--db PATH]", short: "deny a pending action; it never runs", run: runDeny})
}

// exitHalted is the exit status after an authorised /halt.
const exitHalted = 3

// envelope is one message of `run --jsonl`.
type envelope struct {
	ID any `json:"id,omitempty"`
	dialect.Message
}

func runRun(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["run"], sio).state()
	asJSON := f.Bool("json", false, "print one JSON object per action result")
	jsonl := f.Bool("jsonl", false, `read JSON Lines {"id","text","agent","model","session"}`)
	agent := f.String("agent", envOr("DIALECT_AGENT", ""), "agent that wrote the message ($DIALECT_AGENT)")
	model := f.String("model", envOr("DIALECT_MODEL", ""), "model that wrote it ($DIALECT_MODEL)")
	session := f.String("session", envOr("DIALECT_SESSION", ""), "conversation session ($DIALECT_SESSION)")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	msgs, err := readMessages(sio.in, *jsonl, dialect.Meta{Agent: *agent, Model: *model, Session: *session})
	if err != nil {
		return err
	}
	// Under --json a delivery's text is part of its result's data, not a
	// line of its own in the JSON stream.
	var opts []dialect.Option
	if *asJSON {
		opts = append(opts, dialect.WithOutput(io.Discard))
	}
	rt, err := f.open(ctx, opts...)
	if err != nil {
		return err
	}
	defer rt.Close()

	enc := json.NewEncoder(sio.out)
	enc.SetEscapeHTML(false)
	for _, m := range msgs {
		results, err := rt.Run(ctx, m.Message)
		if errors.Is(err, dialect.ErrAgentName) {
			return usageErr{err}
		}
		for _, r := range results {
			if *asJSON {
				if err := enc.Encode(struct {
					ID any `json:"id,omitempty"`
					dialect.Result
				}{m.ID, r}); err != nil {
					return err
				}
				continue
			}
			writeResult(sio.out, m.ID, r)
		}
		if errors.Is(err, dialect.ErrHalted) {
			fmt.Fprintln(sio.err, "dialect run: halted by /halt")
			return exitStatus(exitHalted)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readMessages reads one message, or with jsonl one per line, filling
// what a line leaves out from meta.
func readMessages(r io.Reader, jsonl bool, meta dialect.Meta) ([]envelope, error) {
	if !jsonl {
		text, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		return []envelope{{Message: meta.Message(string(text))}}, nil
	}
	var msgs []envelope
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var m envelope
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("stdin line %d: %w", line, err)
		}
		got := dialect.Meta{Agent: m.Agent, Model: m.Model, Session: m.Session}.Or(meta)
		m.Message = got.Message(m.Text)
		msgs = append(msgs, m)
	}
	return msgs, sc.Err()
}

// writeResult prints one result for a person.
func writeResult(w io.Writer, id any, r dialect.Result) {
	prefix := ""
	if id != nil {
		prefix = fmt.Sprintf("[%v] ", id)
	}
	verb := r.Verb
	if verb == "" {
		verb = r.Token + "?"
	}
	head := fmt.Sprintf("%sline %d /%s: %s", prefix, r.Line, verb, r.Status)
	switch {
	case r.Code != "":
		head += " " + string(r.Code)
	case r.Reason != "":
		head += " (" + r.Reason + ")"
	}
	fmt.Fprintln(w, safeText(head))
	if r.Output != "" {
		for _, l := range strings.Split(safeText(r.Output), "\n") {
			fmt.Fprintln(w, "  "+l)
		}
	}
	if r.Chain != "" {
		fmt.Fprintln(w, "  next in chain: "+safeText(r.Chain))
	}
}

func runPending(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["pending"], sio).state()
	asJSON := f.Bool("json", false, "print JSON Lines")
	all := f.Bool("all", false, "list decided actions too")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	rt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	list, err := rt.PendingActions(ctx, *all)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(sio.out)
	for _, p := range list {
		if *asJSON {
			if err := enc.Encode(map[string]any{
				"id": p.ID, "created": p.Created.UTC(), "agent": p.Agent, "model": p.Model, "session": p.Session,
				"verb": p.Verb, "target": p.Target, "intent": json.RawMessage(p.Intent), "raw": p.Raw, "why": p.Why,
				"status": p.Status, "decided_by": p.DecidedBy, "note": p.Note, "result": p.Result,
			}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(sio.out, "#%d %s %s by %s: %s\n  %s\n", p.ID, p.Created.Local().Format("2006-01-02 15:04"), p.Status,
			oneLine(agentOr(p.Agent)), oneLine(p.Why), strings.ReplaceAll(safeText(p.Raw), "\n", "\n  "))
	}
	if len(list) == 0 && !*asJSON {
		fmt.Fprintln(sio.out, "no actions are waiting for approval")
	}
	return nil
}

func agentOr(a string) string {
	if a == "" {
		return "default"
	}
	return a
}

// decision is what approve and deny read from their command line, with
// the runtime opened.
type decision struct {
	rt     *dialect.Runtime
	id     int64
	rest   []string // the words after the id: deny's reason
	always bool     // also make a standing rule
	as     string   // who decides, for the record
	json   bool
}

// openDecision parses `NAME ID [WORDS...] [flags]` and opens the runtime;
// words after the id are allowed only when takesReason. Close d.rt.
func openDecision(ctx context.Context, name string, sio *stdio, args []string, takesReason bool) (*decision, error) {
	f := newFlags(commands[name], sio).state()
	d := &decision{}
	f.BoolVar(&d.always, "always", false, "also make a standing rule for this agent, verb and target")
	f.StringVar(&d.as, "as", "owner", "who decides, for the record")
	f.BoolVar(&d.json, "json", false, "print the result as JSON")
	most := 1
	if takesReason {
		most = -1
	}
	pos, err := f.parse(args, 1, most)
	if err != nil {
		return nil, err
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(pos[0], "#"), 10, 64)
	if err != nil || id <= 0 {
		return nil, usageError("%q is not a pending action id", pos[0])
	}
	d.id, d.rest = id, pos[1:]
	if d.rt, err = f.open(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

func runApprove(ctx context.Context, sio *stdio, args []string) error {
	d, err := openDecision(ctx, "approve", sio, args, false)
	if err != nil {
		return err
	}
	defer d.rt.Close()
	res, err := d.rt.Approve(ctx, d.id, d.as, d.always)
	if err != nil {
		return err
	}
	if d.json {
		return json.NewEncoder(sio.out).Encode(res)
	}
	writeResult(sio.out, nil, res)
	if res.Status != dialect.StatusOK {
		return exitStatus(1)
	}
	return nil
}

func runDeny(ctx context.Context, sio *stdio, args []string) error {
	d, err := openDecision(ctx, "deny", sio, args, true)
	if err != nil {
		return err
	}
	defer d.rt.Close()
	if err := d.rt.Deny(ctx, d.id, d.as, strings.Join(d.rest, " "), d.always); err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "denied #%d\n", d.id)
	return nil
}
