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

// Approve approves pending action id on behalf of by and executes it now,
// recording its output: the call the gate queued, as it was queued. With
// always, a standing rule allows the same verb and target for the same
// agent from now on.
func (rt *Runtime) Approve(ctx context.Context, id int64, by string, always bool) (Result, error) {
	st, err := rt.Store(ctx)
	if err != nil {
		return Result{}, err
	}
	p, err := st.Decide(ctx, id, store.StatusApproved, by, "")
	if err != nil {
		return Result{}, pendingErr(err, id)
	}
	if always {
		if err := st.AddRule(ctx, p.Agent, p.Verb, p.Target, store.Allow, by); err != nil {
			return Result{}, err
		}
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
		rt.fail(actx, err, &res)
		res.Stage = "execute"
	} else {
		rt.finish(ctx, st, c, out, &res)
	}
	if err := st.SetResult(ctx, id, string(res.Status)+": "+res.Output); err != nil {
		return res, err
	}
	return res, nil
}

// Deny denies pending action id; it will never run. With always, a
// standing rule denies the same verb and target for the same agent.
func (rt *Runtime) Deny(ctx context.Context, id int64, by, reason string, always bool) error {
	st, err := rt.Store(ctx)
	if err != nil {
		return err
	}
	p, err := st.Decide(ctx, id, store.StatusDenied, by, reason)
	if err != nil {
		return pendingErr(err, id)
	}
	if always {
		return st.AddRule(ctx, p.Agent, p.Verb, p.Target, store.Deny, by)
	}
	return nil
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
		res, err := rt.Approve(ctx, id, by, in.Always)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("approved #%d: %s", id, res.Output), nil
	case intent.Deny:
		if err := rt.Deny(ctx, id, by, in.Reason, in.Always); err != nil {
			return "", err
		}
		return fmt.Sprintf("denied #%d", id), nil
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
