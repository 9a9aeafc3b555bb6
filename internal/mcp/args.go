package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/verbs"
)

// The arguments of /NAME TOOL ARGUMENTS are mapped onto the tool's input
// schema (docs/mcp.md, "Arguments"):
//
//   - key=value pairs, a value "quoted" (with \" and \\) or 'quoted', or
//     JSON ([...], {...});
//   - a JSON object as the whole of the arguments, or as the content
//     block when its keys are the tool's parameters;
//   - a content block (fenced, """, > lines) for the one long text
//     parameter;
//   - other words, or one quoted string: a single positional value for
//     the one required parameter not given by key.
//
// Values are coerced to the parameter's type: numbers, booleans, arrays
// (JSON, or comma-separated), objects (JSON). A required parameter left
// out is MISSING_ARG naming it with its description; a key the tool does
// not have is UNKNOWN_MODIFIER with the nearest parameter.

// argToken is one piece of the text after the tool's name.
type argToken struct {
	key    string // "" for a positional value
	value  string // the text; a quoted value's body
	json   bool   // value is JSON text ([...] or {...}) that decoded
	quoted bool
	pos    int // byte offset in the whole argument text
}

// call is one parse of the arguments for one tool.
type call struct {
	server string
	tool   *tool
	text   string // the whole argument text (tool name included), for columns
}

func (c *call) errAt(code codes.Code, pos int, format string, a ...any) *verbs.ParseError {
	e := &verbs.ParseError{Code: code, Verb: c.server, Message: fmt.Sprintf(format, a...)}
	if pos >= 0 {
		e.Pos = column(c.text, pos)
	}
	return e
}

func (c *call) head() string { return "/" + c.server + " " + oneLine(c.tool.name, 64) }

// column is the 1-based rune column of byte offset pos in s.
func column(s string, pos int) int {
	pos = min(max(pos, 0), len(s))
	return utf8.RuneCountInString(s[:pos]) + 1
}

// lexArgs splits s (starting at byte offset from of the whole argument
// text) into tokens.
func (c *call) lexArgs(s string, from int) ([]argToken, error) {
	var out []argToken
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return out, nil
		}
		start := i
		if k := keyLen(s[i:]); k > 0 {
			tok := argToken{key: s[i : i+k], pos: from + start}
			i += k + 1 // the key and '='
			v, n, quoted, isJSON, err := c.value(s[i:], from+i)
			if err != nil {
				return nil, err
			}
			tok.value, tok.quoted, tok.json = v, quoted, isJSON
			i += n
			out = append(out, tok)
			continue
		}
		if s[i] == '"' || s[i] == '\'' {
			if body, n, ok := quotedAt(s[i:]); ok {
				out = append(out, argToken{value: body, quoted: true, pos: from + start})
				i += n
				continue
			}
			if s[i] == '"' {
				return nil, c.errAt(codes.MalformedSyntax, from+i, "%s: unterminated quote at column %d", c.head(), column(c.text, from+i))
			}
		}
		n := wordLen(s[i:])
		out = append(out, argToken{value: s[i : i+n], pos: from + start})
		i += n
	}
}

// value reads one value after "key=": quoted, JSON, or a word.
func (c *call) value(s string, at int) (v string, n int, quoted, isJSON bool, err error) {
	if s == "" || isSpace(s[0]) {
		return "", 0, false, false, nil
	}
	switch s[0] {
	case '"', '\'':
		if body, n, ok := quotedAt(s); ok {
			return body, n, true, false, nil
		}
		if s[0] == '"' {
			return "", 0, false, false, c.errAt(codes.MalformedSyntax, at, "%s: unterminated quote at column %d", c.head(), column(c.text, at))
		}
	case '[', '{':
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) == nil {
			n := int(dec.InputOffset())
			if n == len(s) || isSpace(s[n]) {
				return s[:n], n, false, true, nil
			}
		}
	}
	n = wordLen(s)
	return s[:n], n, false, false, nil
}

// keyLen is the length of "key" in s when s starts with key=; 0 if not.
func keyLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			return i
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return 0
		}
	}
	return 0
}

// quotedAt reads a string quoted by s[0]: "..." with \" and \\ escapes,
// '...' as written. It returns the body and the bytes taken.
func quotedAt(s string) (string, int, bool) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == q:
			return b.String(), i + 1, true
		case c == '\\' && q == '"' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			b.WriteByte(s[i+1])
			i++
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

