package dialect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/executor"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// The pipeline, one function per stage, each called from one place:
//
//	detect     detect.Scan / detect.Scanner, with the message's vocab
//	resolve    Runtime.resolve, through vocab.word: once per token
//	parse      Runtime.parse
//	references Runtime.resolveRefs
//	bind       Runtime.bind: the one normalised Call
//	gate       Runtime.gate, on that Call
//	execute    verbs.Registry.Execute, of that Call
//	result     Runtime.finish, and the failure log
//
// With telemetry on (telemetry.go), Run and Stream record a span per
// message, and runActions an execute_tool span and the action metrics per
// action in an executable position.
//
// Run and Stream run all of it; Detect stops after resolve, Parse after
// parse. The CLI, the middleware and the proxy call these and decide
// nothing themselves.

// Run carries out one whole message: it finds the actions, and runs those
// the model meant to run, in order, each within the configured timeout.
// Every detected action gets a Result. Failures in executable positions are
// logged. Run returns ErrHalted (with the results so far) after an
// authorised /halt; other errors are the runtime's own (the store).
func (rt *Runtime) Run(ctx context.Context, msg Message) ([]Result, error) {
	if err := checkAgent(msg.Agent); err != nil {
		return nil, err
	}
	ctx, span := rt.tel.startMessage(ctx, msg)
	v := rt.newVocab()
	results, err := rt.runActions(ctx, msg, v, detect.Scan(v, rt.detect, []byte(msg.Text)), nil)
	rt.tel.endMessage(span, msg, results, err)
	return results, err
}

// Detect finds the actions in a whole message and resolves their verbs,
// running nothing: each Result says which verb the action names (or why
// none), whether its position makes it executable, and why not. Status is
// empty.
func (rt *Runtime) Detect(text string) []Result {
	v := rt.newVocab()
	return rt.describeAll(v, detect.Scan(v, rt.detect, []byte(text)))
}

func (rt *Runtime) describeAll(v *vocab, acts []detect.Action) []Result {
	out := make([]Result, len(acts))
	for i := range acts {
		out[i] = rt.describe(v, &acts[i], i)
	}
	return out
}

// Parse reads text as one action (`/verb arguments`) through the stages
// before the gate — detect, resolve, parse — and returns what it means, or
// the first failure (Code, Output). blocks says which memory blocks exist
// (/recall NAME reads a block of that name and searches otherwise); nil
// asks the store. Nothing is executed.
func (rt *Runtime) Parse(ctx context.Context, text string, blocks verbs.Blocks) Result {
	v := rt.newVocab()
	acts := detect.Scan(v, rt.detect, []byte(text))
	if len(acts) == 0 || acts[0].Span.Start != 0 {
		return Result{Code: codes.MalformedSyntax, Output: fmt.Sprintf("%q is not an action: write /verb arguments", text)}
	}
	a := &acts[0]
	r := rt.describe(v, a, 0)
	if a.Reason.Failure() {
		rt.scanFailure(v, a, &r)
		r.Stage = scanStage(a)
		return r
	}
	if blocks == nil {
		blocks = rt.blocks
	}
	if _, err := rt.parse(ctx, v, a, blocks, &r); err != nil {
		rt.fail(ctx, err, &r, nil)
		r.Status, r.Stage = "", "parse"
	}
	return r
}

// describe is the resolve stage's view of an action: its verb and tier,
// and for an action the scanner found unable to run, its failure code.
func (rt *Runtime) describe(v *vocab, a *detect.Action, i int) Result {
	r := Result{Index: i, Line: a.Span.Line, Token: a.Token, Chain: a.Chain, Action: *a}
	if !a.Executable {
		r.Reason = a.ReasonText()
	}
	w := v.word(a.Token)
	if w.ok() {
		r.Verb, r.Tier = w.verbs[0], w.tier.String()
	}
	switch {
	case a.Reason == detect.UnknownVerb:
		r.Code, r.Candidates = w.code(), w.candidates()
	case a.Reason.Failure():
		r.Code = a.Reason.Code()
	}
	return r
}

