package failures

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// ErrConfigEdit is returned (wrapped in *ConfigEditError) when AddAliases
// cannot change a dialect.toml safely; the file is then left as it was.
var ErrConfigEdit = errors.New("cannot add aliases to dialect.toml")

// ConfigEditError says why a dialect.toml could not be edited, and where.
type ConfigEditError struct {
	Line   int // 1-based, 0 if not about one place
	Reason string
	Err    error // the TOML decode error, if any
}

func (e *ConfigEditError) Error() string {
	var b strings.Builder
	b.WriteString("dialect.toml")
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrConfigEdit) true and exposes the decode
// error to errors.As.
func (e *ConfigEditError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrConfigEdit, e.Err}
	}
	return []error{ErrConfigEdit}
}

// AddAliases returns src with each alias added to
// [dialect.verbs.<verb>] extra_aliases, changing nothing else: comments,
// blank lines, key order and layout stay as they were. Aliases already
// present are skipped; added lists the ones that were new. The result is
// checked by decoding it: it must parse and differ from src exactly by the
// added aliases, otherwise the edit is refused with a *ConfigEditError.
func AddAliases(src []byte, aliases []AliasCandidate) (out []byte, added []AliasCandidate, err error) {
	orig := map[string]any{}
	if err := toml.Unmarshal(src, &orig); err != nil {
		return nil, nil, &ConfigEditError{Line: decodeLine(err), Reason: "the file does not parse", Err: err}
	}
	out = append([]byte(nil), src...)
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		nl = "\r\n"
	}
	for _, a := range aliases {
		if !ValidAlias(a.Alias) {
			return nil, nil, &ConfigEditError{Reason: fmt.Sprintf("%q is not a valid alias", a.Alias)}
		}
		if a.Verb == "" {
			return nil, nil, &ConfigEditError{Reason: fmt.Sprintf("alias %q has no verb", a.Alias)}
		}
		cur := map[string]any{}
		if err := toml.Unmarshal(out, &cur); err != nil {
			return nil, nil, &ConfigEditError{Reason: "internal: edited file does not parse", Err: err}
		}
		if slices.Contains(extraAliases(cur, a.Verb), a.Alias) {
			continue
		}
		next, err := addOne(out, a.Verb, a.Alias, nl)
		if err != nil {
			return nil, nil, err
		}
		out = next
		added = append(added, a)
	}
	// Check: the result must decode to the original plus the additions.
	got := map[string]any{}
	if err := toml.Unmarshal(out, &got); err != nil {
		return nil, nil, &ConfigEditError{Line: decodeLine(err), Reason: "the edited file would not parse; nothing written", Err: err}
	}
	want := orig
	for _, a := range added {
		setExtraAlias(want, a.Verb, a.Alias)
	}
	if !reflect.DeepEqual(normalize(want), normalize(got)) {
		return nil, nil, &ConfigEditError{Reason: "the edit would change more than extra_aliases (unusual layout?); nothing written"}
	}
	return out, added, nil
}

// decodeLine returns the line of a go-toml decode error, or 0.
func decodeLine(err error) int {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return line
	}
	return 0
}

// extraAliases reads dialect.verbs.<verb>.extra_aliases from a decoded file.
func extraAliases(doc map[string]any, verb string) []string {
	v, _ := lookup(doc, "dialect", "verbs", verb, "extra_aliases").([]any)
	var out []string
	for _, x := range v {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func lookup(doc map[string]any, path ...string) any {
	var cur any = doc
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// setExtraAlias appends alias to dialect.verbs.<verb>.extra_aliases in a
// decoded file, creating the tables on the way.
func setExtraAlias(doc map[string]any, verb, alias string) {
	m := doc
	for _, p := range []string{"dialect", "verbs", verb} {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	list, _ := m["extra_aliases"].([]any)
	m["extra_aliases"] = append(list, alias)
}

// normalize makes decoded documents comparable: go-toml may decode an
// array as []any or []interface{} of various element types.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// tomlKey writes a key segment bare when it can be, quoted otherwise.
func tomlKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return tomlString(k)
		}
	}
	return k
}

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// addOne adds one alias to the text.
func addOne(src []byte, verb, alias, nl string) ([]byte, error) {
	items, err := scanTOML(src)
	if err != nil {
		return nil, err
	}
	table := []string{"dialect", "verbs", verb}
	target := append(slices.Clone(table), "extra_aliases")
	// 1. The array already exists somewhere: append to it.
	for _, it := range items {
		if it.header == nil && slices.Equal(it.fullPath(), target) {
			return appendToArray(src, it, alias, nl)
		}
	}
	// 2. The table has a header: add the key at the end of its section.
	for i, it := range items {
		if it.header != nil && !it.arrayTable && slices.Equal(it.header, table) {
			at := it.lineEnd
			for _, kv := range items[i+1:] {
				if kv.header != nil {
					break
				}
				at = kv.lineEnd
			}
			return insertAt(src, at, "extra_aliases = ["+tomlString(alias)+"]", nl), nil
		}
	}
	// 3. The table is made of dotted keys: add a dotted key beside them.
	for _, it := range items {
		p := it.fullPath()
		if it.header == nil && len(it.table) < len(table) && len(p) > len(table) && slices.Equal(p[:len(table)], table) {
			rel := slices.Clone(it.key[:len(it.key)-(len(p)-len(table))])
			rel = append(rel, "extra_aliases")
			keys := make([]string, len(rel))
			for i, k := range rel {
				keys[i] = tomlKey(k)
			}
			return insertAt(src, it.lineEnd, strings.Join(keys, ".")+" = ["+tomlString(alias)+"]", nl), nil
		}
		if it.header == nil && slices.Equal(p, table) {
			return nil, &ConfigEditError{Line: it.line, Reason: fmt.Sprintf("dialect.verbs.%s is an inline table; add %q to it by hand", verb, alias)}
		}
	}
	// 4. Nothing yet: a new table at the end of the file.
	var b bytes.Buffer
	b.Write(src)
	if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
		b.WriteString(nl)
	}
	if len(src) > 0 {
		b.WriteString(nl)
	}
	b.WriteString("[dialect.verbs." + tomlKey(verb) + "]" + nl)
	b.WriteString("extra_aliases = [" + tomlString(alias) + "]" + nl)
	return b.Bytes(), nil
}

