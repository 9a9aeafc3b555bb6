package grammarbridge

import (
	"strconv"
	"strings"
)

// binaryPrec gives the precedence of each binary operator of the value
// language (higher binds tighter), as in ECMA-262.
var binaryPrec = map[string]int{
	"??":  1,
	"||":  2,
	"&&":  3,
	"===": 4, "!==": 4, "==": 4, "!=": 4,
	"<": 5, ">": 5, "<=": 5, ">=": 5,
	"+": 6, "-": 6,
	"*": 7, "/": 7, "%": 7,
}

// value parses a value expression after "->".
func (p *parser) value() ValueExpr {
	p.space()
	return p.condExpr()
}

func (p *parser) condExpr() ValueExpr {
	test := p.binaryExpr(1)
	p.space()
	if p.peek() == '?' && p.peekAt(1) != '?' && p.peekAt(1) != '.' {
		start := p.off
		p.off++
		p.space()
		then := p.condExpr()
		p.expect(':', "':' in the conditional expression")
		p.space()
		els := p.condExpr()
		return &CondValue{Pos: p.pos(start), Test: test, Then: then, Else: els}
	}
	return test
}

// binaryOp returns the binary operator at the current offset, if any.
func (p *parser) binaryOp() string {
	rest := p.src[p.off:]
	if rest == "" || !opStart[rest[0]] {
		return "" // most values are followed by ',', '}' or ';'
	}
	for _, op := range []string{"===", "!==", "??", "||", "&&", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%"} {
		if strings.HasPrefix(rest, op) {
			if op == "-" && strings.HasPrefix(rest, "->") {
				return ""
			}
			if op == "/" && (strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "/*")) {
				return ""
			}
			return op
		}
	}
	return ""
}

// opStart marks the bytes a binary operator can start with.
var opStart = [256]bool{'=': true, '!': true, '?': true, '|': true, '&': true, '<': true, '>': true, '+': true, '-': true, '*': true, '/': true, '%': true}

func (p *parser) binaryExpr(minPrec int) ValueExpr {
	x := p.unaryExpr()
	for {
		p.space()
		op := p.binaryOp()
		if op == "" {
			return x
		}
		prec := binaryPrec[op]
		if prec < minPrec {
			return x
		}
		start := p.off
		p.off += len(op)
		p.space()
		y := p.binaryExpr(prec + 1)
		x = &BinaryValue{Pos: p.pos(start), Op: op, X: x, Y: y}
	}
}

func (p *parser) unaryExpr() ValueExpr {
	p.space()
	start := p.off
	switch c := p.peek(); {
	case c == '!' && p.peekAt(1) != '=':
		p.off++
		return &UnaryValue{Pos: p.pos(start), Op: "!", X: p.unaryExpr()}
	case c == '-' && p.peekAt(1) != '>' || c == '+':
		p.off++
		return &UnaryValue{Pos: p.pos(start), Op: string(c), X: p.unaryExpr()}
	case p.keyword("typeof"):
		return &UnaryValue{Pos: p.pos(start), Op: "typeof", X: p.unaryExpr()}
	}
	return p.postfixExpr(p.primaryExpr())
}

func (p *parser) postfixExpr(x ValueExpr) ValueExpr {
	for {
		p.space()
		start := p.off
		optional := false
		if p.peek() == '?' && p.peekAt(1) == '.' && !(p.peekAt(2) >= '0' && p.peekAt(2) <= '9') {
			optional = true
			p.off += 2
			p.space()
			if p.peek() == '[' {
				p.off++
				p.space()
				idx := p.condExpr()
				p.expect(']', "']' after the index")
				x = &MemberValue{Pos: p.pos(start), X: x, Index: idx, Optional: true}
				continue
			}
		} else if p.peek() == '.' && p.peekAt(1) != '.' {
			p.off++
			p.space()
		} else if p.peek() == '[' {
			p.off++
			p.space()
			idx := p.condExpr()
			p.expect(']', "']' after the index")
			x = &MemberValue{Pos: p.pos(start), X: x, Index: idx}
			continue
		} else {
			return x
		}
		name := p.ident("a property name after '.'")
		p.space()
		if p.peek() == '(' {
			p.off++
			var args []ValueExpr
			for {
				p.space()
				if p.peek() == ')' {
					break
				}
				args = append(args, p.condExpr())
				p.space()
				if p.peek() != ',' {
					break
				}
				p.off++
			}
			p.expect(')', "')' to close the argument list")
			x = &CallValue{Pos: p.pos(start), X: x, Method: name, Args: args}
			continue
		}
		x = &MemberValue{Pos: p.pos(start), X: x, Name: name, Optional: optional}
	}
}

