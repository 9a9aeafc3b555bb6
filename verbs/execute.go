package verbs

import (
	"context"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// Call is one action ready to run. The runtime builds it once, after
// parsing and resolving references: the permission gate decides on it,
// standing rules match it, and its executor carries out exactly it, so no
// stage downstream of the gate derives a target or a verb again.
type Call struct {
	// Verb is the verb as resolved: a custom verb's own name, "tell" for
	// /tell.
	Verb string
	// Runs is what carries the call out, the key of its executor: the
	// built-in verb after mapping ("send" for /tell and for a custom verb
	// mapped to send), a configured tool's name, or a Go verb's name.
	Runs string
	// Intent is what to carry out: for a custom verb mapped to a built-in
	// verb, the inner intent with its template applied.
	Intent intent.Intent
	// Target is where the call delivers, normalised (lower case, no "@"):
	// "agent:anchor", "bluesky", "user". Empty when it delivers nowhere.
	Target string
	// Route is the configured delivery target a send goes to (a name
	// under [exec.send.targets]); empty for other calls.
	Route string
	// Op is what the call does within its verb (Operation): standing
	// rules tell a recall insert from a recall search by it.
	Op string
	// Args is the argument a standing rule's pattern matches (Argument).
	Args string

	// Who made it: the message's agent, model and session.
	Agent, Model, Session string
}

// Executor carries out calls: the execute hook of a verb. Built-in verbs,
// configured tools and Go verbs all run through one: the registry
// dispatches a call to the executor registered for its Runs.
type Executor interface {
	Execute(ctx context.Context, c Call) (Output, error)
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, c Call) (Output, error)

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, c Call) (Output, error) { return f(ctx, c) }

// Output is what an execution hands back: text for the model and,
// optionally, data for programs (`dialect run --json`).
type Output struct {
	Text string
	Data any
}

// Execute dispatches c to the executor registered for c.Runs. A call
// nothing carries out is NOT_CONFIGURED.
func (r *Registry) Execute(ctx context.Context, c Call) (Output, error) {
	ex := r.executors[c.Runs]
	if ex == nil {
		return Output{}, codes.Errorf(codes.NotConfigured, "/%s has no executor configured here", c.Verb)
	}
	return ex.Execute(ctx, c)
}

// Runs returns what carries out it, written with verb: the key of its
// executor (see Call.Runs).
func (r *Registry) Runs(verb string, it intent.Intent) string {
	switch in := it.(type) {
	case intent.Custom:
		if in.Inner != nil {
			return r.Runs(in.MapsTo, in.Inner)
		}
		return in.MapsTo
	case intent.Authority:
		return string(in.Op)
	case nil:
		return verb
	}
	return it.Kind()
}
