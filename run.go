package dialect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/internal/executor"
	"github.com/pattern-dialect/dialect/internal/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// Message is one model message with the metadata the runtime keeps: who
// wrote it, with which model, in which session.
type Message struct {
	Text    string `json:"text"`
	Agent   string `json:"agent,omitempty"`
	Model   string `json:"model,omitempty"`
	Session string `json:"session,omitempty"`
}

// Status is what became of one action.
type Status string

// The statuses of ARCHITECTURE.md's `dialect run --json` contract.
const (
	StatusOK      Status = "ok"      // executed
	StatusError   Status = "error"   // meant to run, but could not (a typed failure)
	StatusPending Status = "pending" // queued for approval
	StatusDenied  Status = "denied"  // refused by permission or a standing rule
	StatusSkipped Status = "skipped" // not meant to run: a mention, reconsidered, cancelled
)

// Result is the outcome of one detected action.
type Result struct {
	Index   int           `json:"index"`            // position among the message's actions
	Line    int           `json:"line"`             // 1-based line of the action
	Token   string        `json:"token"`            // the verb as written
	Verb    string        `json:"verb"`             // canonical verb, "" when unresolved
	Intent  intent.Intent `json:"-"`                // nil when parsing failed or was not tried
	Status  Status        `json:"status"`           // what happened
	Output  string        `json:"output"`           // text for the model
	Code    string        `json:"code,omitempty"`   // DIALECT.md §6 code for error, pending, denied
	Reason  string        `json:"reason,omitempty"` // why skipped
	Pending int64         `json:"pending,omitempty"`
	Chain   string        `json:"chain,omitempty"` // the rest of a chain, for the agent to re-issue
}

// MarshalJSON writes the result with its intent encoded by intent.Marshal.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	var in json.RawMessage
	if r.Intent != nil {
		b, err := intent.Marshal(r.Intent)
		if err != nil {
			return nil, err
		}
		in = b
	}
	return json.Marshal(struct {
		plain
		Intent json.RawMessage `json:"intent"`
	}{plain(r), in})
}

// ActionError is a failure of one action with a code and a sentence the
// model can act on.
type ActionError struct {
	Code string
	Msg  string
	Err  error
}

func (e *ActionError) Error() string { return e.Code + ": " + e.Msg }
func (e *ActionError) Unwrap() error { return e.Err }

// ErrHalted is returned by Run after a /halt from an agent with that
// authority: the host should stop. The CLI exits with status 3.
var ErrHalted = errors.New("halted by /halt")

// Open builds a Runtime from cfg and opens its SQLite file (cfg.Store.Path,
// else $DIALECT_DB, else the XDG state directory), which holds memory,
// sessions, approvals and the failure log. Close it when done.
func Open(ctx context.Context, cfg *Config) (*Runtime, error) {
	rt, err := New(cfg)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, cfg.Store.Path, failures.Migrations()...)
	if err != nil {
		return nil, err
	}
	x, err := executor.New(cfg.Exec, os.Stdout)
	if err != nil {
		st.Close()
		return nil, cfg.errorAt("exec", err.Error())
	}
	rt.store = st
	rt.failures = failures.New(st.DB())
	rt.external = rt.executeExternal(x)
	return rt, nil
}

// fetchCursorKey is where a session's last fetch cursor is kept.
const fetchCursorKey = "fetch.cursor"

// executeExternal adapts the executors (calc, fetch, web, send, tools) to
// the runtime: it keeps the session's fetch cursor for /fetch continue and
// turns executor errors into ActionErrors.
func (rt *Runtime) executeExternal(x *executor.Executor) func(context.Context, Message, string, intent.Intent) (string, error) {
	return func(ctx context.Context, msg Message, verb string, it intent.Intent) (string, error) {
		fetch, isFetch := it.(intent.Fetch)
		var prev *executor.Cursor
		if isFetch && fetch.Continue {
			if js, err := rt.store.State(ctx, msg.Session, fetchCursorKey); err == nil && js != "" {
				prev = new(executor.Cursor)
				if json.Unmarshal([]byte(js), prev) != nil {
					prev = nil
				}
			}
		}
		res, err := x.Execute(ctx, it, prev)
		var ee *executor.Error
		if errors.As(err, &ee) {
			return "", &ActionError{Code: ee.Code, Msg: ee.Msg, Err: ee}
		}
		if err != nil {
			return "", err
		}
		if isFetch {
			next := ""
			if c := executor.NextCursor(res); c != nil {
				b, _ := json.Marshal(c)
				next = string(b)
			}
			if err := rt.store.SetState(ctx, msg.Session, fetchCursorKey, next); err != nil {
				return res.Text, err
			}
		}
		return res.Text, nil
	}
}

