package verbs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
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

// Scope is what the instructions for one agent may teach: what works in
// the configuration in force, for that agent. The runtime fills it; the
// zero Scope teaches the least (no authority, no delivery, no web, no
// references).
type Scope struct {
	// Roles are the authority roles the agent holds (approve, deny,
	// escalate, halt). A verb that needs a role the agent lacks is left
	// out; /cancel needs none.
	Roles []string
	// Routes are the send routes in force: "domain:target", "domain", or
	// "*" for anything. A verb that delivers only where nothing is routed
	// is left out, and the destinations shown are the routed ones.
	Routes []string
	// Web says a /web provider is configured; without one /web is left
	// out.
	Web bool
	// Refs are the references the host resolves; only they are taught.
	Refs []intent.RefKind
	// Conversations says messages are logged, so that /search in
	// conversations finds them.
	Conversations bool
}

// delivers reports whether something is routed for domain (and target).
func (sc Scope) delivers(domain, target string) bool {
	for _, r := range sc.Routes {
		d, t, hasTarget := strings.Cut(strings.ToLower(r), ":")
		switch {
		case d == "*":
			return true
		case d != domain:
		case !hasTarget, target == "" || t == target:
			return true
		}
	}
	return false
}

// destination returns a routed destination in one of domains, as written
// after a send verb ("@agent @anchor"), or "" when none is routed.
func (sc Scope) destination(domains ...string) string {
	for _, d := range domains {
		for _, r := range sc.Routes {
			rd, t, hasTarget := strings.Cut(strings.ToLower(r), ":")
			switch {
			case rd != d && rd != "*":
			case hasTarget:
				return "@" + d + " @" + t
			case d == "agent":
				return "@agent @anchor" // an agent is always named
			default:
				return "@" + d
			}
		}
	}
	return ""
}

// allows reports whether v works for the agent in sc.
func (r *Registry) allows(v *Verb, sc Scope) bool {
	base := v
	if v.Custom {
		if b := r.by[v.MapsTo]; b != nil && !b.Custom {
			base = b
		}
	}
	if authorityVerbs[base.Name] && !slices.Contains(sc.Roles, base.Name) {
		return false
	}
	switch base.Name {
	case "web":
		return sc.Web
	case "send", "post", "reply", "dm", "tell":
		if v.Custom && v.DefaultTarget != nil {
			return sc.delivers(strings.ToLower(v.DefaultTarget.Type), strings.ToLower(v.DefaultTarget.ID))
		}
		return r.sendExample(base.Name, sc) != ""
	}
	return true
}

// sendExample is the example of a delivering built-in verb for the routes
// in sc, or "" when nothing it delivers to is routed.
func (r *Registry) sendExample(verb string, sc Scope) string {
	switch verb {
	case "send":
		if d := sc.destination(append([]string{"user", "agent"}, r.platforms()...)...); d != "" {
			return "/send " + d + ` "the report is ready"`
		}
	case "reply":
		if sc.delivers("thread", "") {
			return `/reply "Done, see the summary above."`
		}
	case "post":
		if d := sc.destination(r.platforms()...); d != "" {
			return "/post " + strings.Fields(d)[0] + ` "Shipped the new release today."`
		}
	case "dm":
		if sc.delivers("user", "") {
			return `/dm "Your build finished."`
		}
	case "tell":
		if d := sc.destination("agent"); d != "" {
			return "/tell " + strings.TrimPrefix(d, "@agent ") + ` "the partner seems stressed"`
		}
	}
	return ""
}

// form is v's usage line as taught in sc: search lists only the domains
// that find something, send only the routed destinations.
func (r *Registry) form(v *Verb, sc Scope) string {
	if v.Custom {
		if b := r.by[v.MapsTo]; b != nil && !b.Custom && v.Grammar == nil {
			return strings.ReplaceAll(r.form(b, sc), "/"+b.Name+" ", "/"+v.Name+" ")
		}
		return v.Form
	}
	switch v.Name {
	case "search":
		domains := "archival|all"
		if sc.Conversations {
			domains = "archival|conversations|all"
		}
		return "/search TERMS [in " + domains + "] [> 2 weeks] [role:assistant] [#tag @7d ^5 *project &brief|&full|&json]"
	case "send":
		var ds []string
		for _, d := range r.domains {
			if d != "thread" && (sc.delivers(d, "") || sc.destination(d) != "") {
				ds = append(ds, "@"+d)
			}
		}
		return "/send " + strings.Join(ds, "|") + ` [@target] "message"`
	}
	return v.Form
}

