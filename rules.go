package dialect

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pattern-dialect/dialect/store"
)

// operations are the operations of the built-in verbs a rule may name,
// by the verb after mapping ("" for the verb's one operation).
var operations = map[string][]string{
	"recall":  {"read", "search", "insert", "append", "delete", "patch", "history", "restore"},
	"context": {"append", "replace", "archive", "load", "swap"},
	"send":    {""},
	"fetch":   {"", "continue"},
	"cancel":  {"cancel"},
}

// CheckRule spells a standing rule written by a person as the gate
// matches calls, or says what is wrong with it. Empty fields mean "*".
// A verb is taken as written or through any of its names, and becomes
// the verb it runs as: /tell is /send (a rule on sends covers every
// shorthand: they are one call), a custom verb mapped to /recall is
// /recall. The operation must be one the verb
// has; a target is folded as the gate folds it.
func (rt *Runtime) CheckRule(r store.Rule) (store.Rule, error) {
	star := func(s string) string {
		if s = strings.TrimSpace(s); s == "" {
			return "*"
		}
		return s
	}
	r.Agent, r.Verb, r.Op, r.Target, r.Args = star(r.Agent), star(strings.ToLower(r.Verb)), star(strings.ToLower(r.Op)), star(r.Target), star(r.Args)
	if r.Decision != store.Allow && r.Decision != store.Deny {
		return r, fmt.Errorf("a rule allows or denies, not %q", r.Decision)
	}
	if r.Agent != "*" {
		if err := checkAgent(r.Agent); err != nil {
			return r, err
		}
	}
	if r.Target != "*" {
		r.Target = foldTarget(r.Target)
	}
	if r.Verb == "*" {
		return r, nil
	}
	claims := rt.registry.Claimants(r.Verb)
	if len(claims) == 0 {
		msg := fmt.Sprintf("/%s is not a verb here", r.Verb)
		if res := rt.Resolve(r.Verb); res.OK() {
			msg += fmt.Sprintf(" — did you mean /%s?", res.Verb)
		}
		return r, fmt.Errorf("%s", msg)
	}
	if len(claims) > 1 {
		return r, fmt.Errorf("/%s names %s; name the verb", r.Verb, strings.Join(claims, " and "))
	}
	v := rt.registry.Verb(claims[0])
	runs := v.Name
	if v.Custom {
		runs = v.MapsTo
		if b := rt.registry.Verb(strings.ToLower(v.MapsTo)); b != nil && !b.Custom {
			runs = b.Name
		}
	}
	switch runs {
	case "reply", "post", "dm", "tell":
		runs = "send" // the shorthands run as send, and are one call with it
	}
	if authorityVerbs[runs] {
		return r, fmt.Errorf("/%s is decided by the agents' authority roles ([agents.NAME] authority), not by rules", runs)
	}
	r.Verb = runs
	if r.Op == "-" {
		r.Op = ""
	}
	ops, has := operations[runs]
	switch {
	case r.Op == "*":
	case has && !slices.Contains(ops, r.Op):
		return r, fmt.Errorf("/%s has no operation %q (%s)", runs, r.Op, opList(ops))
	case !has && r.Op != "":
		return r, fmt.Errorf("/%s does one thing; leave the operation out", runs)
	}
	return r, nil
}

// authorityVerbs are decided by roles, before any rule.
var authorityVerbs = map[string]bool{"approve": true, "deny": true, "escalate": true, "halt": true}

func opList(ops []string) string {
	out := make([]string, len(ops))
	for i, o := range ops {
		if o == "" {
			o = "- for the verb itself"
		}
		out[i] = o
	}
	return strings.Join(out, ", ")
}