// Close closes the runtime's database, if it has one.
func (rt *Runtime) Close() error {
	if rt.store == nil {
		return nil
	}
	return rt.store.Close()
}

// Store returns the runtime's state, or nil when built with New.
func (rt *Runtime) Store() *store.Store { return rt.store }

// Failures returns the failure log, or nil when built with New.
func (rt *Runtime) Failures() *failures.Log { return rt.failures }

// DBPath returns the SQLite file in use, or "".
func (rt *Runtime) DBPath() string {
	if rt.store == nil {
		return ""
	}
	return rt.store.DB().Path()
}

// Run carries out one whole message: it finds the actions, and runs those
// the model meant to run, in order, each within the configured timeout.
// Every detected action gets a Result. Failures in executable positions are
// logged. Run returns ErrHalted (with the results so far) after an
// authorised /halt; other errors are the runtime's own (the database).
func (rt *Runtime) Run(ctx context.Context, msg Message) ([]Result, error) {
	if rt.store == nil {
		return nil, errors.New("dialect: Run needs a Runtime from Open")
	}
	acts := rt.Detect([]byte(msg.Text))
	return rt.runActions(ctx, msg, acts, nil)
}

// runActions decides and executes detected actions of msg. early, when
// not nil, returns the run of an action that already started while the
// message streamed.
func (rt *Runtime) runActions(ctx context.Context, msg Message, acts []detect.Action, early func(*detect.Action) *earlyRun) ([]Result, error) {
	results := make([]Result, 0, len(acts))
	var fails []failures.Failure
	succeeded := 0
	halted := false
	for i := range acts {
		a := &acts[i]
		r := Result{Index: i, Line: a.Span.Line, Token: a.Token, Verb: a.Verb, Chain: a.Chain}
		var e *earlyRun
		if a.Executable && a.Early && early != nil {
			e = early(a)
		}
		var settle []string
		if !a.Executable {
			settle = rt.settleCandidates(a)
		}
		switch {
		case halted:
			r.Status, r.Reason = StatusSkipped, "after /halt"
		case e != nil:
			r.Verb, r.Intent, r.Status, r.Output, r.Code, r.Pending = e.res.Verb, e.res.Intent, e.res.Status, e.res.Output, e.res.Code, e.res.Pending
			if e.fail != nil {
				fails = append(fails, *e.fail)
			}
		case a.Executable || len(settle) > 1:
			if f := rt.runOne(ctx, msg, a, settle, &r); f != nil {
				fails = append(fails, *f)
			}
			if auth, ok := unwrap(r.Intent).(intent.Authority); ok && auth.Op == intent.Halt && r.Status == StatusOK {
				halted = true
			}
		case a.ExecutablePosition() && a.Reason.Failure():
			fails = append(fails, rt.scanFailure(msg, a, &r))
		default:
			r.Status, r.Reason = StatusSkipped, a.ReasonText()
		}
		if r.Status == StatusOK {
			succeeded++
		}
		results = append(results, r)
	}
	if err := rt.logOutcome(ctx, msg, fails, succeeded); err != nil {
		return results, err
	}
	if rt.cfg.Store.LogMessages && strings.TrimSpace(msg.Text) != "" {
		// Logged after its actions ran, so that @last.message in it names
		// the message before.
		m := store.Message{Session: msg.Session, Role: "assistant", Agent: msg.Agent, Model: msg.Model, Content: msg.Text}
		if _, err := rt.store.LogMessage(ctx, m); err != nil {
			return results, fmt.Errorf("conversation log: %w", err)
		}
	}
	if halted {
		return results, ErrHalted
	}
	return results, nil
}

// settleCandidates returns the verbs an action in an executable position
// may still mean although its token did not resolve to one: the verbs that
// claim the alias it names, up to case and word form ("remembered") or by
// a typo of that one alias ("remeber": recall and context both claim
// "remember"). Argument shape, then priority, settles between them at
// parse time. Two different names tied by edit distance or sound are never
// settled: that would be a guess. (An exact claimed alias resolves in the
// scanner and is settled by verbs.ParseAction.)
func (rt *Runtime) settleCandidates(a *detect.Action) []string {
	if a.Reason != detect.UnknownVerb || !a.ExecutablePosition() {
		return nil
	}
	res := rt.resolver.Resolve(a.Token)
	if res.Code != fuzzy.AmbiguousVerb {
		return nil
	}
	// The same name claimed by several verbs ("remeber" for "remember")
	// is that alias however it was reached; different names tied by edit
	// distance or sound are a guess, never settled.
	sameName := true
	for _, c := range res.Candidates {
		sameName = sameName && c.Name == res.Candidates[0].Name
	}
	var cs []string
	for _, c := range res.Candidates {
		if c.Tier > fuzzy.TierSpelling && !sameName {
			return nil
		}
		if !slices.Contains(cs, c.Verb) {
			cs = append(cs, c.Verb)
		}
	}
	return cs
}

