package grammarbridge

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Parse parses the text of one .agr file into its syntax tree. name is used
// in error positions. Parse resolves nothing; see Compile.
func Parse(name, src string) (*File, error) {
	p := &parser{name: name, src: src}
	p.lines = make([]int, 0, strings.Count(src, "\n"))
	for i := 0; ; {
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		p.lines = append(p.lines, i)
	}
	f, err := p.file()
	if err != nil {
		return nil, err
	}
	return f, nil
}

// parser is a recursive-descent parser working directly on the source text.
type parser struct {
	name  string // file name, for errors
	src   string // the whole source
	off   int    // current byte offset
	lines []int  // offsets of the starts of lines 2, 3, ...
	line  int    // the line of the last pos asked for (positions come mostly in order)

	wordStart int // offset of the literal token word last read

	// The tree's most numerous nodes come from slabs (slab.go); parts
	// and alternatives are gathered on the stacks and copied out once
	// each list is complete, at its final length.
	altNodes slab[Alt]
	lits     slab[Literal]
	captures slab[Capture]
	tokens   slab[string] // literals' tokens past the first
	groups   slab[Group]
	refs     slab[RuleRef]
	vars     slab[VarValue]
	objs     slab[ObjectValue]
	litVals  slab[LitValue]
	partList slab[Expr]
	altList  slab[*Alt]
	propList slab[Property]
	partStk  []Expr
	altStk   []*Alt
	propStk  []Property
}

// srcSpace marks the bytes that separate words in a grammar's source:
// space, tab, newline, carriage return, form feed and vertical tab.
var srcSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\f': true, '\v': true}

// bail is panicked with by errorf and recovered in file, so the many small
// parse functions need not thread errors through every return.
type bail struct{ err *Error }

func (p *parser) pos(off int) Pos {
	// line is the number of line starts <= off. Nodes are mostly made in
	// source order: try the line of the last position and the next few
	// before searching.
	line := p.line
	if line > len(p.lines) || line > 0 && p.lines[line-1] > off {
		line = sort.SearchInts(p.lines, off+1)
	} else {
		for n := 0; line < len(p.lines) && p.lines[line] <= off; n++ {
			if n == 4 {
				line = sort.SearchInts(p.lines, off+1)
				break
			}
			line++
		}
	}
	p.line = line
	start := 0
	if line > 0 {
		start = p.lines[line-1]
	}
	return Pos{Offset: off, Line: line + 1, Col: off - start + 1}
}

func (p *parser) errorf(off int, format string, a ...any) {
	panic(bail{&Error{File: p.name, Pos: p.pos(off), Kind: ErrSyntax, Msg: fmt.Sprintf(format, a...)}})
}

// describe names what is at off, for "expected X, found Y" messages.
func (p *parser) describe(off int) string {
	if off >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRuneInString(p.src[off:])
	return strconv.QuoteRune(r)
}

func (p *parser) file() (f *File, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			f, err = nil, b.err
		}
	}()
	f = &File{Name: p.name}
	for {
		p.space()
		if p.off >= len(p.src) {
			return f, nil
		}
		switch {
		case p.keyword("import"):
			f.Imports = append(f.Imports, p.importStmt())
		case p.keyword("export"):
			start := p.off - len("export")
			p.space()
			if p.peek() != '<' {
				p.errorf(p.off, "expected a rule definition after 'export', found %s", p.describe(p.off))
			}
			r := p.ruleDef()
			r.Export = true
			r.Pos = p.pos(start)
			f.Rules = append(f.Rules, r)
		case p.peek() == '<':
			f.Rules = append(f.Rules, p.ruleDef())
		default:
			p.errorf(p.off, "expected an import or a rule definition such as <Name> = ...;, found %s", p.describe(p.off))
		}
	}
}

func (p *parser) peek() byte {
	if p.off < len(p.src) {
		return p.src[p.off]
	}
	return 0
}

func (p *parser) peekAt(n int) byte {
	if p.off+n < len(p.src) {
		return p.src[p.off+n]
	}
	return 0
}

// space skips whitespace and comments.
func (p *parser) space() {
	for p.off < len(p.src) {
		c := p.src[p.off]
		switch {
		case srcSpace[c]:
			p.off++
		case c == '/' && p.peekAt(1) == '/':
			for p.off < len(p.src) && p.src[p.off] != '\n' {
				p.off++
			}
		case c == '/' && p.peekAt(1) == '*':
			end := strings.Index(p.src[p.off+2:], "*/")
			if end < 0 {
				p.errorf(p.off, "unterminated /* comment: expected */")
			}
			p.off += 2 + end + 2
		default:
			return
		}
	}
}