func wordLen(s string) int {
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			return i
		}
	}
	return len(s)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// mapArgs reads the arguments after the tool's name (rest, at byte offset
// from in the whole argument text) and the content block, if any, into
// the tool's arguments.
func (c *call) mapArgs(rest string, from int, block string, hasBlock bool) (map[string]any, error) {
	args := map[string]any{}
	given := map[string]bool{} // given by key=value or JSON
	trimmed := strings.TrimSpace(rest)
	var toks []argToken
	if strings.HasPrefix(trimmed, "{") {
		at := from + strings.Index(rest, "{")
		obj, err := c.jsonObject(trimmed, at)
		if err != nil {
			return nil, err
		}
		if err := c.merge(args, given, obj, at); err != nil {
			return nil, err
		}
	} else {
		var err error
		if toks, err = c.lexArgs(rest, from); err != nil {
			return nil, err
		}
	}
	// A content block that is a JSON object of the tool's parameters is
	// the arguments; any other is the long text parameter's value.
	if hasBlock {
		if obj, ok := c.paramsObject(block); ok {
			if err := c.merge(args, given, obj, -1); err != nil {
				return nil, err
			}
			hasBlock = false
		}
	}
	var positional []argToken
	for _, t := range toks {
		if t.key == "" {
			positional = append(positional, t)
			continue
		}
		if isBanned(t.key) {
			e := c.errAt(codes.BannedKey, t.pos, "%s: the key %q is not allowed in arguments (column %d)", c.head(), t.key, column(c.text, t.pos))
			e.Suggestion = t.key
			return nil, e
		}
		p, err := c.param(t.key, t.pos)
		if err != nil {
			return nil, err
		}
		name := t.key
		if p != nil {
			name = p.name
		}
		v, err := c.coerce(p, name, t)
		if err != nil {
			return nil, err
		}
		if prev, ok := args[name]; ok {
			if p == nil || p.typ != "array" {
				return nil, c.errAt(codes.MalformedSyntax, t.pos, "%s: %s is given twice (column %d)", c.head(), name, column(c.text, t.pos))
			}
			v = append(prev.([]any), v.([]any)...)
		}
		args[name] = v
		given[name] = true
	}
	if hasBlock {
		p := c.textParam(given)
		if p == nil {
			return nil, c.errAt(codes.MalformedSyntax, -1, "%s takes no text block: give its parameters as key=value (%s)", c.head(), c.paramList())
		}
		v, err := c.coerce(p, p.name, argToken{value: block, quoted: true, pos: -1})
		if err != nil {
			return nil, err
		}
		args[p.name], given[p.name] = v, true
	}
	if len(positional) > 0 {
		tok := joinPositional(positional)
		p := c.positionalParam(given)
		if p == nil {
			return nil, c.errAt(codes.MalformedSyntax, tok.pos, "%s: which parameter is %q? Write it as key=value (%s)", c.head(), oneLine(tok.value, 40), c.paramList())
		}
		v, err := c.coerce(p, p.name, tok)
		if err != nil {
			return nil, err
		}
		args[p.name], given[p.name] = v, true
	}
	if missing := c.missing(given); len(missing) > 0 {
		var parts, names []string
		for _, p := range missing {
			part := p.name
			if d := oneLine(p.description, 120); d != "" {
				part += " (" + d + ")"
			}
			parts = append(parts, part)
			names = append(names, p.name)
		}
		e := c.errAt(codes.MissingArg, -1, "%s needs %s. Parameters: %s", c.head(), strings.Join(parts, " and "), c.paramList())
		e.Expected = names
		return nil, e
	}
	return args, nil
}

// jsonObject decodes the arguments written as one JSON object.
func (c *call) jsonObject(s string, at int) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		off := at
		var se *json.SyntaxError
		if asSyntax(err, &se) {
			off += int(se.Offset)
		}
		return nil, c.errAt(codes.MalformedSyntax, off, "%s: the JSON object is not valid: %v", c.head(), err)
	}
	if rest := strings.TrimSpace(s[dec.InputOffset():]); rest != "" {
		off := at + int(dec.InputOffset())
		return nil, c.errAt(codes.MalformedSyntax, off, "%s: text after the JSON object at column %d; put every argument inside it", c.head(), column(c.text, off))
	}
	return obj, nil
}

