package verbs

import (
	"context"
	"errors"
	"fmt"

	"github.com/pattern-dialect/dialect/intent"
)

// Executor carries out intents: the execute hook of a verb. Package verbs
// only declares it; the executors themselves (memory store, send, fetch,
// web, calc, configured tools) are supplied by the runtime in
// Options.Executors, keyed by verb or tool name.
type Executor interface {
	Execute(ctx context.Context, verb string, in intent.Intent) (Output, error)
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, verb string, in intent.Intent) (Output, error)

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, verb string, in intent.Intent) (Output, error) {
	return f(ctx, verb, in)
}

// Output is what an execution hands back: text for the model and,
// optionally, data for JSON results.
type Output struct {
	Text string
	Data any
}

// ErrNoExecutor is returned by Execute for a verb nothing executes.
var ErrNoExecutor = errors.New("verbs: no executor")

// Execute runs in with the executor of verb: the verb's own, else (for a
// custom verb) that of the built-in verb or tool it maps to.
func (r *Registry) Execute(ctx context.Context, verb string, in intent.Intent) (Output, error) {
	v := r.by[verb]
	if v == nil {
		return Output{}, fmt.Errorf("verbs: execute /%s: %w", verb, ErrNoExecutor)
	}
	ex := r.opts.Executors[v.Name]
	if ex == nil && v.Custom {
		ex = r.opts.Executors[v.MapsTo]
	}
	if ex == nil {
		return Output{}, fmt.Errorf("verbs: execute /%s: %w", verb, ErrNoExecutor)
	}
	return ex.Execute(ctx, v.Name, in)
}
