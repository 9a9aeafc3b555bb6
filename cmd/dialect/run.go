package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/store"
)

func init() {
	register(&command{
		name:  "run",
		usage: "[--json] [--jsonl] [--agent A] [--model M] [--session S] [--config F] [--db PATH] < message",
		short: "find the actions in a message on stdin and run them (exit 1 when one ended in error)",
		run:   runRun,
	})
	register(&command{name: "pending", usage: "[--json] [--all] [--config F] [--db PATH]", short: "list actions waiting for approval", run: runPending})
	register(&command{name: "approve", usage: "ID [--always [--args PATTERN] [--yes] [--dry-run]] [--as NAME] [--json] [--config F] [--db PATH]", short: "approve a pending action and run it now", run: runApprove})
	register(&command{name: "deny", usage: "ID [REASON] [--always [--args PATTERN] [--yes] [--dry-run]] [--as NAME] [--json] [--config F] [--db PATH]", short: "deny a pending action; it never runs (the reason goes back to the agent)", run: runDeny})
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

	failed := 0
	for _, m := range msgs {
		results, err := rt.Run(ctx, m.Message)
		if errors.Is(err, dialect.ErrAgentName) {
			return usageErr{err}
		}
		for _, r := range results {
			if r.Status == dialect.StatusError {
				failed++
			}
			if *asJSON {
				if err := writeResultJSON(sio.out, m, r); err != nil {
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
	if failed > 0 {
		// The results say which; the status lets a script notice.
		if !*asJSON {
			fmt.Fprintf(sio.err, "dialect run: %d action(s) ended in error\n", failed)
		}
		return exitStatus(1)
	}
	return nil
}

// writeResultJSON writes one result of `run --json` led by the message it
// came from: its id (from --jsonl), agent, model and session.
func writeResultJSON(w io.Writer, m envelope, r dialect.Result) error {
	var enc bytes.Buffer
	je := json.NewEncoder(&enc)
	je.SetEscapeHTML(false)
	if err := je.Encode(r); err != nil {
		return err
	}
	body := bytes.TrimSpace(enc.Bytes())
	var b bytes.Buffer
	b.WriteByte('{')
	for _, f := range []struct {
		k    string
		v    any
		keep bool
	}{{"id", m.ID, m.ID != nil}, {"agent", m.Agent, m.Agent != ""}, {"model", m.Model, m.Model != ""}, {"session", m.Session, m.Session != ""}} {
		if !f.keep {
			continue
		}
		v, err := json.Marshal(f.v)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%q:%s,", f.k, v)
	}
	b.Write(body[1:])
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
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
	args   string   // with always: the rule's argument pattern instead of the narrowest
	yes    bool     // save the rule without asking on a terminal
	dryRun bool     // show the rule, decide nothing
	as     string   // who decides, for the record
	json   bool
}

// openDecision parses `NAME ID [WORDS...] [flags]` and opens the runtime;
// words after the id are allowed only when takesReason. Close d.rt.
func openDecision(ctx context.Context, name string, sio *stdio, args []string, takesReason bool) (*decision, error) {
	f := newFlags(commands[name], sio).state()
	d := &decision{}
	f.BoolVar(&d.always, "always", false, "also make a standing rule: the narrowest that covers this action (shown before it is saved)")
	f.StringVar(&d.args, "args", "", "with --always: the rule's argument pattern (* any run of characters, ? one), to widen or narrow it")
	f.BoolVar(&d.yes, "yes", false, "with --always on a terminal: save the rule without asking")
	f.BoolVar(&d.dryRun, "dry-run", false, "with --always: show the rule and decide nothing")
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
	if !d.always && (d.args != "" || d.dryRun) {
		return nil, usageError("--args and --dry-run go with --always")
	}
	d.id, d.rest = id, pos[1:]
	if d.rt, err = f.open(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

// rule is the standing rule --always makes, shown before it is saved and
// confirmed on a terminal; nil without --always, or when the person says
// no (then nothing is decided: errDeclined).
func (d *decision) rule(ctx context.Context, sio *stdio, dec store.Decision) (*store.Rule, error) {
	if !d.always {
		return nil, nil
	}
	r, err := d.rt.RuleFor(ctx, d.id, dec)
	if err != nil {
		return nil, err
	}
	if d.args != "" {
		r.Args = d.args
	}
	if dec == store.Deny {
		r.Note = strings.Join(d.rest, " ")
	}
	fmt.Fprintf(sio.err, "standing rule for #%d: %s\n", d.id, safeText(r.String()))
	if d.dryRun {
		return &r, errDryRun
	}
	if f, ok := sio.in.(*os.File); ok && isatty.IsTerminal(f.Fd()) && !d.yes {
		fmt.Fprint(sio.err, "save it, and decide? [y/N] ")
		answer, _ := bufio.NewReader(sio.in).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return nil, errDeclined
		}
	}
	return &r, nil
}

var (
	errDryRun   = errors.New("dry run")
	errDeclined = errors.New("declined: nothing decided, no rule saved")
)

func runApprove(ctx context.Context, sio *stdio, args []string) error {
	d, err := openDecision(ctx, "approve", sio, args, false)
	if err != nil {
		return err
	}
	defer d.rt.Close()
	rule, err := d.rule(ctx, sio, store.Allow)
	if errors.Is(err, errDryRun) {
		return nil
	}
	if err != nil {
		return err
	}
	res, err := d.rt.Approve(ctx, d.id, d.as, rule)
	if err != nil {
		return err
	}
	if d.json {
		if err := json.NewEncoder(sio.out).Encode(res); err != nil {
			return err
		}
	} else {
		writeResult(sio.out, nil, res)
		writeSavedRule(sio.out, res.Data)
	}
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
	rule, err := d.rule(ctx, sio, store.Deny)
	if errors.Is(err, errDryRun) {
		return nil
	}
	if err != nil {
		return err
	}
	saved, err := d.rt.Deny(ctx, d.id, d.as, strings.Join(d.rest, " "), rule)
	if err != nil {
		return err
	}
	if d.json {
		return json.NewEncoder(sio.out).Encode(map[string]any{"id": d.id, "status": "denied", "rule": saved})
	}
	fmt.Fprintf(sio.out, "denied #%d\n", d.id)
	if saved != nil {
		fmt.Fprintf(sio.out, "saved standing rule #%d: %s\n", saved.ID, safeText(saved.String()))
	}
	return nil
}

// writeSavedRule prints the rule an approval saved, found in its data.
func writeSavedRule(w io.Writer, data any) {
	if m, ok := data.(map[string]any); ok {
		if r, ok := m["rule"].(*store.Rule); ok {
			fmt.Fprintf(w, "saved standing rule #%d: %s\n", r.ID, safeText(r.String()))
		}
	}
}
