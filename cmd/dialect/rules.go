package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/pattern-dialect/dialect/store"
)

func init() {
	register(&command{
		name: "rules",
		usage: "[list] [--json] [--config F] [--db PATH]\n" +
			"add allow|deny [--agent A] [--verb V] [--op O] [--target T] [--args PATTERN] [--reason R] [--json]\n" +
			"rm ID... [--json]",
		short: "list, add and remove the standing rules of the approval gate",
		run:   runRules,
	})
}

func runRules(ctx context.Context, sio *stdio, args []string) error {
	sub, args := subcommand(args, "list", "ls", "add", "rm", "remove")
	switch sub {
	case "add":
		return rulesAdd(ctx, sio, args)
	case "rm", "remove":
		return rulesRemove(ctx, sio, args)
	}
	return rulesList(ctx, sio, args)
}

func rulesList(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["rules"], sio).state()
	asJSON := f.Bool("json", false, "one JSON object per rule")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	rt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	st, err := rt.Store(ctx)
	if err != nil {
		return err
	}
	rs, err := st.Rules(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(sio.out)
		enc.SetEscapeHTML(false)
		for _, r := range rs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(rs) == 0 {
		fmt.Fprintln(sio.out, "no standing rules")
		return nil
	}
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tDECISION\tAGENT\tVERB\tOP\tTARGET\tARGS\tBY\tCREATED\tNOTE")
	for _, r := range rs {
		fmt.Fprintf(tw, "#%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Decision, cell(r.Agent), cell(r.Verb), cell(r.Op), cell(r.Target),
			cell(r.Args), cell(r.By), r.Created.Local().Format("2006-01-02 15:04"), oneLine(r.Note))
	}
	return tw.Flush()
}

// cell shows a rule field: "-" for empty, everything else escaped.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return oneLine(s)
}

func rulesAdd(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["rules"], sio).state()
	var r store.Rule
	f.StringVar(&r.Agent, "agent", "*", "the agent it covers (* any)")
	f.StringVar(&r.Verb, "verb", "*", "the verb (any of its names; a shorthand or custom verb means the verb it runs as)")
	f.StringVar(&r.Op, "op", "*", "the operation: insert, search, append... (- for a verb's one operation, * any)")
	f.StringVar(&r.Target, "target", "*", `the target: "bluesky", "agent:anchor", "fetch" (* any)`)
	f.StringVar(&r.Args, "args", "*", "a pattern over the argument (* any run of characters, ? one, \\ quotes)")
	f.StringVar(&r.Note, "reason", "", "why: a denial tells the agent")
	by := f.String("as", "owner", "who makes the rule, for the record")
	asJSON := f.Bool("json", false, "print the saved rule as JSON")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	r.Decision, r.By = store.Decision(strings.ToLower(pos[0])), *by
	rt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	if r, err = rt.CheckRule(r); err != nil {
		return usageErr{err}
	}
	st, err := rt.Store(ctx)
	if err != nil {
		return err
	}
	saved, err := st.SaveRule(ctx, r)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(sio.out).Encode(saved)
	}
	fmt.Fprintf(sio.out, "saved standing rule #%d: %s\n", saved.ID, safeText(saved.String()))
	return nil
}

func rulesRemove(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["rules"], sio).state()
	asJSON := f.Bool("json", false, "print the removed rules as JSON")
	pos, err := f.parse(args, 1, -1)
	if err != nil {
		return err
	}
	ids := make([]int64, len(pos))
	for i, p := range pos {
		if ids[i], err = strconv.ParseInt(strings.TrimPrefix(p, "#"), 10, 64); err != nil || ids[i] <= 0 {
			return usageError("%q is not a rule id", p)
		}
	}
	rt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	st, err := rt.Store(ctx)
	if err != nil {
		return err
	}
	all, err := st.Rules(ctx)
	if err != nil {
		return err
	}
	byID := map[int64]store.Rule{}
	for _, r := range all {
		byID[r.ID] = r
	}
	enc := json.NewEncoder(sio.out)
	for _, id := range ids {
		if err := st.RemoveRule(ctx, id); err != nil {
			return err
		}
		if *asJSON {
			if err := enc.Encode(byID[id]); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(sio.out, "removed standing rule #%d: %s\n", id, safeText(byID[id].String()))
	}
	return nil
}
