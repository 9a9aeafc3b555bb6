package dialect

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// PendingActions lists the approval queue, oldest first; with all, the
// decided actions too.
func (rt *Runtime) PendingActions(ctx context.Context, all bool) ([]store.Pending, error) {
	st, err := rt.Store(ctx)
	if err != nil {
		return nil, err
	}
	status := store.StatusPending
	if all {
		status = ""
	}
	return st.PendingList(ctx, status)
}

// RuleFor returns the narrowest standing rule with decision d that covers
// pending action id and recurs: the same agent, the verb it runs as, the
// same operation and target, and the argument pattern of
// verbs.RulePattern (the exact block of a block operation, the site of a
// fetch, any argument otherwise). Nothing is saved; a person may widen it
// before passing it to Approve or Deny.
func (rt *Runtime) RuleFor(ctx context.Context, id int64, d store.Decision) (store.Rule, error) {
	st, err := rt.Store(ctx)
	if err != nil {
		return store.Rule{}, err
	}
	p, err := st.GetPending(ctx, id)
	if err != nil {
		return store.Rule{}, pendingErr(err, id)
	}
	return ruleFor(p, d)
}

func ruleFor(p store.Pending, d store.Decision) (store.Rule, error) {
	it, err := intent.Decode([]byte(p.Intent))
	if err != nil {
		return store.Rule{}, err
	}
	return store.Rule{Agent: agentName(p.Agent), Verb: p.Verb, Op: verbs.OperationOf(it), Target: p.Target,
		Args: verbs.RulePattern(it, store.QuoteArgs), Decision: d}, nil
}

// Approve approves pending action id on behalf of by and executes it now,
// recording its output: the call the gate queued, as it was queued. A
// rule, when given, is saved as a standing allowance once the approval is
// recorded (see RuleFor); it is returned with its id in Result.Data.
func (rt *Runtime) Approve(ctx context.Context, id int64, by string, rule *store.Rule) (Result, error) {
	st, err := rt.Store(ctx)
	if err != nil {
		return Result{}, err
	}
	p, err := st.Decide(ctx, id, store.StatusApproved, by, "")
	if err != nil {
		return Result{}, pendingErr(err, id)
	}
	var saved *store.Rule
	if rule != nil {
		r := *rule
		r.Decision, r.By = store.Allow, by
		if r, err = st.SaveRule(ctx, r); err != nil {
			return Result{}, err
		}
		saved = &r
	}
	it, err := intent.Decode([]byte(p.Intent))
	if err != nil {
		return Result{}, err
	}
	res := Result{Verb: p.Verb, Token: p.Verb, Intent: it, Pending: id}
	actx, cancel := context.WithTimeout(ctx, rt.cfg.Run.ActionTimeout.Duration)
	defer cancel()
	c, err := rt.bind(Message{Agent: p.Agent, Model: p.Model, Session: p.Session}, p.Verb, it)
	var out verbs.Output
	if err == nil {
		out, err = rt.registry.Execute(actx, c)
	}
	if err != nil {
		rt.fail(actx, err, &res, &c)
		res.Stage = "execute"
	} else {
		rt.finish(ctx, st, c, out, &res)
	}
	if saved != nil && res.Data == nil {
		res.Data = map[string]any{"rule": saved}
	}
	if err := st.SetResult(ctx, id, string(res.Status)+": "+res.Output); err != nil {
		return res, err
	}
	return res, nil
}

// Deny denies pending action id; it will never run. The denial, with the
// reason, is recorded as the action's outcome in its session, so that the
// agent that queued it reads it as @last.output. A rule, when given, is
// saved as a standing denial whose note is the reason: the gate tells the
// model that reason whenever the rule denies.
func (rt *Runtime) Deny(ctx context.Context, id int64, by, reason string, rule *store.Rule) (*store.Rule, error) {
	st, err := rt.Store(ctx)
	if err != nil {
		return nil, err
	}
	p, err := st.Decide(ctx, id, store.StatusDenied, by, reason)
	if err != nil {
		return nil, pendingErr(err, id)
	}
	out := fmt.Sprintf("#%d %s was denied by %s", id, oneLine(p.Raw, 80), agentName(by))
	if reason != "" {
		out += ": " + reason
	}
	if err := st.RecordOutput(ctx, store.Output{Session: p.Session, Verb: p.Verb, Status: string(StatusDenied), Output: out}); err != nil {
		return nil, err
	}
	if rule == nil {
		return nil, nil
	}
	r := *rule
	r.Decision, r.By = store.Deny, by
	if r.Note == "" {
		r.Note = reason
	}
	r, err = st.SaveRule(ctx, r)
	return &r, err
}