// unwrap returns the built-in intent a custom verb runs as, or it itself:
// permission and /halt look at what will actually run.
func unwrap(it intent.Intent) intent.Intent {
	if c, ok := it.(intent.Custom); ok && c.Inner != nil {
		return c.Inner
	}
	return it
}

// runOne parses, checks and executes one action, filling r. settle, when it
// holds several verbs, are the verbs the token may mean, to be settled by
// argument shape. It returns the failure to log, if any.
func (rt *Runtime) runOne(ctx context.Context, msg Message, a *detect.Action, settle []string, r *Result) *failures.Failure {
	ctx, cancel := context.WithTimeout(ctx, rt.cfg.Run.ActionTimeout.Duration)
	defer cancel()
	in := verbs.Input{
		Token: a.Token, Args: a.Args, Content: a.Content, Kind: verbs.ContentKind(a.Kind),
		Marker: a.Marker, Blocks: blockLookup{rt.store},
	}
	var verb string
	var it intent.Intent
	var err error
	if len(settle) > 1 {
		verb, it, err = rt.registry.Settle(ctx, settle, in)
	} else {
		verb, it, err = rt.registry.ParseAction(ctx, a.Token, a.Verb, in)
	}
	r.Verb = verb
	if err != nil {
		return rt.fail(msg, a, r, err)
	}
	if it, err = rt.resolveRefs(ctx, msg, it); err != nil {
		return rt.fail(msg, a, r, err)
	}
	r.Intent = it
	switch d := rt.gate(ctx, msg, a, verb, it); d.status {
	case StatusDenied:
		r.Status, r.Code, r.Output = StatusDenied, "PERMISSION_DENIED", d.why
		return rt.failureRow(msg, a, r, failures.PermissionDeniedDetail{Verb: verb, Reason: d.why})
	case StatusPending:
		id, err := rt.enqueue(ctx, msg, a, verb, it, d.why)
		if err != nil {
			return rt.fail(msg, a, r, err)
		}
		r.Status, r.Code, r.Pending = StatusPending, "PENDING_APPROVAL", id
		r.Output = fmt.Sprintf("/%s needs approval (%s) — queued as #%d", verb, d.why, id)
		return nil
	}
	out, err := rt.execute(ctx, msg, verb, it)
	if err != nil {
		return rt.fail(msg, a, r, err)
	}
	r.Status, r.Output = StatusOK, out
	if err := rt.store.RecordOutput(ctx, store.Output{Session: msg.Session, Verb: verb, Status: string(StatusOK), Output: out}); err != nil {
		r.Output += "\n(warning: the output was not recorded for @last: " + err.Error() + ")"
	}
	return nil
}

// execute dispatches an intent to its executor.
func (rt *Runtime) execute(ctx context.Context, msg Message, verb string, it intent.Intent) (string, error) {
	switch in := it.(type) {
	case intent.Recall:
		return rt.execRecall(ctx, in)
	case intent.Context:
		return rt.execContext(ctx, in)
	case intent.Search:
		return rt.execSearch(ctx, in)
	case intent.Authority:
		return rt.execAuthority(ctx, msg, in)
	case intent.Custom:
		if in.Inner != nil {
			return rt.execute(ctx, msg, in.MapsTo, in.Inner)
		}
	}
	if rt.external != nil {
		return rt.external(ctx, msg, verb, it)
	}
	return "", &ActionError{Code: "NOT_CONFIGURED", Msg: fmt.Sprintf("/%s has no executor configured here", verb)}
}

// fail fills r for err and returns the failure row for it.
func (rt *Runtime) fail(msg Message, a *detect.Action, r *Result, err error) *failures.Failure {
	r.Status = StatusError
	var pe *verbs.ParseError
	var ae *ActionError
	switch {
	case errors.As(err, &pe):
		r.Code, r.Output = string(pe.Code), pe.Message
		return rt.failureRow(msg, a, r, parseDetail(pe))
	case errors.As(err, &ae):
		r.Code, r.Output = ae.Code, ae.Msg
		if ae.Code == "PERMISSION_DENIED" {
			r.Status = StatusDenied
		}
		if isDialectCode(ae.Code) {
			return rt.failureRow(msg, a, r, otherDetail(ae.Code, ae.Msg))
		}
		return nil // the action was understood; the world said no
	case errors.Is(err, context.DeadlineExceeded):
		r.Code, r.Output = "TIMEOUT", fmt.Sprintf("/%s took longer than %s and was stopped", r.Verb, rt.cfg.Run.ActionTimeout.Duration)
	default:
		r.Code, r.Output = "EXEC_FAILED", err.Error()
	}
	return nil
}

