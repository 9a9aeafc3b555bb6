package dialect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/internal/store"
)

// verdict is the permission gate's decision on one action.
type verdict struct {
	status Status // StatusOK to run, StatusPending to queue, StatusDenied
	why    string // a few words for the model and the queue
}

// gate decides whether an action may run now (docs/permission.md):
//
//   - authority verbs (approve, deny, escalate, halt) need the agent to hold
//     that role, else they are denied;
//   - a standing deny rule for agent/verb/target denies;
//   - the markers ! and ?ask always ask, whatever the rules say;
//   - a verb or target with requires_permission asks, unless a standing
//     allow rule covers it;
//   - the marker ? asks for anything that is not read-only;
//   - everything else (including the marker .) runs.
func (rt *Runtime) gate(ctx context.Context, msg Message, a *detect.Action, verb string, it intent.Intent) verdict {
	if auth, ok := unwrap(it).(intent.Authority); ok && auth.Op != intent.Cancel {
		if !rt.holds(msg.Agent, string(auth.Op)) {
			return verdict{StatusDenied, fmt.Sprintf("agent %q does not hold the %s role", agentName(msg.Agent), auth.Op)}
		}
		return verdict{status: StatusOK}
	}
	target := targetOf(it)
	rule, ruled, err := rt.store.Rule(ctx, msg.Agent, verb, target)
	if err != nil {
		return verdict{StatusPending, "the standing rules could not be read"}
	}
	if ruled && rule == store.Deny {
		return verdict{StatusDenied, fmt.Sprintf("a standing rule denies /%s%s", verb, onTarget(target))}
	}
	switch a.Marker {
	case "!":
		return verdict{StatusPending, "marked ! (serious)"}
	case "?ask":
		return verdict{StatusPending, "marked ?ask"}
	}
	if v := rt.registry.Verb(verb); v != nil && v.RequiresPermission && !(ruled && rule == store.Allow) {
		return verdict{StatusPending, fmt.Sprintf("/%s requires permission", verb)}
	}
	if target != "" && slices.Contains(rt.cfg.Permission.Targets, target) && !(ruled && rule == store.Allow) {
		return verdict{StatusPending, fmt.Sprintf("target %s requires permission", target)}
	}
	if a.Marker == "?" && !it.ReadOnly() && !(ruled && rule == store.Allow) {
		return verdict{StatusPending, "marked ? and it changes something"}
	}
	return verdict{status: StatusOK}
}

// holds reports whether agent has the authority role op. The empty agent
// is the local owner at the terminal only when configured so.
func (rt *Runtime) holds(agent, op string) bool {
	a, ok := rt.cfg.Agents[agentName(agent)]
	return ok && slices.Contains(a.Authority, op)
}

func agentName(a string) string {
	if a == "" {
		return "default"
	}
	return a
}

// targetOf names where an intent delivers, for rules and per-target
// permission: "domain:target" for send-like intents.
func targetOf(it intent.Intent) string {
	switch in := it.(type) {
	case intent.Send:
		if in.Target != "" {
			return in.Domain + ":" + in.Target
		}
		return in.Domain
	case intent.Custom:
		if in.Target != nil {
			if in.Target.ID != "" {
				return in.Target.Type + ":" + in.Target.ID
			}
			return in.Target.Type
		}
		if in.Inner != nil {
			return targetOf(in.Inner)
		}
		return in.MapsTo
	case intent.Fetch:
		return "fetch"
	case intent.Web:
		return "web"
	}
	return ""
}

func onTarget(t string) string {
	if t == "" {
		return ""
	}
	return " to " + t
}

// enqueue records an action for approval.
func (rt *Runtime) enqueue(ctx context.Context, msg Message, a *detect.Action, verb string, it intent.Intent, why string) (int64, error) {
	js, err := intent.Marshal(it)
	if err != nil {
		return 0, err
	}
	return rt.store.Enqueue(ctx, store.Pending{
		Agent: msg.Agent, Model: msg.Model, Session: msg.Session, Verb: verb, Target: targetOf(it),
		Intent: string(js), Raw: rawAction(msg.Text, a), Why: why,
	})
}