// insertAt inserts line after the line that ends at offset at (the offset
// of its newline, or len(src)).
func insertAt(src []byte, at int, line, nl string) []byte {
	var b bytes.Buffer
	if at >= len(src) {
		b.Write(src)
		if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
			b.WriteString(nl)
		}
		b.WriteString(line + nl)
		return b.Bytes()
	}
	b.Write(src[:at+1]) // through the '\n'
	b.WriteString(line + nl)
	b.Write(src[at+1:])
	return b.Bytes()
}

// appendToArray adds alias as the last element of the array value of it.
func appendToArray(src []byte, it tomlItem, alias, nl string) ([]byte, error) {
	v := src[it.valStart:it.valEnd]
	if len(v) < 2 || v[0] != '[' || v[len(v)-1] != ']' {
		return nil, &ConfigEditError{Line: it.line, Reason: "extra_aliases is not an array"}
	}
	// Find the last significant byte before the closing bracket, skipping
	// whitespace and comments.
	last := -1 // offset in v
	lastLineStart := 0
	for i := 1; i < len(v)-1; {
		c := v[i]
		switch {
		case c == '#':
			for i < len(v)-1 && v[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			end := skipString(v, i)
			last = end - 1
			i = end
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		default:
			last = i
			i++
		}
	}
	if last >= 0 {
		lastLineStart = bytes.LastIndexByte(v[:last+1], '\n') + 1
	}
	s := tomlString(alias)
	abs := func(i int) int { return it.valStart + i }
	var b bytes.Buffer
	switch {
	case last < 0 || v[last] == '[': // empty array
		b.Write(src[:abs(1)])
		b.WriteString(s)
		b.Write(src[abs(1):])
	case !bytes.Contains(v, []byte("\n")): // one line
		b.Write(src[:abs(last+1)])
		if v[last] == ',' {
			b.WriteString(" " + s)
		} else {
			b.WriteString(", " + s)
		}
		b.Write(src[abs(last+1):])
	default: // several lines: a new line like the last element's
		indent := v[lastLineStart:]
		n := 0
		for n < len(indent) && (indent[n] == ' ' || indent[n] == '\t') {
			n++
		}
		ind := string(indent[:n])
		if lastLineStart == 0 { // last element on the opening line
			ind = "  "
		}
		eol := bytes.IndexByte(v[last:], '\n')
		if eol < 0 {
			return nil, &ConfigEditError{Line: it.line, Reason: "unexpected array layout"}
		}
		eolAbs := abs(last + eol)
		if v[last] == ',' {
			b.Write(src[:eolAbs+1])
			b.WriteString(ind + s + "," + nl)
			b.Write(src[eolAbs+1:])
		} else {
			b.Write(src[:abs(last+1)])
			b.WriteByte(',')
			b.Write(src[abs(last+1) : eolAbs+1])
			b.WriteString(ind + s + nl)
			b.Write(src[eolAbs+1:])
		}
	}
	return b.Bytes(), nil
}

// tomlItem is a table header or a key/value at the top of a section.
type tomlItem struct {
	line             int      // 1-based line of the header or key
	header           []string // non-nil for [table] and [[table]]
	arrayTable       bool
	table            []string // for a key: the header above it
	key              []string // for a key: its dotted path
	valStart, valEnd int      // for a key: the value's bytes
	lineEnd          int      // offset of the '\n' ending the item's last line, or len(src)
}

func (it tomlItem) fullPath() []string {
	return append(slices.Clone(it.table), it.key...)
}

// scanTOML finds the headers and top-level keys of a TOML document that
// go-toml has already accepted; it knows just enough TOML to step over
// strings, arrays, inline tables and comments.
func scanTOML(src []byte) ([]tomlItem, error) {
	var items []tomlItem
	var table []string
	line := 1
	i := 0
	n := len(src)
	lineEnd := func(j int) int {
		for j < n && src[j] != '\n' {
			j++
		}
		return j
	}
	for i < n {
		// At the start of a line.
		for i < n && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if i >= n {
			break
		}
		switch c := src[i]; {
		case c == '\n':
			i++
			line++
			continue
		case c == '\r' || c == '#':
			e := lineEnd(i)
			i = e + 1
			line++
			continue
		case c == '[':
			arr := i+1 < n && src[i+1] == '['
			j := i + 1
			if arr {
				j++
			}
			path, k, err := parseKey(src, j)
			if err != nil {
				return nil, &ConfigEditError{Line: line, Reason: err.Error()}
			}
			table = path
			e := lineEnd(k)
			items = append(items, tomlItem{line: line, header: path, arrayTable: arr, lineEnd: e})
			i = e + 1
			line++
		default:
			path, k, err := parseKey(src, i)
			if err != nil {
				return nil, &ConfigEditError{Line: line, Reason: err.Error()}
			}
			if k >= n || src[k] != '=' {
				return nil, &ConfigEditError{Line: line, Reason: "expected '=' after key"}
			}
			k++
			for k < n && (src[k] == ' ' || src[k] == '\t') {
				k++
			}
			start := k
			end := skipValue(src, k)
			startLine := line
			line += bytes.Count(src[start:end], []byte("\n"))
			e := lineEnd(end)
			items = append(items, tomlItem{line: startLine, table: table, key: path, valStart: start, valEnd: end, lineEnd: e})
			i = e + 1
			line++
		}
	}
	return items, nil
}

// parseKey reads a dotted key starting at i and returns its parts and the
// offset just past it (and past trailing spaces and a closing ']' or ']]').
func parseKey(src []byte, i int) ([]string, int, error) {
	var parts []string
	n := len(src)
	for {
		for i < n && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if i >= n {
			return nil, i, errors.New("unexpected end of file in key")
		}
		switch src[i] {
		case '"':
			end := skipString(src, i)
			s, err := strconv.Unquote(string(src[i:end]))
			if err != nil {
				// TOML escapes are a superset Go does not all know (\e, \U
				// of any length); fall back to the raw text.
				s = string(src[i+1 : end-1])
			}
			parts = append(parts, s)
			i = end
		case '\'':
			end := skipString(src, i)
			parts = append(parts, string(src[i+1:end-1]))
			i = end
		default:
			j := i
			for j < n && (src[j] >= 'A' && src[j] <= 'Z' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= '0' && src[j] <= '9' || src[j] == '_' || src[j] == '-') {
				j++
			}
			if j == i {
				return nil, i, fmt.Errorf("unexpected %q in key", src[i])
			}
			parts = append(parts, string(src[i:j]))
			i = j
		}
		for i < n && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if i < n && src[i] == '.' {
			i++
			continue
		}
		for i < n && src[i] == ']' {
			i++
		}
		return parts, i, nil
	}
}

// skipString returns the offset just past the string starting at i (basic,
// literal, or their multi-line forms).
func skipString(src []byte, i int) int {
	n := len(src)
	q := src[i]
	if i+2 < n && src[i+1] == q && src[i+2] == q { // multi-line
		j := i + 3
		for j < n {
			if q == '"' && src[j] == '\\' {
				j += 2
				continue
			}
			if j+2 < n && src[j] == q && src[j+1] == q && src[j+2] == q {
				j += 3
				for j < n && src[j] == q { // up to two quotes end the content
					j++
				}
				return j
			}
			j++
		}
		return n
	}
	j := i + 1
	for j < n && src[j] != '\n' {
		if q == '"' && src[j] == '\\' {
			j += 2
			continue
		}
		if src[j] == q {
			return j + 1
		}
		j++
	}
	return j
}

// skipValue returns the offset just past the value starting at i: a string,
// an array or inline table (to its matching bracket), or a bare value.
func skipValue(src []byte, i int) int {
	n := len(src)
	if i >= n {
		return i
	}
	switch src[i] {
	case '"', '\'':
		return skipString(src, i)
	case '[', '{':
		depth := 0
		j := i
		for j < n {
			switch c := src[j]; c {
			case '"', '\'':
				j = skipString(src, j)
				continue
			case '#':
				for j < n && src[j] != '\n' {
					j++
				}
				continue
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return n
	}
	j := i
	for j < n && src[j] != '\n' && src[j] != '#' && src[j] != '\r' {
		j++
	}
	for j > i && (src[j-1] == ' ' || src[j-1] == '\t') {
		j--
	}
	return j
}
