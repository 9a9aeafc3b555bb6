package verbs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/grammarbridge"
	"github.com/pattern-dialect/dialect/intent"
)

// compileGrammar compiles a custom verb's TypeAgent grammar, starting at
// ref.Start. A start rule other than <Start> is reached through a wrapper
// file beside the grammar that imports it, so the grammar's own imports
// resolve as they would for TypeAgent.
func (r *Registry) compileGrammar(ref *GrammarRef) (*grammarbridge.Grammar, error) {
	file := ref.File
	if !filepath.IsAbs(file) && r.opts.GrammarDir != "" {
		file = filepath.Join(r.opts.GrammarDir, file)
	}
	var loader grammarbridge.Loader = grammarbridge.OSLoader{}
	if r.opts.GrammarLoader != nil {
		loader = r.opts.GrammarLoader
	}
	if _, err := loader.Load(file); err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("grammar file %s does not exist", file)
		}
		return nil, fmt.Errorf("grammar file %s: %w", file, err)
	}
	start := ref.Start
	if start == "" || start == "Start" {
		return grammarbridge.Compile(loader, file, customGrammarOptions)
	}
	if !validRuleName(start) {
		return nil, fmt.Errorf("start rule %q is not a rule name", start)
	}
	wrapper := filepath.Join(filepath.Dir(file), ".dialect-start-"+start+".agr")
	src := fmt.Sprintf("import { %s } from %q;\n<Start> = $(v:<%s>) -> v;\n", start, "./"+filepath.Base(file), start)
	return grammarbridge.Compile(layered{wrapper: src, next: loader, name: wrapper}, wrapper, customGrammarOptions)
}

// customGrammarOptions compile a custom verb's grammar as its author
// means it, as `dialect grammar match` does by default: phrase sets such
// as (<Polite>)? consume their phrases, and a quantifier after a rule
// reference (<Size>?) quantifies it. TypeAgent's matcher does neither
// (docs/grammar.md, "Deviations from TypeAgent").
var customGrammarOptions = grammarbridge.Options{}.AsAuthored()

var ruleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func validRuleName(s string) bool { return ruleName.MatchString(s) }

// layered serves one file from memory and the rest from next.
type layered struct {
	name, wrapper string
	next          grammarbridge.Loader
}

func (l layered) Load(name string) (string, error) {
	if filepath.Clean(name) == filepath.Clean(l.name) {
		return l.wrapper, nil
	}
	return l.next.Load(name)
}

