package verbs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"unicode"

	"github.com/pattern-dialect/dialect/intent"
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
// description, forms, aliases and few-shot examples. It is
// WriteInstructionsContext with a background context.
func (r *Registry) WriteInstructions(w io.Writer) error {
	return r.WriteInstructionsContext(context.Background(), w)
}

// WriteInstructionsContext is WriteInstructions for a registry whose verbs
// may have operations (MCP servers): it lists each one's tools, asking
// them within ctx, all at once. A verb whose operations cannot be listed
// is written with the reason, and the error returned after the whole text
// is written names it.
func (r *Registry) WriteInstructionsContext(ctx context.Context, w io.Writer) error {
	ops := r.allOperations(ctx)
	var errs []error
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
		if v.HasOperations {
			res := ops[v.Name]
			if res.err != nil {
				errs = append(errs, fmt.Errorf("/%s: %w", v.Name, res.err))
				b.WriteString("  tools: unavailable (" + oneLine(res.err.Error(), 200) + ")\n")
				continue
			}
			r.writeOperations(&b, v, res.ops)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// OperationBudget bounds, in bytes, the tool list written for one verb
// with operations; the tools that do not fit are named only.
const OperationBudget = 4096

// operations is what one verb's Operations returned.
type operations struct {
	ops []Operation
	err error
}

// allOperations asks every verb with operations for them, concurrently:
// each may start a server.
func (r *Registry) allOperations(ctx context.Context) map[string]operations {
	out := map[string]operations{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, v := range r.verbs {
		if !v.HasOperations {
			continue
		}
		wg.Go(func() {
			ops, err := r.Operations(ctx, v.Name)
			mu.Lock()
			out[v.Name] = operations{ops, err}
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// writeOperations lists a verb's tools, one line each: the name, the
// parameters (optional ones in brackets), a one-line description and
// what the gate will do with it, within OperationBudget.
func (r *Registry) writeOperations(b *strings.Builder, v *Verb, ops []Operation) {
	if len(ops) == 0 {
		b.WriteString("  tools: none\n")
		return
	}
	b.WriteString("  tools (write key=value, a JSON object, or one value when a single parameter is required; long text in a block on the next line):\n")
	used := 0
	for i, op := range ops {
		line := "    " + operationLine(op)
		switch {
		case r.approval(v, op) != "":
			line += " (asks approval)"
		case op.ReadOnly:
			line += " (read-only)"
		}
		line += "\n"
		if used+len(line) > OperationBudget {
			names := make([]string, 0, len(ops)-i)
			for _, o := range ops[i:] {
				names = append(names, oneLine(o.Name, 64))
			}
			b.WriteString("    and " + strconv.Itoa(len(names)) + " more: " + strings.Join(names, ", ") + "\n")
			return
		}
		used += len(line)
		b.WriteString(line)
	}
}

// approval is what the gate would say of a call of op, by the verb's hook.
func (r *Registry) approval(v *Verb, op Operation) string {
	if v.def == nil || v.def.Approval == nil {
		return ""
	}
	return v.def.Approval(intent.Custom{Verb: v.Name, MapsTo: v.Name, Tool: op.Name, ReadOnlyHint: op.ReadOnly, Destructive: op.Destructive})
}

// operationLine is "name p=TYPE [q=TYPE] — description".
func operationLine(op Operation) string {
	var b strings.Builder
	b.WriteString(oneLine(op.Name, 64))
	for _, p := range op.Params {
		arg := oneLine(p.Name, 64) + "=" + typeWord(p.Type, p.Items)
		if !p.Required {
			arg = "[" + arg + "]"
		}
		b.WriteString(" " + arg)
	}
	if d := firstSentence(op.Description, 120); d != "" {
		b.WriteString(" — " + d)
	}
	return b.String()
}

// typeWord is how a parameter's type is shown: an array of objects is
// written as JSON, other arrays as a comma list.
func typeWord(t, items string) string {
	switch t {
	case "number", "integer":
		return "N"
	case "boolean":
		return "true|false"
	case "array":
		if items == "object" || items == "array" {
			return "[{...}]"
		}
		return "A,B"
	case "object":
		return "{...}"
	}
	return "TEXT"
}

// firstSentence cuts a description to its first line and sentence, at
// most max runes.
func firstSentence(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return oneLine(s, max)
}

// oneLine makes untrusted text one line of printable characters, cut to
// max runes with an ellipsis.
func oneLine(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, c := range s {
		if n == max {
			return strings.TrimSpace(b.String()) + "…"
		}
		if unicode.IsControl(c) || unicode.Is(unicode.Cf, c) {
			c = ' '
		}
		b.WriteRune(c)
		n++
	}
	return b.String()
}