// examples are v's examples as taught in sc.
func (r *Registry) examples(v *Verb, sc Scope) []string {
	if !v.Custom {
		switch v.Name {
		case "send", "reply", "post", "dm", "tell":
			return []string{r.sendExample(v.Name, sc)}
		case "search":
			if !sc.Conversations {
				return slices.DeleteFunc(slices.Clone(v.Examples), func(e string) bool { return strings.Contains(e, "in conversations") })
			}
		}
	}
	return v.Examples
}

// Examples returns every example the instructions for sc show, in order:
// the general ones first, then each verb's. Each is one whole action, as a
// model would write it (a patch's diff on the lines after it).
func (r *Registry) Examples(sc Scope) []string {
	out := generalExamples(sc)
	for _, v := range r.verbs {
		if r.allows(v, sc) {
			out = append(out, r.examples(v, sc)...)
		}
	}
	return out
}

// generalExamples are the examples in the instructions' preamble.
func generalExamples(sc Scope) []string {
	out := []string{"/do /recall project deadlines"}
	if slices.Contains(sc.Refs, intent.RefLastOutput) {
		out = append(out, "/search budget -> /recall + @last.output")
	}
	return out
}

// WriteInstructions writes compact instructions for a model's system
// prompt, teaching only what works in sc: how actions are written and run,
// then each verb the agent may use, with its description, forms, aliases
// and examples. A verb with operations (an MCP server) lists its tools,
// asked within ctx, all at once; one whose operations cannot be listed is
// written with the reason, and the error returned after the whole text is
// written names it.
func (r *Registry) WriteInstructions(ctx context.Context, w io.Writer, sc Scope) error {
	ops := r.allOperations(ctx)
	var errs []error
	var b strings.Builder
	gen := generalExamples(sc)
	b.WriteString(`# Actions

You can act by ending your message with slash actions, one per line:
  /verb arguments
- Only actions at the end of the message run. To run one mid-message, put /do in front: ` + gen[0] + `
- Plain words are fine when clear; use "quotes" for exact text, or put longer content in a fenced block on the next line.
- End an action with ! when it is serious (it will be confirmed), or ?ask to ask the owner first.
`)
	if len(gen) > 1 {
		b.WriteString("- Chain with -> : " + gen[1] + " (you re-issue the rest of the chain with the result).\n")
	}
	if refs := refList(sc.Refs); refs != "" {
		b.WriteString("- References: " + refs + ".\n")
	}
	b.WriteString(`- Filters in searches: #tag, @7d or @2026-01-31 (since), ^5 (at most 5), *project, &brief, &full or &json (how results are shown). #tags and *project written after what you save label it.
- If you change your mind after an action, say so ("actually, no") and it will not run.
`)
	var strict []string
	for _, v := range r.verbs {
		if v.Strictness == Strict && r.allows(v, sc) {
			strict = append(strict, v.Name)
		}
	}
	if len(strict) > 0 {
		b.WriteString("- Spelling is forgiven for most verbs, but " + andList(strict) + " must be spelled exactly.\n")
	} else {
		b.WriteString("- Spelling is forgiven.\n")
	}
	b.WriteString("\n# Verbs\n")
	for _, v := range r.verbs {
		if !r.allows(v, sc) {
			continue
		}
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
		if v.RequiresPermission {
			notes = append(notes, "queued for approval")
		}
		if len(notes) > 0 {
			b.WriteString(" (" + strings.Join(notes, "; ") + ")")
		}
		b.WriteString("\n")
		if f := r.form(v, sc); f != "" {
			b.WriteString("  forms: " + f + "\n")
		}
		if len(v.Aliases) > 0 {
			b.WriteString("  also: /" + strings.Join(v.Aliases, ", /") + "\n")
		}
		for i, ex := range r.examples(v, sc) {
			lead := "  e.g. "
			if i > 0 {
				lead = "       "
			}
			b.WriteString(lead + strings.ReplaceAll(ex, "\n", "\n       ") + "\n")
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

// refList describes the references in refs, in the language's order.
func refList(refs []intent.RefKind) string {
	var parts []string
	for _, k := range []struct {
		kind intent.RefKind
		text string
	}{
		{intent.RefLastOutput, "@last.output (the previous action's output)"},
		{intent.RefLastMessage, "@last.message (your previous message)"},
		{intent.RefThread, "@thread (this thread)"},
		{intent.RefParent, "@parent (the message replied to)"},
		{intent.RefURI, "@[uri] (a resource by URI)"},
	} {
		if slices.Contains(refs, k.kind) {
			parts = append(parts, k.text)
		}
	}
	return strings.Join(parts, ", ")
}

// andList writes "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