// keyword consumes word if it is next and is not followed by an identifier
// character.
func (p *parser) keyword(word string) bool {
	if !strings.HasPrefix(p.src[p.off:], word) {
		return false
	}
	if end := p.off + len(word); end < len(p.src) && isIdentByte(p.src[end]) {
		return false
	}
	p.off += len(word)
	return true
}

func (p *parser) expect(c byte, what string) {
	p.space()
	if p.peek() != c {
		p.errorf(p.off, "expected %s, found %s", what, p.describe(p.off))
	}
	p.off++
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// ident reads an identifier (letters, digits, '_'; not starting with a
// digit).
func (p *parser) ident(what string) string {
	start := p.off
	for p.off < len(p.src) {
		if c := p.src[p.off]; c < utf8.RuneSelf {
			if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || p.off > start && '0' <= c && c <= '9' {
				p.off++
				continue
			}
			break
		}
		r, n := utf8.DecodeRuneInString(p.src[p.off:])
		if r == '_' || unicode.IsLetter(r) || p.off > start && unicode.IsDigit(r) {
			p.off += n
			continue
		}
		break
	}
	if p.off == start {
		p.errorf(p.off, "expected %s, found %s", what, p.describe(p.off))
	}
	return p.src[start:p.off]
}

func (p *parser) importStmt() *Import {
	start := p.off - len("import")
	im := &Import{Pos: p.pos(start)}
	p.space()
	switch p.peek() {
	case '*':
		p.off++
		im.All = true
	case '{':
		p.off++
		for {
			p.space()
			if p.peek() == '}' && len(im.Names) > 0 {
				break
			}
			im.Names = append(im.Names, p.ident("a name to import"))
			p.space()
			if p.peek() == ',' {
				p.off++
				continue
			}
			break
		}
		p.expect('}', "',' or '}' in the import list")
	default:
		p.errorf(p.off, "expected '{' or '*' after import, found %s", p.describe(p.off))
	}
	p.space()
	if p.keyword("from") {
		p.space()
		q := p.peek()
		if q != '"' && q != '\'' {
			p.errorf(p.off, "expected a quoted file name after 'from', found %s", p.describe(p.off))
		}
		im.From = p.quoted()
	} else if im.All {
		p.errorf(p.off, "expected 'from' after 'import *', found %s", p.describe(p.off))
	}
	p.space()
	if p.peek() == ';' {
		p.off++
	}
	return im
}

// quoted reads a '...' or "..." string with JavaScript escapes.
func (p *parser) quoted() string {
	q := p.src[p.off]
	start := p.off
	p.off++
	// Most strings have no escape: they are the source's bytes.
	for i := p.off; i < len(p.src) && p.src[i] != '\\' && p.src[i] != '\n'; i++ {
		if p.src[i] == q {
			p.off = i + 1
			return p.src[start+1 : i]
		}
	}
	var b strings.Builder
	for {
		if p.off >= len(p.src) || p.src[p.off] == '\n' {
			p.errorf(start, "unterminated string: expected closing %c", q)
		}
		c := p.src[p.off]
		if c == q {
			p.off++
			return b.String()
		}
		if c == '\\' {
			b.WriteString(p.escape())
			continue
		}
		b.WriteByte(c)
		p.off++
	}
}

// escape reads a backslash escape in a quoted string or template.
func (p *parser) escape() string {
	start := p.off
	p.off++ // the backslash
	if p.off >= len(p.src) {
		p.errorf(start, "unterminated escape sequence")
	}
	c := p.src[p.off]
	p.off++
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case 'b':
		return "\b"
	case 'f':
		return "\f"
	case 'v':
		return "\v"
	case '0':
		return "\x00"
	case '\n':
		return ""
	case 'u':
		var hex string
		if p.peek() == '{' {
			end := strings.IndexByte(p.src[p.off:], '}')
			if end < 0 {
				p.errorf(start, "bad \\u{...} escape: expected '}'")
			}
			hex = p.src[p.off+1 : p.off+end]
			p.off += end + 1
		} else {
			if p.off+4 > len(p.src) {
				p.errorf(start, "bad \\u escape: expected four hex digits")
			}
			hex = p.src[p.off : p.off+4]
			p.off += 4
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil || v > unicode.MaxRune {
			p.errorf(start, "bad \\u escape: expected hex digits, found %q", hex)
		}
		return string(rune(v))
	case 'x':
		if p.off+2 > len(p.src) {
			p.errorf(start, "bad \\x escape: expected two hex digits")
		}
		v, err := strconv.ParseUint(p.src[p.off:p.off+2], 16, 8)
		if err != nil {
			p.errorf(start, "bad \\x escape: expected two hex digits")
		}
		p.off += 2
		return string(rune(v))
	}
	p.off-- // re-read c as a possibly multi-byte rune
	r, n := utf8.DecodeRuneInString(p.src[p.off:])
	p.off += n
	return string(r)
}

func (p *parser) ruleDef() *RuleDef {
	start := p.off
	r := &RuleDef{Pos: p.pos(start)}
	r.Name = p.ruleName()
	for {
		p.space()
		switch p.peek() {
		case ':':
			if r.Type != "" {
				p.errorf(p.off, "expected '=' after the rule's type, found ':'")
			}
			p.off++
			tstart := p.off
			for p.off < len(p.src) && p.src[p.off] != '=' && p.src[p.off] != '[' && p.src[p.off] != ';' {
				p.off++
			}
			r.Type = strings.Join(strings.Fields(p.src[tstart:p.off]), " ")
			if r.Type == "" {
				p.errorf(tstart, "expected a type name after ':'")
			}
			continue
		case '[':
			r.Spacing = p.annotation()
			r.HasSpacing = true
			continue
		case '=':
			p.off++
		default:
			p.errorf(p.off, "expected '=' after <%s>, found %s", r.Name, p.describe(p.off))
		}
		break
	}
	r.Alts = p.alts(';')
	p.off++ // the ';'
	return r
}

// ruleName reads <Name> and returns Name.
func (p *parser) ruleName() string {
	p.off++ // '<'
	p.space()
	name := p.ident("a rule name after '<'")
	p.space()
	if p.peek() != '>' {
		p.errorf(p.off, "expected '>' to close <%s, found %s", name, p.describe(p.off))
	}
	p.off++
	return name
}

// annotation reads [spacing=mode] and returns the mode.
func (p *parser) annotation() Spacing {
	p.off++ // '['
	mode := SpacingAuto
	for {
		p.space()
		kstart := p.off
		key := p.ident("an annotation name such as spacing")
		if key != "spacing" {
			p.errorf(kstart, "unknown annotation %q: expected spacing", key)
		}
		p.expect('=', "'=' after spacing")
		p.space()
		vstart := p.off
		switch v := p.ident("a spacing mode"); v {
		case "auto":
			mode = SpacingAuto
		case "required":
			mode = SpacingRequired
		case "optional":
			mode = SpacingOptional
		case "none":
			mode = SpacingNone
		default:
			p.errorf(vstart, "unknown spacing mode %q: expected auto, required, optional or none", v)
		}
		p.space()
		if p.peek() == ',' {
			p.off++
			continue
		}
		break
	}
	p.expect(']', "']' to close the annotation")
	return mode
}

// alts reads alternatives separated by '|' up to (not including) end,
// which is ';' for a rule and ')' for a group.
func (p *parser) alts(end byte) []*Alt {
	base := len(p.altStk)
	for {
		a := p.alt(end)
		p.altStk = append(p.altStk, a)
		if p.peek() == '|' {
			p.off++
			continue
		}
		return p.altList.pop(&p.altStk, base)
	}
}

// alt reads one alternative and stops before '|' or end.
func (p *parser) alt(end byte) *Alt {
	p.space()
	a := p.altNodes.new()
	a.Pos = p.pos(p.off)
	if p.peek() == '[' {
		a.Spacing = p.annotation()
		a.HasSpacing = true
	}
	base := len(p.partStk)
	for {
		p.space()
		c := p.peek()
		parts := p.partStk[base:]
		switch {
		case p.off >= len(p.src):
			p.errorf(p.off, "expected %q or '|' to end the alternative, found end of file", end)
		case (c == '|' || c == end || c == '-' && p.peekAt(1) == '>') && len(parts) == 0:
			p.errorf(p.off, "expected literal text, '<Rule>', '$(capture)' or '(' to start the alternative, found %s", p.describe(p.off))
		case c == '|' || c == end:
			a.Parts = p.partList.pop(&p.partStk, base)
			return a
		case c == ';' || c == ')':
			p.errorf(p.off, "expected %q or '|', found %q", end, c)
		case c == '-' && p.peekAt(1) == '>':
			a.Parts = p.partList.pop(&p.partStk, base)
			p.off += 2
			a.Value = p.value()
			p.space()
			if c := p.peek(); c != '|' && c != end {
				p.errorf(p.off, "expected '|' or %q after the value, found %s", end, p.describe(p.off))
			}
			return a
		case c == '<':
			start := p.off
			name := p.ruleName()
			ref := p.refs.new()
			ref.Pos, ref.Name = p.pos(start), name
			at := p.off
			if ref.Quant = p.quant(); ref.Quant != QuantOne {
				ref.quantPos = p.pos(at)
			}
			p.partStk = append(p.partStk, ref)
		case c == '$' && p.peekAt(1) == '(':
			cp := p.capture()
			p.partStk = append(p.partStk, cp)
		case c == '(':
			start := p.off
			p.off++
			alts := p.alts(')')
			p.off++ // ')'
			g := p.groups.new()
			g.Pos, g.Alts, g.Quant = p.pos(start), alts, p.quant()
			p.partStk = append(p.partStk, g)
		default:
			tok := p.word()
			if n := len(parts); n > 0 {
				if lit, ok := parts[n-1].(*Literal); ok {
					if len(lit.Tokens) == cap(lit.Tokens) {
						// Room from the slab, twice as much.
						lit.Tokens = append(p.tokens.make(2 * len(lit.Tokens))[:0], lit.Tokens...)
					}
					lit.Tokens = append(lit.Tokens, tok)
					continue
				}
			}
			lit := p.lits.new()
			lit.Pos, lit.one = p.pos(p.wordStart), [1]string{tok}
			lit.Tokens = lit.one[:]
			p.partStk = append(p.partStk, lit)
		}
	}
}

// quant reads an optional ?, * or + directly after a group or rule
// reference.
func (p *parser) quant() Quant {
	switch p.peek() {
	case '?':
		p.off++
		return QuantOpt
	case '*':
		p.off++
		return QuantStar
	case '+':
		p.off++
		return QuantPlus
	}
	return QuantOne
}

// capture reads $(name), $(name:type) or $(name:<Rule>), and a directly
// following '?'.
func (p *parser) capture() *Capture {
	start := p.off
	p.off += 2
	p.space()
	c := p.captures.new()
	c.Pos, c.Kind, c.Type = p.pos(start), CaptureWildcard, "string"
	c.Var = p.ident("a variable name in $(...)")
	p.space()
	if p.peek() == ':' {
		p.off++
		p.space()
		if p.peek() == '<' {
			c.Type = p.ruleName()
			c.Kind = CaptureRule
		} else {
			c.Type = p.ident("a type (wildcard, string, word, number, an entity or <Rule>) after ':'")
			if c.Type == "number" {
				c.Kind = CaptureNumber
			}
		}
		p.space()
	}
	if p.peek() != ')' {
		p.errorf(p.off, "expected ')' to close $(%s, found %s", c.Var, p.describe(p.off))
	}
	p.off++
	if p.peek() == '?' {
		p.off++
		c.Optional = true
	}
	return c
}

// specialLiteral lists the bytes that cannot appear unescaped in literal
// text.
const specialLiteral = "|()<>$;{}[]\\-"

// word reads one literal token: everything up to whitespace, a special
// character or a comment, with backslash escapes removed.
func (p *parser) word() string {
	p.wordStart = p.off
	var b strings.Builder // used only once an escape is seen
	escaped := false
	for p.off < len(p.src) {
		c := p.src[p.off]
		if srcSpace[c] {
			break
		}
		if c == '/' && (p.peekAt(1) == '/' || p.peekAt(1) == '*') {
			break
		}
		if c == '\\' {
			if p.off+1 >= len(p.src) {
				p.errorf(p.off, "expected a character after '\\', found end of file")
			}
			if !escaped {
				escaped = true
				b.WriteString(p.src[p.wordStart:p.off])
			}
			r, n := utf8.DecodeRuneInString(p.src[p.off+1:])
			b.WriteRune(r)
			p.off += 1 + n
			continue
		}
		if c == '-' && p.peekAt(1) != '>' {
			p.errorf(p.off, "a hyphen in literal text must be escaped: expected '\\-' (or '->' before a value)")
		}
		if c == '$' && p.peekAt(1) != '(' {
			p.errorf(p.off, "a '$' in literal text must be escaped: expected '\\$' (or '$(' for a capture)")
		}
		if strings.IndexByte(specialLiteral, c) >= 0 {
			break
		}
		if escaped {
			b.WriteByte(c)
		}
		p.off++
	}
	if p.off == p.wordStart {
		p.errorf(p.off, "expected literal text, '<Rule>', '$(capture)', '(' or '->', found %s", p.describe(p.off))
	}
	if escaped {
		return b.String()
	}
	return p.src[p.wordStart:p.off]
}