// scanFailure fills r for an action the scanner already found unable to
// run (unknown verb, bad marker, too large, unterminated) and returns its
// failure row.
func (rt *Runtime) scanFailure(msg Message, a *detect.Action, r *Result) failures.Failure {
	r.Status, r.Code = StatusError, a.Reason.Code()
	var d failures.Detail
	var cands []failures.Candidate
	switch a.Reason {
	case detect.UnknownVerb:
		res := rt.resolver.Resolve(a.Token)
		if res.Code != "" {
			r.Code = string(res.Code)
		}
		r.Output = res.Message()
		for _, c := range res.Candidates {
			cands = append(cands, failures.Candidate{Verb: c.Verb, Tier: c.Tier.String(), Score: c.Score})
		}
		switch res.Code {
		case fuzzy.AmbiguousVerb:
			vs := make([]string, 0, len(res.Candidates))
			for _, c := range res.Candidates {
				vs = append(vs, c.Verb)
			}
			d = failures.AmbiguousVerbDetail{Attempted: a.Token, Options: vs}
		case fuzzy.MixedScript:
			d = failures.MixedScriptDetail{Token: a.Token}
		default:
			ud := failures.UnknownVerbDetail{Attempted: a.Token}
			if res.NearMiss() && len(res.Candidates) > 0 {
				ud.NearMiss = res.Candidates[0].Verb
			}
			d = ud
		}
	case detect.InvalidMarker:
		r.Output = fmt.Sprintf("%s is not a permission marker (., ?, ?ask, !%s)", a.Marker, flagList(rt.cfg.Detect.PermissionFlags))
		d = failures.PermissionMarkerInvalidDetail{Marker: a.Marker}
	case detect.TooLarge:
		r.Output = fmt.Sprintf("/%s is larger than %d bytes; split it", a.Token, rt.cfg.Detect.MaxActionBytes)
		d = failures.InputTooLargeDetail{Size: len(a.Args) + len(a.Content), Limit: rt.cfg.Detect.MaxActionBytes}
	default:
		r.Output = fmt.Sprintf("/%s: %s", a.Token, a.Reason)
		d = failures.MalformedSyntaxDetail{Verb: a.Verb, Issue: a.Reason.String()}
	}
	f := rt.failureRow(msg, a, r, d)
	f.Candidates = cands
	return *f
}

func flagList(flags []string) string {
	var b strings.Builder
	for _, f := range flags {
		b.WriteString(", ?" + f)
	}
	return b.String()
}

// failureRow builds the failure log row for an action.
func (rt *Runtime) failureRow(msg Message, a *detect.Action, r *Result, d failures.Detail) *failures.Failure {
	return &failures.Failure{
		Time: time.Now(), Code: failures.Code(r.Code), Raw: rawAction(msg.Text, a), Token: a.Token, Verb: r.Verb,
		Agent: msg.Agent, Model: msg.Model, Session: msg.Session, Detail: d, Context: sentenceBefore(msg.Text, a.Span.Start),
	}
}

// logOutcome records the message's failures and successes. Nothing else
// of the run depends on it, but a lost row is an error the caller sees.
func (rt *Runtime) logOutcome(ctx context.Context, msg Message, fails []failures.Failure, ok int) error {
	if len(fails) > 0 {
		if err := rt.failures.RecordBatch(ctx, fails); err != nil {
			return fmt.Errorf("failure log: %w", err)
		}
	}
	if ok > 0 {
		if err := rt.failures.RecordSuccess(ctx, msg.Model, ok); err != nil {
			return fmt.Errorf("failure log: %w", err)
		}
	}
	return nil
}

func isDialectCode(c string) bool {
	for _, k := range failures.Codes() {
		if string(k) == c {
			return true
		}
	}
	return false
}

// rawAction returns the action's text as written, bounded.
func rawAction(text string, a *detect.Action) string {
	s, e := a.Span.Start, min(a.Span.End, len(text))
	if s < 0 || s > e {
		return "/" + a.Token
	}
	return strings.TrimSpace(text[s:e])
}

// sentenceBefore returns the last sentence of text before offset, the
// failure log's context hint.
func sentenceBefore(text string, offset int) string {
	before := strings.TrimSpace(text[:min(offset, len(text))])
	if before == "" {
		return ""
	}
	cut := strings.LastIndexAny(before[:len(before)-1], ".!?\n")
	return strings.TrimSpace(before[cut+1:])
}