func asSyntax(err error, se **json.SyntaxError) bool {
	e, ok := err.(*json.SyntaxError)
	if ok {
		*se = e
	}
	return ok
}

// paramsObject reports whether a content block is a JSON object whose
// keys are all the tool's parameters (a tool with no schema takes any).
func (c *call) paramsObject(block string) (map[string]any, bool) {
	b := strings.TrimSpace(block)
	if !strings.HasPrefix(b, "{") {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(b))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || strings.TrimSpace(b[dec.InputOffset():]) != "" || len(obj) == 0 {
		return nil, false
	}
	if len(c.tool.params) == 0 {
		return obj, true
	}
	for k := range obj {
		if c.tool.byName[k] == nil {
			return nil, false
		}
	}
	return obj, true
}

// merge adds a JSON object's members as given arguments, checking keys.
func (c *call) merge(args map[string]any, given map[string]bool, obj map[string]any, at int) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if isBanned(k) {
			e := c.errAt(codes.BannedKey, at, "%s: the key %q is not allowed in arguments", c.head(), k)
			e.Suggestion = k
			return e
		}
		p, err := c.param(k, at)
		if err != nil {
			return err
		}
		name := k
		if p != nil {
			name = p.name
		}
		args[name], given[name] = number(obj[k]), true
	}
	return nil
}

// number turns json.Number values back into float64 or int64 for the
// wire, recursively.
func number(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = number(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = number(x[k])
		}
	}
	return v
}

// param finds the parameter a key names: exactly, or up to case, '-' and
// '_'. A key the tool does not have is UNKNOWN_MODIFIER with the nearest
// parameter, unless the schema takes any key (then p is nil).
func (c *call) param(key string, pos int) (*param, error) {
	if p := c.tool.byName[key]; p != nil {
		return p, nil
	}
	var folded *param
	for _, p := range c.tool.params {
		if foldKey(p.name) == foldKey(key) || strings.EqualFold(strings.NewReplacer("-", "", "_", "").Replace(p.name), strings.NewReplacer("-", "", "_", "").Replace(key)) {
			if folded != nil {
				folded = nil
				break
			}
			folded = p
		}
	}
	if folded != nil {
		return folded, nil
	}
	if c.tool.free {
		return nil, nil
	}
	near, best := "", -1
	for _, p := range c.tool.params {
		d := levenshtein.ComputeDistance(strings.ToLower(key), strings.ToLower(p.name))
		if best < 0 || d < best {
			near, best = p.name, d
		}
	}
	k := oneLine(key, 40)
	e := c.errAt(codes.UnknownModifier, pos, "%s has no parameter %q", c.head(), k)
	if near != "" {
		e.Suggestion = near
		e.Message = fmt.Sprintf("%s has no parameter %q — did you mean %s? Parameters: %s", c.head(), k, near, c.paramList())
	}
	for _, p := range c.tool.params {
		e.Expected = append(e.Expected, p.name)
	}
	return nil, e
}

// textParam is the parameter a content block fills: among the string
// parameters not given, the only required one, else a required one named
// like content, else the last required one; with none required left, an
// optional one named like content; failing those, the one required
// parameter left, whatever its type.
func (c *call) textParam(given map[string]bool) *param {
	var req, opt []*param
	for _, p := range c.tool.params {
		if given[p.name] || p.typ != "string" && p.typ != "" {
			continue
		}
		if p.required {
			req = append(req, p)
		} else {
			opt = append(opt, p)
		}
	}
	switch {
	case len(req) == 1:
		return req[0]
	case len(req) > 1:
		if p := textNamed(req); p != nil {
			return p
		}
		return req[len(req)-1]
	}
	if p := textNamed(opt); p != nil {
		return p
	}
	if len(opt) == 1 && len(c.tool.params) == 1 {
		return opt[0]
	}
	if m := c.missing(given); len(m) == 1 {
		return m[0] // the one required parameter left, of another type: an array takes a line per item
	}
	return nil
}

// textNames are parameter names that hold a long text.
var textNames = []string{"content", "contents", "text", "body", "message", "code", "source", "markdown", "data", "input", "prompt", "query"}

func textNamed(ps []*param) *param {
	for _, n := range textNames {
		for _, p := range ps {
			if strings.EqualFold(p.name, n) {
				return p
			}
		}
	}
	return nil
}

