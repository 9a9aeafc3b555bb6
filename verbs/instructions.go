package verbs

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes the vocabulary as a table: verb, strictness, aliases
// and, for custom verbs, what each maps to.
func (r *Registry) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERB\tSTRICTNESS\tALIASES\tMAPS TO\tNOTES")
	for _, v := range r.verbs {
		var notes []string
		if v.Authority {
			notes = append(notes, "authority")
		}
		if v.RequiresPermission {
			notes = append(notes, "needs approval")
		}
		if v.Priority != 0 {
			notes = append(notes, fmt.Sprintf("priority %d", v.Priority))
		}
		if v.Grammar != nil {
			notes = append(notes, "grammar "+v.Grammar.File)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v.Name, v.Strictness, dash(strings.Join(v.Aliases, ", ")), dash(v.MapsTo), dash(strings.Join(notes, "; ")))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteInstructions writes compact instructions for a model's system
// prompt: how actions are written and run, then each verb with its
// description, forms, aliases and few-shot examples.
func (r *Registry) WriteInstructions(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`# Actions

You can act by ending your message with slash actions, one per line:
  /verb arguments
- Only actions at the end of the message run. To run one mid-message, put /do in front: /do /recall project deadlines
- Plain words are fine when clear; use "quotes" for exact text, or put longer content in a fenced block on the next line.
- End an action with ! when it is serious (it will be confirmed), or ?ask to ask the owner first.
- Chain with -> : /search budget -> /send @user @last.output (you re-issue the rest of the chain with the result).
- References: @last.output (the previous action's output), @last.message, @thread, @parent, @[uri].
- Filters in searches: #tag, @7d or @2026-01-31 (since), ^5 (at most 5), *project, &format.
- If you change your mind after an action, say so ("actually, no") and it will not run.
- Spelling is forgiven for most verbs, but approve, deny and halt must be spelled exactly.

# Verbs
`)
	for _, v := range r.verbs {
		b.WriteString("\n/" + v.Name)
		if v.Description != "" {
			b.WriteString(" — " + v.Description)
		}
		var notes []string
		if v.Custom && v.MapsTo != "" {
			if _, ok := r.builtins[v.MapsTo]; ok {
				notes = append(notes, "works like /"+v.MapsTo)
			}
		}
		if v.Authority {
			notes = append(notes, "needs authority")
		}
		if v.RequiresPermission {
			notes = append(notes, "queued for approval")
		}
		if len(notes) > 0 {
			b.WriteString(" (" + strings.Join(notes, "; ") + ")")
		}
		b.WriteString("\n")
		if v.Form != "" {
			b.WriteString("  forms: " + v.Form + "\n")
		}
		if len(v.Aliases) > 0 {
			b.WriteString("  also: /" + strings.Join(v.Aliases, ", /") + "\n")
		}
		for i, ex := range v.Examples {
			if i == 0 {
				b.WriteString("  e.g. " + ex + "\n")
			} else {
				b.WriteString("       " + ex + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
