package mcp

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/verbs"
)

// toolSet is a server's tools as its tools/list gave them, with the
// resolver that finds one from what a model wrote.
type toolSet struct {
	server string
	list   []*tool          // in the server's order
	byName map[string]*tool // exact names
	byVerb map[string]*tool // the resolver's canonical (folded) names
	res    *fuzzy.Resolver
}

// tool is one tool and what its input schema says of its arguments.
type tool struct {
	name        string
	description string
	params      []*param // required ones first, in their order, then the rest by name
	byName      map[string]*param
	free        bool // keys beyond params are accepted (no properties, or additionalProperties allows them)
	readOnly    bool // annotated readOnlyHint
	destructive bool // not read-only, and destructiveHint true or absent
}

// param is one property of a tool's input schema.
type param struct {
	name        string
	typ         string // string, number, integer, boolean, array, object; "" when the schema does not say
	items       string // an array's item type
	description string
	enum        []any
	required    bool
}

// newToolSet reads tools/list's answer. Names that fold to the same key
// ("read-file", "read_file") are all reachable by their exact names; the
// first is the one a misspelling finds.
func newToolSet(server string, defs []*sdk.Tool, opts fuzzy.Options) (*toolSet, error) {
	ts := &toolSet{server: server, byName: map[string]*tool{}, byVerb: map[string]*tool{}}
	var entries []fuzzy.Entry
	var inResolver []*tool
	seen := map[string]bool{}
	for _, d := range defs {
		if d == nil || d.Name == "" || ts.byName[d.Name] != nil {
			continue
		}
		t := readTool(d)
		ts.list = append(ts.list, t)
		ts.byName[t.name] = t
		key := foldKey(t.name)
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		entries = append(entries, fuzzy.Entry{Verb: t.name, Strictness: fuzzy.Normal})
		inResolver = append(inResolver, t)
	}
	res, err := fuzzy.New(entries, opts)
	if err != nil {
		return nil, fmt.Errorf("the tools of %s: %w", server, err)
	}
	for i, v := range res.Verbs() {
		ts.byVerb[v] = inResolver[i]
	}
	ts.res = res
	return ts, nil
}

// foldKey approximates the resolver's fold, to keep names it would take
// for one apart.
func foldKey(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == '-' || r == '_' || unicode.IsSpace(r)
	}), " ")
}

func readTool(d *sdk.Tool) *tool {
	t := &tool{name: d.Name, description: d.Description, byName: map[string]*param{}}
	if a := d.Annotations; a != nil {
		t.readOnly = a.ReadOnlyHint
		t.destructive = !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint)
	} else {
		t.destructive = true
	}
	schema, _ := d.InputSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	switch ap := schema["additionalProperties"].(type) {
	case bool:
		t.free = ap
	case map[string]any:
		t.free = true
	}
	if len(props) == 0 {
		t.free = true
	}
	required := map[string]bool{}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			name, _ := r.(string)
			if _, ok := props[name]; ok && !required[name] {
				required[name] = true
				t.params = append(t.params, readParam(name, props[name], true))
			}
		}
	}
	var rest []string
	for name := range props {
		if !required[name] {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range rest {
		t.params = append(t.params, readParam(name, props[name], false))
	}
	for _, p := range t.params {
		t.byName[p.name] = p
	}
	return t
}

func readParam(name string, v any, required bool) *param {
	p := &param{name: name, required: required}
	s, _ := v.(map[string]any)
	p.description, _ = s["description"].(string)
	p.typ = schemaType(s)
	if p.typ == "array" {
		items, _ := s["items"].(map[string]any)
		p.items = schemaType(items)
	}
	if e, ok := s["enum"].([]any); ok {
		p.enum = e
	}
	return p
}

// schemaType is the type a schema names: "type" as a string, the first
// that is not "null" of a list, or the same of the first anyOf/oneOf
// branch that has one.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if name, ok := x.(string); ok && name != "null" {
				return name
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok {
					if t := schemaType(m); t != "" && t != "null" {
						return t
					}
				}
			}
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return ""
}

// resolve finds the tool a model named, as a verb is found: exactly, by
// case, word form, spelling, edit distance or sound. Two tools equally
// close is AMBIGUOUS_VERB naming both.
func (ts *toolSet) resolve(token string) (*tool, error) {
	if t := ts.byName[token]; t != nil {
		return t, nil
	}
	r := ts.res.Resolve(token)
	if r.OK() {
		return ts.byVerb[r.Verb], nil
	}
	var names []string
	for _, c := range r.Candidates {
		if t := ts.byVerb[c.Verb]; t != nil && !slices.Contains(names, t.name) {
			names = append(names, t.name)
		}
	}
	tok := oneLine(token, 64)
	switch r.Code {
	case codes.AmbiguousVerb:
		return nil, &verbs.ParseError{Code: codes.AmbiguousVerb, Candidates: names,
			Message: fmt.Sprintf("/%s: I couldn't tell if you meant the tool %s — which one?", ts.server, orList(names))}
	case codes.MixedScript:
		return nil, &verbs.ParseError{Code: codes.MixedScript, Pos: 1,
			Message: fmt.Sprintf("/%s %s mixes Latin letters with look-alikes from another script — retype the tool's name", ts.server, tok)}
	}
	msg := fmt.Sprintf("/%s has no tool %q", ts.server, tok)
	if len(names) > 0 {
		msg += fmt.Sprintf(" — did you mean %s?", names[0])
	}
	msg += " Its tools: " + ts.names(24)
	return nil, &verbs.ParseError{Code: codes.UnknownVerb, Pos: 1, Message: msg, Candidates: names}
}

// names lists up to max tool names.
func (ts *toolSet) names(max int) string {
	var out []string
	for i, t := range ts.list {
		if i == max {
			out = append(out, fmt.Sprintf("and %d more", len(ts.list)-max))
			break
		}
		out = append(out, oneLine(t.name, 64))
	}
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, ", ")
}

// operations describes the tools for the instructions.
func (ts *toolSet) operations() []verbs.Operation {
	out := make([]verbs.Operation, 0, len(ts.list))
	for _, t := range ts.list {
		op := verbs.Operation{Name: t.name, Description: t.description, ReadOnly: t.readOnly, Destructive: t.destructive}
		for _, p := range t.params {
			op.Params = append(op.Params, verbs.Param{Name: p.name, Type: p.typ, Items: p.items, Description: p.description, Required: p.required})
		}
		out = append(out, op)
	}
	return out
}

// orList writes "a", "a or b", "a, b or c".
func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// oneLine makes untrusted text one line of printable characters, cut to
// max runes with an ellipsis.
func oneLine(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n := 0
	space := false
	for _, c := range s {
		if unicode.IsControl(c) || unicode.Is(unicode.Cf, c) || unicode.IsSpace(c) {
			space = b.Len() > 0
			continue
		}
		if n == max {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(c)
		n++
	}
	return b.String()
}
