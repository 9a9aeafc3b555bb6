package verbs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/grammarbridge"
	"github.com/pattern-dialect/dialect/intent"
)

// Definition is a verb a Go program adds to the registry: how it is
// written, how its arguments are read, and what carries it out. It
// resolves, parses, is gated, appears in the instructions and runs like a
// built-in verb. Its intent is an intent.Custom whose Verb and MapsTo are
// Name and whose Args are what Grammar or Parse read.
type Definition struct {
	Name        string     // canonical name: a letter, then letters, digits, '_' or '-'
	Aliases     []string   // other names, possibly several words
	Strictness  Strictness // how forgiving resolution may be (Normal when zero)
	Description string     // one line, for the instructions
	Examples    []string   // few-shot examples for the instructions
	Form        string     // the usage line; "/NAME ARGUMENTS" when empty

	// Grammar is a TypeAgent .agr grammar (its text) whose <Start> rule
	// reads the arguments; the value it gives becomes Args (an object's
	// fields, or {"value": v}).
	Grammar string
	// Parse reads the arguments when Grammar is empty. Return a
	// *ParseError (codes.MissingArg, codes.MalformedSyntax...) for
	// arguments that cannot be read. With neither Grammar nor Parse, the
	// arguments are read as a configured tool's are: key=value pairs, the
	// rest as "content".
	Parse func(ctx context.Context, in Input) (map[string]any, error)

	// ParseCall reads the arguments of a verb whose calls differ in what
	// they do and risk — an MCP server, whose first argument names one of
	// its tools: it returns the whole intent (Tool, Args, ReadOnlyHint,
	// Destructive); the registry sets Verb and MapsTo to Name. It takes
	// precedence over Grammar and Parse.
	ParseCall func(ctx context.Context, in Input) (intent.Custom, error)
	// Approval says why one parsed call must wait for approval, "" when
	// it need not. The gate asks it where it checks requires_permission,
	// so standing rules and markers apply as for any verb.
	Approval func(it intent.Custom) string
	// Operations lists what the verb's first argument may name (an MCP
	// server's tools), for the instructions and `dialect verbs --json`.
	// It may do I/O, such as starting the server, within ctx.
	Operations func(ctx context.Context) ([]Operation, error)

	// ReadOnly says that running it changes nothing, anywhere: it may run
	// under the "?" marker and early while a message streams.
	ReadOnly bool
	// RequiresPermission queues every use for approval.
	RequiresPermission bool
	// Executor carries it out (required).
	Executor Executor
}

// Operation is one thing a verb with operations can do: an MCP server's
// tool, described for the instructions.
type Operation struct {
	Name        string
	Description string  // the tool's own description, as given
	Params      []Param // in the order of its schema, required ones first
	ReadOnly    bool    // annotated read-only
	Destructive bool    // not read-only, and destructive or not annotated
}

// Param is one parameter of an Operation.
type Param struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`  // the JSON Schema type: string, number, integer, boolean, array, object
	Items       string `json:"items,omitempty"` // an array's item type
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

// define adds d to the registry.
func (r *Registry) define(d Definition) error {
	key := "verb " + d.Name
	name := strings.ToLower(strings.TrimSpace(d.Name))
	switch {
	case !ValidName(name):
		return &ConfigError{key, "a verb name is a letter, then letters, digits, '_' or '-'"}
	case r.by[name] != nil:
		return &ConfigError{key, fmt.Sprintf("/%s is already a verb", name)}
	case d.Executor == nil:
		return &ConfigError{key, "needs an Executor"}
	}
	for _, a := range d.Aliases {
		if !validAlias(a) {
			return &ConfigError{key, fmt.Sprintf("alias %q is not a verb phrase (words of letters, digits, '_' or '-')", a)}
		}
	}
	v := &Verb{
		Spec:               Spec{Name: name, Aliases: appendNew(nil, d.Aliases...), Strictness: d.Strictness, Description: d.Description},
		Examples:           d.Examples,
		RequiresPermission: d.RequiresPermission,
		ReadOnly:           d.ReadOnly && d.ParseCall == nil,
		HasOperations:      d.Operations != nil,
		Form:               d.Form,
		def:                &d,
	}
	if v.Form == "" {
		v.Form = "/" + name + " ARGUMENTS"
	}
	if d.Grammar != "" {
		file := "go-verb-" + name + ".agr"
		g, err := grammarbridge.Compile(layered{name: file, wrapper: d.Grammar, next: grammarbridge.OSLoader{}}, file, customGrammarOptions)
		if err != nil {
			return &ConfigError{key, "grammar: " + err.Error()}
		}
		v.grammar = g
	}
	r.verbs = append(r.verbs, v)
	r.by[name] = v
	r.executors[name] = d.Executor
	return nil
}

// parseDefined reads the arguments of a Go verb.
func (r *Registry) parseDefined(ctx context.Context, v *Verb, in Input) (intent.Intent, error) {
	var args map[string]any
	var err error
	switch {
	case v.def.ParseCall != nil:
		return r.parseCall(ctx, v, in)
	case v.grammar != nil:
		args, _, err = r.matchCustom(ctx, v, in)
	case v.def.Parse != nil:
		args, err = v.def.Parse(ctx, in)
		var pe *ParseError
		if errors.As(err, &pe) && pe.Verb == "" {
			pe.Verb = v.Name
		}
		if err == nil {
			err = checkArgs(v.Name, args)
		}
	default:
		args, err = toolArgs(v.Name, in)
	}
	if err != nil {
		return nil, err
	}
	return intent.Custom{Verb: v.Name, MapsTo: v.Name, Args: args, ReadOnlyHint: v.def.ReadOnly}, nil
}

// checkArgs refuses what a parse func returned that a JavaScript host
// must not receive (a banned key anywhere) or JSON cannot carry.
func checkArgs(verb string, args map[string]any) error {
	if k := bannedIn(map[string]any(args)); k != "" {
		return perr(codes.BannedKey, verb, 0, "/%s: the key %q is not allowed in arguments", verb, k)
	}
	if _, err := json.Marshal(args); err != nil {
		return fmt.Errorf("verbs: /%s: its arguments are not JSON: %w", verb, err)
	}
	return nil
}

// parseCall reads the arguments of a Go verb that builds its own intent.
func (r *Registry) parseCall(ctx context.Context, v *Verb, in Input) (intent.Intent, error) {
	c, err := v.def.ParseCall(ctx, in)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && pe.Verb == "" {
			pe.Verb = v.Name
		}
		return nil, err
	}
	if err := checkArgs(v.Name, c.Args); err != nil {
		return nil, err
	}
	c.Verb, c.MapsTo, c.Inner = v.Name, v.Name, nil
	return c, nil
}

// Approval says why call c must wait for approval, by the hook of the Go
// verb it runs as; "" when it need not or the verb has no such hook.
func (r *Registry) Approval(c Call) string {
	v := r.by[c.Runs]
	cu, ok := c.Intent.(intent.Custom)
	if v == nil || v.def == nil || v.def.Approval == nil || !ok {
		return ""
	}
	return v.def.Approval(cu)
}

// Operations lists the operations of verb name (an MCP server's tools),
// doing what I/O that needs within ctx; nil for a verb without any.
func (r *Registry) Operations(ctx context.Context, name string) ([]Operation, error) {
	v := r.by[name]
	if v == nil || v.def == nil || v.def.Operations == nil {
		return nil, nil
	}
	return v.def.Operations(ctx)
}