// runActions decides and executes the detected actions of msg. early, when
// not nil, returns the run of an action that already started while the
// message streamed.
func (rt *Runtime) runActions(ctx context.Context, msg Message, v *vocab, acts []detect.Action, early func(*detect.Action) *earlyRun) ([]Result, error) {
	results := make([]Result, 0, len(acts))
	var fails []failures.Failure
	succeeded := 0
	halted := false
	for i := range acts {
		a := &acts[i]
		r := rt.describe(v, a, i)
		var e *earlyRun
		if a.Executable && a.Early && early != nil {
			e = early(a)
		}
		switch {
		case halted:
			r.Status, r.Reason = StatusSkipped, "after /halt"
		case e != nil:
			r = e.res
			r.Index, r.Action = i, *a
			if e.fail != nil {
				fails = append(fails, *e.fail)
			}
		case a.Executable && ctx.Err() != nil:
			// Cancelled or out of time between actions: the rest do not
			// start (one already started was not interrupted: runOne).
			r.Status, r.Code = StatusError, codes.Cancelled
			r.Output = fmt.Sprintf("/%s was not run: %v before it started", a.Token, context.Cause(ctx))
		case a.Executable:
			run := rt.tel.startAction(ctx)
			f, halt := rt.runOne(run.ctx, msg, v, a, &r)
			rt.tel.endAction(run, msg, a, rawAction(msg.Text, a), &r)
			if f != nil {
				fails = append(fails, *f)
			}
			halted = halt
		case a.ExecutablePosition() && a.Reason.Failure():
			run := rt.tel.startAction(ctx)
			r.Status, r.Stage = StatusError, scanStage(a)
			fails = append(fails, *rt.scanFailure(v, a, &r).row(msg, a, &r))
			rt.tel.endAction(run, msg, a, rawAction(msg.Text, a), &r)
		default:
			r.Status = StatusSkipped
		}
		if r.Status == StatusOK {
			succeeded++
		}
		results = append(results, r)
	}
	// What ran is recorded even when the caller gave up meanwhile.
	if err := rt.logOutcome(context.WithoutCancel(ctx), msg, acts, fails, succeeded); err != nil {
		return results, err
	}
	if halted {
		return results, ErrHalted
	}
	return results, nil
}

// runOne takes one executable action through parse, references, bind,
// gate and execute, filling r. It returns the failure to log, if any, and
// whether the action was an authorised /halt.
func (rt *Runtime) runOne(ctx context.Context, msg Message, v *vocab, a *detect.Action, r *Result) (*failures.Failure, bool) {
	ctx, cancel := context.WithTimeout(ctx, rt.cfg.Run.ActionTimeout.Duration)
	defer cancel()
	stop := func(stage string, err error, c *verbs.Call) (*failures.Failure, bool) {
		r.Stage = stage
		return rt.fail(ctx, err, r, c).row(msg, a, r), false
	}
	it, err := rt.parse(ctx, v, a, rt.blocks, r)
	if err != nil {
		return stop("parse", err, nil)
	}
	it, err = rt.resolveRefs(ctx, msg, it)
	if err != nil {
		return stop("references", err, nil)
	}
	r.Intent = it
	c, err := rt.bind(msg, r.Verb, it)
	if err != nil {
		return stop("bind", err, nil)
	}
	st, err := rt.Store(ctx)
	if err != nil {
		return stop("gate", err, &c)
	}
	switch g := rt.gate(ctx, st, a.Marker, c); g.status {
	case StatusDenied:
		r.Status, r.Code, r.Output, r.Stage = StatusDenied, codes.PermissionDenied, g.why, "gate"
		return failed(failures.PermissionDeniedDetail{Verb: c.Runs, Reason: g.why}).row(msg, a, r), false
	case StatusPending:
		id, err := rt.enqueue(ctx, st, msg, rawAction(msg.Text, a), c, g.why)
		if err != nil {
			return stop("gate", err, &c)
		}
		r.Status, r.Code, r.Pending, r.Stage = StatusPending, codes.PendingApproval, id, "gate"
		r.Output = fmt.Sprintf("/%s needs approval (%s) — queued as #%d", r.Verb, g.why, id)
		return nil, false
	}
	if !it.ReadOnly() {
		// An action that writes runs to its end (or its timeout) once
		// started: a cancellation stops the message between actions,
		// never inside a write.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), rt.cfg.Run.ActionTimeout.Duration)
		defer cancel()
	}
	out, err := rt.registry.Execute(ctx, c)
	if err != nil {
		return stop("execute", err, &c)
	}
	rt.finish(ctx, st, c, out, r)
	auth, isAuth := c.Intent.(intent.Authority)
	return nil, isAuth && auth.Op == intent.Halt
}