// templateField matches {field} and {a.b.c} in a template.
var templateField = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}`)

func checkTemplate(t string) error {
	for _, m := range templateField.FindAllStringSubmatch(t, -1) {
		for _, part := range strings.Split(m[1], ".") {
			if isBanned(part) {
				return fmt.Errorf("the field {%s} is not allowed", m[1])
			}
		}
	}
	return nil
}

// parseCustom parses a configured verb: by its own grammar, by the grammar
// of the built-in verb it maps to, or, for a tool, as content with
// key=value pairs.
func (r *Registry) parseCustom(ctx context.Context, v *Verb, in Input) (intent.Intent, error) {
	c := intent.Custom{Verb: v.Name, MapsTo: v.MapsTo}
	if v.DefaultTarget != nil {
		c.Target = &intent.Target{Type: v.DefaultTarget.Type, ID: v.DefaultTarget.ID}
	}
	_, mapsToBuiltin := r.builtins[v.MapsTo]
	var primary string // what {content} stands for
	switch {
	case v.grammar != nil:
		args, text, err := r.matchCustom(ctx, v, in)
		if err != nil {
			return nil, err
		}
		c.Args, primary = args, text
		if mapsToBuiltin {
			inner, err := decodeInner(v, args)
			if err != nil {
				return nil, err
			}
			c.Inner = inner
			primary = primaryText(inner)
		}
	case mapsToBuiltin:
		inner, err := r.parseMapped(ctx, v, in)
		if err != nil {
			return nil, err
		}
		c.Inner, primary = inner, primaryText(inner)
		c.Args = map[string]any{"content": primary}
	default:
		args, err := toolArgs(v.Name, in)
		if err != nil {
			return nil, err
		}
		c.Args = args
		primary, _ = args["content"].(string)
		if primary == "" && len(args) == 0 {
			return nil, perr(codes.MissingArg, v.Name, 0, "/%s needs arguments: %s", v.Name, exampleOr(v))
		}
	}
	if v.Template != "" {
		out, err := fillTemplate(v, c.Args, primary)
		if err != nil {
			return nil, err
		}
		c.TemplateApplied = out
		if c.Inner != nil {
			c.Inner = setPrimary(c.Inner, out)
		}
	}
	return c, nil
}

func exampleOr(v *Verb) string {
	if len(v.Examples) > 0 {
		return "for example " + v.Examples[0]
	}
	return v.Form
}

// parseMapped parses a custom verb's arguments with the grammar of the
// built-in verb it maps to. A default_target stands in for the @domain
// @target a send-like verb would otherwise need.
func (r *Registry) parseMapped(ctx context.Context, v *Verb, in Input) (intent.Intent, error) {
	if v.DefaultTarget != nil && isSendLike(v.MapsTo) && !startsWithAt(in.Args) {
		pre := "@" + v.DefaultTarget.Type
		if v.DefaultTarget.ID != "" {
			pre += " @" + v.DefaultTarget.ID
		}
		if v.MapsTo == "send" || v.MapsTo == "post" {
			in.Args = strings.TrimSpace(pre + " " + in.Args)
			inner, err := r.parseBuiltin(ctx, r.by["send"], v.Name, in)
			if s, ok := inner.(intent.Send); ok && v.MapsTo == "post" {
				s.Via = "post"
				inner = s
			}
			return inner, shiftPos(err, len(pre)+1)
		}
	}
	return r.parseBuiltin(ctx, v, v.Name, in)
}

func isSendLike(verb string) bool {
	switch verb {
	case "send", "post", "dm", "tell", "reply":
		return true
	}
	return false
}

func startsWithAt(args string) bool {
	f := strings.Fields(args)
	if len(f) == 0 || !strings.HasPrefix(f[0], "@") {
		return false
	}
	_, isRef := intent.ParseRef(f[0])
	return !isRef
}

// shiftPos corrects a failure's column for text put before the arguments.
func shiftPos(err error, n int) error {
	if pe, ok := err.(*ParseError); ok && pe.Pos > n {
		pe.Pos -= n
	}
	return err
}

// matchCustom matches a custom verb's own grammar against the arguments
// as written (a TypeAgent grammar expects natural text, not the lexed
// form built-in grammars see).
func (r *Registry) matchCustom(ctx context.Context, v *Verb, in Input) (map[string]any, string, error) {
	text := in.Args
	if text == "" {
		text = strings.TrimSpace(in.Content)
	}
	if text == "" {
		return nil, "", perr(codes.MissingArg, v.Name, 0, "/%s needs arguments: %s", v.Name, exampleOr(v))
	}
	m, err := v.grammar.BestContext(ctx, text)
	if err != nil && ctx.Err() != nil {
		return nil, "", ctx.Err() // the action's time ran out: TIMEOUT, not the model's mistake
	}
	if err != nil {
		var nm *grammarbridge.NoMatchError
		if !errors.As(err, &nm) {
			return nil, "", perr(codes.MalformedSyntax, v.Name, 0, "/%s: the arguments could not be read: %v", v.Name, err)
		}
		exp := describeExpected(nm.Expected)
		if nm.Offset >= len(strings.TrimRight(text, " \t")) {
			e := perr(codes.MissingArg, v.Name, 0, "/%s needs more: expected %s after %q. %s", v.Name, orList(exp), text, capitalise(exampleOr(v)))
			e.Expected = exp
			return nil, "", e
		}
		c := col(text, nm.Offset)
		e := perr(codes.MalformedSyntax, v.Name, c, "/%s: at column %d, expected %s. %s", v.Name, c, orList(exp), capitalise(exampleOr(v)))
		e.Expected = exp
		return nil, "", e
	}
	var val any
	if err := json.Unmarshal(m.Value, &val); err != nil {
		return nil, "", perr(codes.MalformedSyntax, v.Name, 0, "/%s: the grammar's value is not JSON: %v", v.Name, err)
	}
	if k := bannedIn(val); k != "" {
		return nil, "", perr(codes.BannedKey, v.Name, 0, "/%s: the grammar's value has the key %q, which is not allowed", v.Name, k)
	}
	args, ok := val.(map[string]any)
	if !ok {
		args = map[string]any{"value": val}
	}
	return args, text, nil
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// bannedIn returns a banned key anywhere in a value, or "".
func bannedIn(v any) string {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if isBanned(k) {
				return k
			}
			if b := bannedIn(x); b != "" {
				return b
			}
		}
	case []any:
		for _, x := range v {
			if b := bannedIn(x); b != "" {
				return b
			}
		}
	}
	return ""
}

// decodeInner turns a custom grammar's value into the intent of the
// built-in verb the custom verb maps to: the value's fields are that
// intent's JSON fields.
func decodeInner(v *Verb, args map[string]any) (intent.Intent, error) {
	kind := v.MapsTo
	switch kind {
	case "reply", "post", "dm", "tell":
		kind = "send"
	case "approve", "deny", "escalate", "cancel", "halt":
		kind = "authority"
	}
	obj := map[string]any{}
	for k, x := range args {
		obj[k] = x
	}
	obj["kind"] = kind
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	in, err := intent.Decode(b)
	if err != nil {
		return nil, perr(codes.MalformedSyntax, v.Name, 0, "/%s: its grammar gave a value that is not a %s intent: %v", v.Name, kind, err)
	}
	return in, nil
}

// toolArgs reads a tool verb's arguments: key=value pairs become fields,
// the rest (and the content block) is "content".
func toolArgs(verb string, in Input) (map[string]any, error) {
	toks, e := lex(verb, in.Args, nil)
	if e != nil {
		return nil, e
	}
	args := map[string]any{}
	var rest []string
	for _, t := range toks {
		if t.kind != tQuoted {
			if k, val, ok := strings.Cut(t.text, "="); ok && k != "" {
				if isBanned(k) {
					return nil, perr(codes.BannedKey, verb, col(in.Args, t.pos), "/%s: the key %q is not allowed in arguments (column %d)", verb, k, col(in.Args, t.pos))
				}
				if ValidName(strings.ToLower(k)) {
					if strings.HasPrefix(val, `"`) {
						if _, body, ok := quoted(val, 0); ok {
							val = body
						}
					}
					args[k] = val
					continue
				}
			}
		}
		rest = append(rest, in.Args[t.pos:t.end])
	}
	content := strings.Join(rest, " ")
	if len(toks) == 1 && toks[0].kind == tQuoted {
		content = toks[0].body
	}
	if in.Kind != Quoted && strings.TrimSpace(in.Content) != "" {
		content = strings.TrimSpace(content + "\n" + in.Content)
	}
	if content != "" {
		args["content"] = content
	}
	return args, nil
}