// execAuthority carries out /approve, /deny, /escalate, /cancel ID and
// /halt from an agent (the gate has checked its role).
func (rt *Runtime) execAuthority(ctx context.Context, msg Message, in intent.Authority) (string, error) {
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
		return "", &ActionError{Code: "MALFORMED_SYNTAX", Msg: fmt.Sprintf("%q is not a pending action id", in.ID)}
	}
	by := agentName(msg.Agent)
	if in.Op == intent.Approve {
		// Approval is a second pair of eyes: an agent never approves an
		// action it queued itself.
		p, err := rt.store.GetPending(ctx, id)
		if err != nil {
			return "", pendingErr(err, id)
		}
		if agentName(p.Agent) == by {
			return "", &ActionError{Code: "PERMISSION_DENIED", Msg: fmt.Sprintf("#%d was queued by %s, who cannot approve it", id, by)}
		}
	}
	switch in.Op {
	case intent.Approve:
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
		if _, err := rt.store.Decide(ctx, id, store.StatusEscalated, by, in.Reason); err != nil {
			return "", pendingErr(err, id)
		}
		return fmt.Sprintf("escalated #%d", id), nil
	case intent.Cancel:
		if _, err := rt.store.Decide(ctx, id, store.StatusCancelled, by, ""); err != nil {
			return "", pendingErr(err, id)
		}
		return fmt.Sprintf("cancelled #%d", id), nil
	}
	return "", fmt.Errorf("authority: unknown operation %q", in.Op)
}

// Approve approves pending action id on behalf of by and executes it now,
// recording its output. With always, a standing rule allows the same verb
// and target for the same agent from now on.
func (rt *Runtime) Approve(ctx context.Context, id int64, by string, always bool) (Result, error) {
	p, err := rt.store.Decide(ctx, id, store.StatusApproved, by, "")
	if err != nil {
		return Result{}, pendingErr(err, id)
	}
	if always {
		if err := rt.store.AddRule(ctx, p.Agent, p.Verb, p.Target, store.Allow, by); err != nil {
			return Result{}, err
		}
	}
	it, err := intent.Decode([]byte(p.Intent))
	if err != nil {
		return Result{}, err
	}
	msg := Message{Agent: p.Agent, Model: p.Model, Session: p.Session}
	res := Result{Verb: p.Verb, Token: p.Verb, Intent: it, Pending: id}
	actx, cancel := context.WithTimeout(ctx, rt.cfg.Run.ActionTimeout.Duration)
	defer cancel()
	out, err := rt.execute(actx, msg, p.Verb, it)
	if err != nil {
		res.Status, res.Output = StatusError, err.Error()
		var ae *ActionError
		if errors.As(err, &ae) {
			res.Code, res.Output = ae.Code, ae.Msg
		}
	} else {
		res.Status, res.Output = StatusOK, out
		_ = rt.store.RecordOutput(ctx, store.Output{Session: p.Session, Verb: p.Verb, Status: string(StatusOK), Output: out})
	}
	if err := rt.store.SetResult(ctx, id, string(res.Status)+": "+res.Output); err != nil {
		return res, err
	}
	return res, nil
}

// Deny denies pending action id; it will never run. With always, a
// standing rule denies the same verb and target for the same agent.
func (rt *Runtime) Deny(ctx context.Context, id int64, by, reason string, always bool) error {
	p, err := rt.store.Decide(ctx, id, store.StatusDenied, by, reason)
	if err != nil {
		return pendingErr(err, id)
	}
	if always {
		return rt.store.AddRule(ctx, p.Agent, p.Verb, p.Target, store.Deny, by)
	}
	return nil
}

func pendingErr(err error, id int64) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &ActionError{Code: "NOT_FOUND", Msg: fmt.Sprintf("there is no pending action #%d", id), Err: err}
	case errors.Is(err, store.ErrDecided):
		return &ActionError{Code: "ALREADY_DECIDED", Msg: err.Error(), Err: err}
	}
	return err
}

// Pending is an action waiting for approval (or, with all, decided).
type Pending = store.Pending

// PendingActions lists the approval queue, oldest first; with all, the
// decided actions too.
func (rt *Runtime) PendingActions(ctx context.Context, all bool) ([]Pending, error) {
	status := store.StatusPending
	if all {
		status = ""
	}
	return rt.store.PendingList(ctx, status)
}