// parse is the parse stage: the action's arguments, read by the grammar of
// the verb (or verbs) its token resolved to. It sets r's verb (the one
// argument shape settled on) and intent.
func (rt *Runtime) parse(ctx context.Context, v *vocab, a *detect.Action, blocks verbs.Blocks, r *Result) (intent.Intent, error) {
	in := verbs.Input{Token: a.Token, Args: a.Args, Content: a.Content, Kind: verbs.ContentKind(a.Kind), Marker: a.Marker, Blocks: blocks}
	claims := v.word(a.Token).verbs
	verb, it, err := rt.registry.ParseAction(ctx, claims, in)
	if verb != "" || len(claims) > 1 {
		r.Verb = verb // the verb argument shape settled on; "" when none
	}
	r.Intent = it
	return it, err
}

// finish is the result stage for an executed call: the output for the
// model, the data for programs, and the output recorded for @last.
func (rt *Runtime) finish(ctx context.Context, st store.Store, c verbs.Call, out verbs.Output, r *Result) {
	r.Status, r.Output, r.Data = StatusOK, out.Text, out.Data
	if err := st.RecordOutput(ctx, store.Output{Session: c.Session, Verb: c.Verb, Status: string(StatusOK), Output: out.Text}); err != nil {
		r.Output += "\n(warning: the output was not recorded for @last: " + err.Error() + ")"
	}
}

// failure is what the failure log records of one failure: its detail, and
// the candidates of an unresolved verb. A nil *failure logs nothing.
type failure struct {
	detail     failures.Detail
	candidates []failures.Candidate
}

func failed(d failures.Detail) *failure { return &failure{detail: d} }

// row builds the failure log's row for an action whose result is r.
func (f *failure) row(msg Message, a *detect.Action, r *Result) *failures.Failure {
	if f == nil {
		return nil
	}
	return &failures.Failure{
		Time: time.Now(), Code: r.Code, Raw: rawAction(msg.Text, a), Token: a.Token, Verb: r.Verb,
		Agent: msg.Agent, Model: msg.Model, Session: msg.Session, Detail: f.detail,
		Candidates: f.candidates, Context: sentenceBefore(msg.Text, a.Span.Start),
	}
}

// fail fills r for err. c is the bound call, nil when the failure came
// before binding. A model's mistake (a model code) gets a detail to log; a
// failure of the world does not. The typed cause of an executor's failure
// (a command's exit status and stderr, a webhook's status and body) goes
// into the output, for the person and the model, and into the data, for
// programs.
func (rt *Runtime) fail(ctx context.Context, err error, r *Result, c *verbs.Call) *failure {
	r.Status = StatusError
	var pe *verbs.ParseError
	var ce *codes.Error
	switch {
	case errors.As(err, &pe):
		r.Code, r.Output, r.Pos, r.Candidates = pe.Code, pe.Message, pe.Pos, pe.Candidates
		return failed(parseDetail(pe, rt.cfg.Detect.MaxActionBytes))
	case errors.As(err, &ce):
		r.Code, r.Output = ce.Code, ce.Msg
		var cmd *executor.CommandError
		var status *executor.StatusError
		switch {
		case errors.As(err, &cmd):
			r.Output, r.Data = err.Error(), map[string]any{"command": cmd}
		case errors.As(err, &status):
			r.Output, r.Data = err.Error(), map[string]any{"http": status}
		}
		if ce.Code == codes.PermissionDenied {
			r.Status = StatusDenied
		}
		if ce.Code.ModelFault() {
			return failed(execDetail(ce, c))
		}
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		r.Code, r.Output = codes.Timeout, fmt.Sprintf("/%s took longer than %s and was stopped", r.Verb, rt.cfg.Run.ActionTimeout.Duration)
	case errors.Is(err, context.Canceled):
		r.Code, r.Output = codes.Cancelled, fmt.Sprintf("/%s was cancelled", r.Verb)
	default:
		r.Code, r.Output = codes.ExecFailed, err.Error()
	}
	return nil
}

// scanStage is the stage that found an action unable to run before it
// was parsed: resolve for a token that names no verb, detect otherwise.
func scanStage(a *detect.Action) string {
	if a.Reason == detect.UnknownVerb {
		return "resolve"
	}
	return "detect"
}