// fillTemplate substitutes {content} (the verb's main text) and {field}
// or {a.b} from the captured arguments. A field the arguments did not give
// is MISSING_ARG: a template is never sent half filled.
func fillTemplate(v *Verb, args map[string]any, primary string) (string, error) {
	var missingField string
	out := templateField.ReplaceAllStringFunc(v.Template, func(m string) string {
		path := m[1 : len(m)-1]
		if path == "content" && primary != "" {
			return primary
		}
		var cur any = args
		for _, part := range strings.Split(path, ".") {
			obj, ok := cur.(map[string]any)
			if !ok {
				cur = nil
				break
			}
			cur = obj[part]
		}
		switch x := cur.(type) {
		case nil:
			if missingField == "" {
				missingField = path
			}
			return m
		case string:
			return x
		case []any:
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = fmt.Sprint(e)
			}
			return strings.Join(parts, ", ")
		default:
			b, _ := json.Marshal(x)
			return string(b)
		}
	})
	if missingField != "" {
		return "", perr(codes.MissingArg, v.Name, 0, "/%s: its template needs {%s}, which the arguments did not give. %s", v.Name, missingField, capitalise(exampleOr(v)))
	}
	return out, nil
}

// primaryText is the main text of an intent: what {content} means.
func primaryText(in intent.Intent) string {
	switch x := in.(type) {
	case intent.Send:
		return x.Content
	case intent.Search:
		return x.Terms
	case intent.Recall:
		if x.Op == intent.RecallSearch {
			return x.Query
		}
		if x.Content != "" {
			return x.Content
		}
		return x.Block
	case intent.Context:
		return x.Content
	case intent.Web:
		return x.Query
	case intent.Calc:
		return x.Expr
	case intent.Fetch:
		return x.URL
	case intent.Authority:
		return x.Reason
	}
	return ""
}

// setPrimary replaces the main text of an intent with a filled template.
func setPrimary(in intent.Intent, s string) intent.Intent {
	switch x := in.(type) {
	case intent.Send:
		x.Content = s
		return x
	case intent.Search:
		x.Terms = s
		return x
	case intent.Recall:
		if x.Op == intent.RecallSearch {
			x.Query = s
		} else if x.Content != "" {
			x.Content = s
		}
		return x
	case intent.Context:
		x.Content = s
		return x
	case intent.Web:
		x.Query = s
		return x
	case intent.Calc:
		x.Expr = s
		return x
	case intent.Authority:
		x.Reason = s
		return x
	}
	return in
}