// positionalParam is the parameter a positional value fills: the first
// required parameter not given; with none, the only parameter.
func (c *call) positionalParam(given map[string]bool) *param {
	for _, p := range c.tool.params {
		if p.required && !given[p.name] {
			return p
		}
	}
	if len(c.tool.params) == 1 && !given[c.tool.params[0].name] {
		return c.tool.params[0]
	}
	return nil
}

// joinPositional makes one value of the positional tokens: a quoted
// string alone is its body; words are joined by single spaces.
func joinPositional(ts []argToken) argToken {
	if len(ts) == 1 {
		return ts[0]
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.value
	}
	return argToken{value: strings.Join(parts, " "), pos: ts[0].pos}
}

// missing lists the required parameters not given.
func (c *call) missing(given map[string]bool) []*param {
	var out []*param
	for _, p := range c.tool.params {
		if p.required && !given[p.name] {
			out = append(out, p)
		}
	}
	return out
}

// paramList is "path=TEXT [head=N]".
func (c *call) paramList() string {
	if len(c.tool.params) == 0 {
		return "none"
	}
	var parts []string
	for _, p := range c.tool.params {
		s := p.name + "=" + typeWord(p.typ, p.items)
		if !p.required {
			s = "[" + s + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

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

// coerce turns a written value into the parameter's type. p nil (a key
// a free-form schema takes) keeps JSON as JSON and text as text.
func (c *call) coerce(p *param, name string, t argToken) (any, error) {
	typ := ""
	if p != nil {
		typ = p.typ
	}
	bad := func(want string) error {
		return c.errAt(codes.MalformedSyntax, t.pos, "%s: %s=%s is not %s", c.head(), name, oneLine(t.value, 40), want)
	}
	var v any
	switch typ {
	case "string":
		v = t.value
	case "integer":
		n, err := strconv.ParseInt(strings.TrimSpace(t.value), 10, 64)
		if err != nil {
			return nil, bad("a whole number")
		}
		v = n
	case "number":
		f, err := strconv.ParseFloat(strings.TrimSpace(t.value), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, bad("a number")
		}
		v = f
	case "boolean":
		switch strings.ToLower(strings.TrimSpace(t.value)) {
		case "true", "yes", "on", "1":
			v = true
		case "false", "no", "off", "0":
			v = false
		default:
			return nil, bad("true or false")
		}
	case "array":
		items, err := c.array(p, name, t)
		if err != nil {
			return nil, err
		}
		v = items
	case "object":
		if !t.json || !strings.HasPrefix(t.value, "{") {
			return nil, bad("a JSON object {...}")
		}
		v = decodeJSON(t.value)
	default:
		if t.json {
			v = decodeJSON(t.value)
		} else {
			v = t.value
		}
	}
	if p != nil && len(p.enum) > 0 {
		return c.enum(p, t, v)
	}
	return v, nil
}

// array reads an array value: JSON, or comma-separated items of the
// array's item type (a content block: one item per line).
func (c *call) array(p *param, name string, t argToken) ([]any, error) {
	if t.json && strings.HasPrefix(t.value, "[") {
		if a, ok := decodeJSON(t.value).([]any); ok {
			return a, nil
		}
	}
	sep := ","
	if t.pos < 0 {
		sep = "\n"
	}
	var out []any
	for _, part := range strings.Split(t.value, sep) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		item, err := c.coerce(&param{name: name, typ: p.items}, name, argToken{value: part, pos: t.pos})
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

// enum checks a value against the schema's enum, case aside.
func (c *call) enum(p *param, t argToken, v any) (any, error) {
	var names []string
	for _, e := range p.enum {
		if e == v {
			return v, nil
		}
		if s, ok := e.(string); ok {
			if str, ok := v.(string); ok && strings.EqualFold(s, str) {
				return s, nil
			}
		}
		names = append(names, fmt.Sprint(e))
	}
	e := c.errAt(codes.UnknownModifier, t.pos, "%s: %s=%s is not one of %s", c.head(), p.name, oneLine(t.value, 40), strings.Join(names, ", "))
	e.Expected = names
	return nil, e
}

func decodeJSON(s string) any {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return s
	}
	return number(v)
}

func isBanned(k string) bool {
	switch k {
	case "__proto__", "constructor", "prototype":
		return true
	}
	return false
}