func (p *parser) primaryExpr() ValueExpr {
	p.space()
	start := p.off
	pos := p.pos(start)
	c := p.peek()
	switch {
	case c == '{':
		return p.objectExpr()
	case c == '[':
		return p.arrayExpr()
	case c == '(':
		p.off++
		x := p.condExpr()
		p.expect(')', "')' to close the parenthesis")
		return x
	case c == '"' || c == '\'':
		v := p.litVals.new()
		v.Pos, v.Value = pos, p.quoted()
		return v
	case c == '`':
		return p.templateExpr()
	case c >= '0' && c <= '9' || c == '.' && p.peekAt(1) >= '0' && p.peekAt(1) <= '9':
		return &LitValue{Pos: pos, Value: p.numberLit()}
	case p.keyword("true"):
		return &LitValue{Pos: pos, Value: true}
	case p.keyword("false"):
		return &LitValue{Pos: pos, Value: false}
	case p.keyword("null"):
		return &LitValue{Pos: pos, Value: nil}
	case p.keyword("undefined"):
		return &LitValue{Pos: pos, Value: Undefined}
	case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		v := p.vars.new()
		v.Pos, v.Name = pos, p.ident("a variable name")
		return v
	}
	p.errorf(start, "expected a value (object, array, string, number, true, false or a variable), found %s", p.describe(start))
	return nil
}

// numberLit reads a JavaScript numeric literal.
func (p *parser) numberLit() float64 {
	start := p.off
	if p.peek() == '0' && strings.IndexByte("xXoObB", p.peekAt(1)) >= 0 {
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[p.peekAt(1)]
		p.off += 2
		ds := p.off
		for p.off < len(p.src) && isIdentByte(p.src[p.off]) {
			p.off++
		}
		v, err := strconv.ParseUint(strings.ReplaceAll(p.src[ds:p.off], "_", ""), base, 64)
		if err != nil {
			p.errorf(start, "bad number %q", p.src[start:p.off])
		}
		return float64(v)
	}
	for p.off < len(p.src) {
		c := p.src[p.off]
		if c >= '0' && c <= '9' || c == '.' || c == '_' {
			p.off++
		} else if (c == 'e' || c == 'E') && p.off > start {
			p.off++
			if p.peek() == '+' || p.peek() == '-' {
				p.off++
			}
		} else {
			break
		}
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(p.src[start:p.off], "_", ""), 64)
	if err != nil {
		p.errorf(start, "bad number %q", p.src[start:p.off])
	}
	return v
}

func (p *parser) objectExpr() ValueExpr {
	start := p.off
	p.off++ // '{'
	obj := p.objs.new()
	obj.Pos = p.pos(start)
	base := len(p.propStk)
	for {
		p.space()
		if p.peek() == '}' {
			p.off++
			obj.Props = p.propList.pop(&p.propStk, base)
			return obj
		}
		if strings.HasPrefix(p.src[p.off:], "...") {
			p.off += 3
			v := p.condExpr() // before the stack is read: it may grow it
			p.propStk = append(p.propStk, Property{Value: v, Spread: true})
		} else {
			kstart := p.off
			var key string
			shorthandOK := false
			switch c := p.peek(); {
			case c == '"' || c == '\'':
				key = p.quoted()
			case c >= '0' && c <= '9':
				key = formatNumber(p.numberLit())
			default:
				key = p.ident("a property name, '...' or '}'")
				shorthandOK = true
			}
			p.space()
			if p.peek() == ':' {
				p.off++
				p.space()
				v := p.condExpr() // before the stack is read: it may grow it
				p.propStk = append(p.propStk, Property{Key: key, Value: v})
			} else if shorthandOK {
				v := p.vars.new()
				v.Pos, v.Name = p.pos(kstart), key
				p.propStk = append(p.propStk, Property{Key: key, Value: v})
			} else {
				p.errorf(p.off, "expected ':' after the property name %q, found %s", key, p.describe(p.off))
			}
		}
		p.space()
		switch p.peek() {
		case ',':
			p.off++
		case '}':
		default:
			p.errorf(p.off, "expected ',' or '}' in the object, found %s", p.describe(p.off))
		}
	}
}

func (p *parser) arrayExpr() ValueExpr {
	start := p.off
	p.off++ // '['
	arr := &ArrayValue{Pos: p.pos(start)}
	for {
		p.space()
		if p.peek() == ']' {
			p.off++
			return arr
		}
		spread := false
		if strings.HasPrefix(p.src[p.off:], "...") {
			p.off += 3
			spread = true
		}
		arr.Elems = append(arr.Elems, p.condExpr())
		arr.Spread = append(arr.Spread, spread)
		p.space()
		switch p.peek() {
		case ',':
			p.off++
		case ']':
		default:
			p.errorf(p.off, "expected ',' or ']' in the array, found %s", p.describe(p.off))
		}
	}
}

func (p *parser) templateExpr() ValueExpr {
	start := p.off
	p.off++ // '`'
	t := &TemplateValue{Pos: p.pos(start)}
	var b strings.Builder
	for {
		if p.off >= len(p.src) {
			p.errorf(start, "unterminated template literal: expected '`'")
		}
		c := p.src[p.off]
		switch {
		case c == '`':
			p.off++
			t.Strs = append(t.Strs, b.String())
			return t
		case c == '\\':
			b.WriteString(p.escape())
		case c == '$' && p.peekAt(1) == '{':
			p.off += 2
			t.Strs = append(t.Strs, b.String())
			b.Reset()
			t.Exprs = append(t.Exprs, p.condExpr())
			p.expect('}', "'}' to close ${ in the template")
		default:
			b.WriteByte(c)
			p.off++
		}
	}
}