// scanFailure fills r for an action the scanner found unable to run
// (unknown verb, bad marker, too large, unterminated) and returns what to
// log of it.
func (rt *Runtime) scanFailure(v *vocab, a *detect.Action, r *Result) *failure {
	switch a.Reason {
	case detect.UnknownVerb:
		w := v.word(a.Token)
		r.Output = w.res.Message()
		if r.Output == "" {
			r.Output = fmt.Sprintf("/%s is not a verb", a.Token)
		}
		f := &failure{}
		for _, c := range w.offered() {
			f.candidates = append(f.candidates, failures.Candidate{Verb: c.Verb, Tier: c.Tier.String(), Score: c.Score})
		}
		switch r.Code {
		case codes.AmbiguousVerb:
			f.detail = failures.AmbiguousVerbDetail{Attempted: a.Token, Options: w.candidates()}
		case codes.MixedScript:
			f.detail = failures.MixedScriptDetail{Token: a.Token}
		default:
			d := failures.UnknownVerbDetail{Attempted: a.Token}
			if w.res.NearMiss() && len(w.res.Candidates) > 0 {
				d.NearMiss = w.res.Candidates[0].Verb
			}
			f.detail = d
		}
		return f
	case detect.InvalidMarker:
		r.Output = fmt.Sprintf("%s is not a permission marker (., ?, ?ask, !%s)", a.Marker, flagList(rt.cfg.Detect.PermissionFlags))
		return failed(failures.PermissionMarkerInvalidDetail{Marker: a.Marker})
	case detect.TooLarge:
		r.Output = fmt.Sprintf("/%s is larger than %d bytes; split it", a.Token, rt.cfg.Detect.MaxActionBytes)
		return failed(failures.InputTooLargeDetail{Size: len(a.Args) + len(a.Content), Limit: rt.cfg.Detect.MaxActionBytes})
	}
	r.Output = fmt.Sprintf("/%s: %s", a.Token, a.Reason)
	return failed(failures.MalformedSyntaxDetail{Verb: r.Verb, Issue: a.Reason.String()})
}

func flagList(flags []string) string {
	var b strings.Builder
	for _, f := range flags {
		b.WriteString(", ?" + f)
	}
	return b.String()
}

// logOutcome records the message's failures and successes, and the
// message itself when [store] log_messages is on. A lost row is an error
// the caller sees.
func (rt *Runtime) logOutcome(ctx context.Context, msg Message, acts []detect.Action, fails []failures.Failure, ok int) error {
	var prose string
	if rt.cfg.Store.LogMessages {
		prose = strings.TrimSpace(proseOf(msg.Text, acts))
	}
	if len(fails) == 0 && ok == 0 && prose == "" {
		return nil
	}
	st, err := rt.Store(ctx)
	if err != nil {
		return err
	}
	if len(fails) > 0 {
		if err := st.Failures().RecordBatch(ctx, fails); err != nil {
			return fmt.Errorf("failure log: %w", err)
		}
	}
	if ok > 0 {
		if err := st.Failures().RecordSuccess(ctx, msg.Model, ok); err != nil {
			return fmt.Errorf("failure log: %w", err)
		}
	}
	if prose != "" {
		// Logged after its actions ran, so that @last.message in it names
		// the message before. What is logged is what a person reads: the
		// prose, without the action lines, which the runtime records
		// elsewhere (outputs, the failure log); its labels are the #tags
		// and *project written anywhere in it, actions included.
		m := store.Message{Session: msg.Session, Role: "assistant", Agent: msg.Agent, Model: msg.Model, Content: prose}
		m.Tags, m.Project = verbs.Labels(msg.Text)
		if _, err := st.LogMessage(ctx, m); err != nil {
			return fmt.Errorf("conversation log: %w", err)
		}
	}
	return nil
}

// proseOf returns text without its line actions: each one's line, from
// its start (a list bullet or quote marker included), and its content
// block. Inline mentions are prose and stay.
func proseOf(text string, acts []detect.Action) string {
	var b strings.Builder
	at := 0
	for _, a := range acts {
		if a.Inline || a.Span.Start < at || a.Span.End > len(text) {
			continue
		}
		start := strings.LastIndexByte(text[:a.Span.Start], '\n') + 1
		if start < at {
			start = at
		}
		b.WriteString(text[at:start])
		at = a.Span.End
		if at < len(text) && text[at] == '\n' {
			at++
		}
	}
	b.WriteString(text[at:])
	return b.String()
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
