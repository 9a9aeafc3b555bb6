package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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

// runtimeFlags are the flags every command that opens the runtime takes.
type runtimeFlags struct {
	config, db string
}

func (f *runtimeFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "configuration file (default: lookup order)")
	fs.StringVar(&f.db, "db", "", "SQLite file (default: store.path, $DIALECT_DB, XDG state dir)")
}

func (f *runtimeFlags) open(ctx context.Context) (*dialect.Runtime, error) {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return nil, err
	}
	if f.db != "" {
		cfg.Store.Path = f.db
	}
	rt, err := dialect.Open(ctx, cfg)
	var ce *dialect.ConfigError
	if errors.As(err, &ce) {
		return nil, usageErr{err}
	}
	return rt, err
}

// newFlags makes a flag set that reports to stderr and parses interspersed
// flags and arguments.
func newFlags(name string, sio *stdio) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(sio.err)
	return fs
}

func runRun(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("run", sio)
	var rf runtimeFlags
	rf.add(fs)
	asJSON := fs.Bool("json", false, "print one JSON object per action result")
	jsonl := fs.Bool("jsonl", false, `read JSON Lines {"id","text","agent","model","session"}`)
	agent := fs.String("agent", os.Getenv("DIALECT_AGENT"), "agent that wrote the message ($DIALECT_AGENT)")
	model := fs.String("model", os.Getenv("DIALECT_MODEL"), "model that wrote it ($DIALECT_MODEL)")
	session := fs.String("session", os.Getenv("DIALECT_SESSION"), "conversation session ($DIALECT_SESSION)")
	if err := fs.Parse(args); err != nil {
		return usageErr{err}
	}
	if fs.NArg() > 0 {
		return usageError("run reads the message from stdin; unexpected %q", fs.Arg(0))
	}
	rt, err := rf.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()

	type envelope struct {
		ID any `json:"id,omitempty"`
		dialect.Message
	}
	var msgs []envelope
	if *jsonl {
		sc := bufio.NewScanner(sio.in)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for line := 1; sc.Scan(); line++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			var m envelope
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				return fmt.Errorf("stdin line %d: %w", line, err)
			}
			for p, d := range map[*string]string{&m.Agent: *agent, &m.Model: *model, &m.Session: *session} {
				if *p == "" {
					*p = d
				}
			}
			msgs = append(msgs, m)
		}
		if err := sc.Err(); err != nil {
			return err
		}
	} else {
		text, err := io.ReadAll(sio.in)
		if err != nil {
			return err
		}
		msgs = append(msgs, envelope{Message: dialect.Message{Text: string(text), Agent: *agent, Model: *model, Session: *session}})
	}

	enc := json.NewEncoder(sio.out)
	enc.SetEscapeHTML(false)
	for _, m := range msgs {
		results, err := rt.Run(ctx, m.Message)
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
		head += " " + r.Code
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

// safeText keeps control and terminal escape characters from reaching a
// terminal (DIALECT.md §7): they are shown escaped.
func safeText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\n' || r == '\t' || (r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0)) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

func runPending(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("pending", sio)
	var rf runtimeFlags
	rf.add(fs)
	asJSON := fs.Bool("json", false, "print JSON Lines")
	all := fs.Bool("all", false, "list decided actions too")
	if err := fs.Parse(args); err != nil {
		return usageErr{err}
	}
	rt, err := rf.open(ctx)
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
		fmt.Fprintf(sio.out, "#%d %s %s by %s: %s\n  %s\n", p.ID, p.Created.Local().Format("2006-01-02 15:04"), p.Status, agentOr(p.Agent), safeText(p.Why), safeText(p.Raw))
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
	fs := newFlags(name, sio)
	var rf runtimeFlags
	rf.add(fs)
	d := &decision{}
	fs.BoolVar(&d.always, "always", false, "also make a standing rule for this agent, verb and target")
	fs.StringVar(&d.as, "as", "owner", "who decides, for the record")
	fs.BoolVar(&d.json, "json", false, "print the result as JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) == 0 || len(pos) > 1 && !takesReason {
		return nil, usageError("%s takes one pending action id", name)
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(pos[0], "#"), 10, 64)
	if err != nil || id <= 0 {
		return nil, usageError("%q is not a pending action id", pos[0])
	}
	d.id, d.rest = id, pos[1:]
	if d.rt, err = rf.open(ctx); err != nil {
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
