package dialect

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// bind is the bind stage: it turns a parsed intent into the one Call that
// the gate decides on, standing rules match and the executor carries out.
// It maps a custom verb to what it runs as (its inner intent, template
// applied), folds a delivery's domain and target to lower case without
// "@", and routes it to a configured target. Nothing after it derives a
// verb or a target again.
func (rt *Runtime) bind(msg Message, verb string, it intent.Intent) (verbs.Call, error) {
	c := verbs.Call{Verb: verb, Runs: rt.registry.Runs(verb, it), Intent: it, Agent: msg.Agent, Model: msg.Model, Session: msg.Session}
	if cu, ok := it.(intent.Custom); ok {
		switch {
		case cu.Inner != nil:
			c.Intent = cu.Inner
		case cu.Tool != "":
			c.Target = "mcp:" + strings.ToLower(c.Runs) + "/" + strings.ToLower(cu.Tool) // an MCP server's tool
		default:
			c.Target = strings.ToLower(c.Runs) // a tool or a Go verb
		}
	}
	switch in := c.Intent.(type) {
	case intent.Send:
		in.Domain, in.Target = foldName(in.Domain), foldName(in.Target)
		c.Intent, c.Target = in, in.Domain
		if in.Target != "" {
			c.Target += ":" + in.Target
		}
		route, ok := rt.exec.Sender.Route(in)
		if !ok {
			return c, codes.Errorf(codes.NotConfigured, "nothing is configured to deliver to @%s", in.Domain)
		}
		c.Route = route
	case intent.Fetch:
		c.Target = "fetch"
	case intent.Web:
		c.Target = "web"
	}
	c.Op, c.Args = verbs.OperationOf(c.Intent), verbs.Argument(c.Intent)
	return c, nil
}

// foldName is the one spelling of a delivery domain or target: routes,
// permission targets and standing rules all compare names this way.
func foldName(s string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "@"))
}

// verdict is the permission gate's decision on one call.
type verdict struct {
	status Status // StatusOK to run, StatusPending to queue, StatusDenied
	why    string // a few words for the model and the queue
}

// gate decides whether a call may run now (docs/permission.md):
//
//   - authority verbs (approve, deny, escalate, halt) need the agent to hold
//     that role, else they are denied;
//   - a standing deny rule for agent, verb run and target denies;
//   - the markers ! and ?ask always ask, whatever the rules say;
//   - a verb with requires_permission — the verb written or the verb it
//     runs as — asks, unless a standing allow rule covers the call;
//   - so does a call its verb says needs approval (an MCP tool, by its
//     annotations and the server's approve policy);
//   - so does a target listed in [permission] targets, in a listed
//     domain, or under a listed "domain:name/" ("mcp:fs" covers
//     "mcp:fs/write_file");
//   - the marker ? asks for anything that is not read-only;
//   - everything else (including the marker .) runs.
func (rt *Runtime) gate(ctx context.Context, st store.Store, marker string, c verbs.Call) verdict {
	if auth, ok := c.Intent.(intent.Authority); ok && auth.Op != intent.Cancel {
		if !rt.holds(c.Agent, string(auth.Op)) {
			return verdict{StatusDenied, fmt.Sprintf("agent %q does not hold the %s role", agentName(c.Agent), auth.Op)}
		}
		return verdict{status: StatusOK}
	}
	rule, ruled, err := st.MatchRule(ctx, action(c))
	if err != nil {
		return verdict{StatusPending, "the standing rules could not be read"}
	}
	if ruled && rule.Decision == store.Deny {
		why := fmt.Sprintf("standing rule #%d denies %s", rule.ID, describeCall(c))
		if rule.Note != "" {
			why += fmt.Sprintf("; %s said: %q", agentOr(rule.By, "the owner"), rule.Note)
		}
		return verdict{StatusDenied, why}
	}
	switch marker {
	case "!":
		return verdict{StatusPending, "marked ! (serious)"}
	case "?ask":
		return verdict{StatusPending, "marked ?ask"}
	}
	allowed := ruled && rule.Decision == store.Allow
	switch {
	case allowed:
	case rt.requiresPermission(c):
		return verdict{StatusPending, fmt.Sprintf("/%s requires permission", c.Runs)}
	case rt.registry.Approval(c) != "":
		return verdict{StatusPending, rt.registry.Approval(c)}
	case rt.listedTarget(c.Target):
		return verdict{StatusPending, fmt.Sprintf("target %s requires permission", c.Target)}
	case marker == "?" && !c.Intent.ReadOnly():
		return verdict{StatusPending, "marked ? and it changes something"}
	}
	return verdict{status: StatusOK}
}

// requiresPermission reports whether the verb written or the verb it runs
// as (send, for /tell and for a custom verb mapped to send) requires
// permission.
func (rt *Runtime) requiresPermission(c verbs.Call) bool {
	for _, name := range []string{c.Verb, c.Runs} {
		if v := rt.registry.Verb(name); v != nil && v.RequiresPermission {
			return true
		}
	}
	return false
}

// listedTarget reports whether [permission] targets lists target or its
// domain ("bluesky" covers "bluesky:someone").
func (rt *Runtime) listedTarget(target string) bool {
	if target == "" {
		return false
	}
	domain, _, _ := strings.Cut(target, ":")
	for _, t := range rt.cfg.Permission.Targets {
		t = foldTarget(t)
		if t == target || t == domain || strings.HasPrefix(target, t+"/") {
			return true
		}
	}
	return false
}

// foldTarget is foldName for "domain:target".
func foldTarget(t string) string {
	d, id, ok := strings.Cut(t, ":")
	if !ok {
		return foldName(d)
	}
	return foldName(d) + ":" + foldName(id)
}

// holds reports whether agent has the authority role op. The empty agent
// is "default", which holds a role only when configured so.
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

// action is a call as standing rules see it.
func action(c verbs.Call) store.Action {
	return store.Action{Agent: agentName(c.Agent), Verb: c.Runs, Op: c.Op, Target: c.Target, Args: c.Args}
}

// describeCall names a call in a few words: "/recall insert", "/send post
// to bluesky".
func describeCall(c verbs.Call) string {
	s := "/" + c.Runs
	if c.Op != "" {
		s += " " + c.Op
	}
	if c.Target != "" && c.Target != c.Runs {
		s += " to " + c.Target
	}
	return s
}

func agentOr(a, def string) string {
	if a == "" {
		return def
	}
	return a
}

// enqueue records a call for approval: exactly the call the gate decided
// on, so that approving it runs that and nothing else.
func (rt *Runtime) enqueue(ctx context.Context, st store.Store, msg Message, raw string, c verbs.Call, why string) (int64, error) {
	js, err := intent.Marshal(c.Intent)
	if err != nil {
		return 0, err
	}
	return st.Enqueue(ctx, store.Pending{
		Agent: msg.Agent, Model: msg.Model, Session: msg.Session, Verb: c.Runs, Target: c.Target,
		Intent: string(js), Raw: raw, Why: why,
	})
}