// oneLine shortens text to its first line, at most n characters.
func oneLine(text string, n int) string {
	line, _, more := strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(line); len(r) > n {
		line, more = string(r[:n-1]), true
	}
	if more {
		line += "…"
	}
	return line
}

func pendingErr(err error, id int64) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return codes.Wrap(codes.NotFound, err, "there is no pending action #%d", id)
	case errors.Is(err, store.ErrDecided):
		return codes.Wrap(codes.AlreadyDecided, err, "#%d was already decided", id)
	}
	return err
}

// authority carries out /approve, /deny, /escalate, /cancel ID and /halt
// from an agent (the gate has checked its role).
func (rt *Runtime) authority(ctx context.Context, c verbs.Call) (verbs.Output, error) {
	in, ok := c.Intent.(intent.Authority)
	if !ok {
		return verbs.Output{}, codes.Errorf(codes.UnsupportedIntent, "/%s is not an act of authority", c.Verb)
	}
	text, err := rt.authorityText(ctx, c.Agent, in)
	return verbs.Output{Text: text}, err
}

// alwaysRule is the rule an agent's "always" makes: the narrowest that
// covers the action (RuleFor); nil without always.
func (rt *Runtime) alwaysRule(p store.Pending, always bool, d store.Decision) (*store.Rule, error) {
	if !always {
		return nil, nil
	}
	r, err := ruleFor(p, d)
	return &r, err
}

func ruleText(r *store.Rule) string {
	if r == nil {
		return ""
	}
	return " and made the standing rule: " + r.String()
}

func (rt *Runtime) authorityText(ctx context.Context, agent string, in intent.Authority) (string, error) {
	switch in.Op {
	case intent.Halt:
		return "halting: " + in.Reason, nil
	case intent.Cancel:
		if in.ID == "" {
			return "cancelled this message's earlier actions", nil
		}
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(in.ID, "#"), 10, 64)
	if err != nil {
		return "", codes.Errorf(codes.MalformedSyntax, "%q is not a pending action id", in.ID)
	}
	st, err := rt.Store(ctx)
	if err != nil {
		return "", err
	}
	by := agentName(agent)
	switch in.Op {
	case intent.Approve:
		// Approval is a second pair of eyes: an agent never approves an
		// action it queued itself.
		p, err := st.GetPending(ctx, id)
		if err != nil {
			return "", pendingErr(err, id)
		}
		if agentName(p.Agent) == by {
			return "", codes.Errorf(codes.PermissionDenied, "#%d was queued by %s, who cannot approve it", id, by)
		}
		rule, err := rt.alwaysRule(p, in.Always, store.Allow)
		if err != nil {
			return "", err
		}
		res, err := rt.Approve(ctx, id, by, rule)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("approved #%d%s: %s", id, ruleText(rule), res.Output), nil
	case intent.Deny:
		p, err := st.GetPending(ctx, id)
		if err != nil {
			return "", pendingErr(err, id)
		}
		rule, err := rt.alwaysRule(p, in.Always, store.Deny)
		if err != nil {
			return "", err
		}
		if _, err := rt.Deny(ctx, id, by, in.Reason, rule); err != nil {
			return "", err
		}
		return fmt.Sprintf("denied #%d%s", id, ruleText(rule)), nil
	case intent.Escalate:
		if _, err := st.Decide(ctx, id, store.StatusEscalated, by, in.Reason); err != nil {
			return "", pendingErr(err, id)
		}
		return fmt.Sprintf("escalated #%d", id), nil
	case intent.Cancel:
		if _, err := st.Decide(ctx, id, store.StatusCancelled, by, ""); err != nil {
			return "", pendingErr(err, id)
		}
		return fmt.Sprintf("cancelled #%d", id), nil
	}
	return "", fmt.Errorf("authority: unknown operation %q", in.Op)
}
