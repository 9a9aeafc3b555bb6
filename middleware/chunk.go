package middleware

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// chunk is what the middleware reads of one chat.completion.chunk.
type chunk struct {
	head     chunkHead
	errRaw   []byte // the "error" member as written, when present and not null
	content  []byte // choice 0's delta.content, decoded; in the chunk's data or the reader's buffer
	seen     bool   // choice 0 had a delta.content string
	finished bool   // choice 0 had a finish_reason
}

// readChunk reads data, one SSE event's data, as a chat.completion.chunk
// in one pass that also validates it: ok is false when data is not one
// valid JSON value (as encoding/json.Valid decides). A valid value that
// is not an object is a chunk with nothing in it. Of duplicate members
// the last counts, as in encoding/json. Strings decode as encoding/json
// decodes them (invalid UTF-8 and lone surrogates become U+FFFD).
//
// It replaces gjson (validate, then walk the members, the choices and
// the delta, each a pass of its own): chunks are token-sized and come by
// the thousand per answer, so this pass was most of the middleware's
// time per stream.
//
// prev is the previous chunk's head: a head string equal to its own is
// taken from it rather than allocated again.
func readChunk(data []byte, prev chunkHead) (c chunk, ok bool) {
	var r chunkReader
	return r.read(data, prev)
}

// chunkReader reads chunks as readChunk does, into a buffer of its own:
// a chunk's content is valid until the next read, and reading one
// allocates nothing unless its head changed.
type chunkReader struct {
	buf []byte // decoded content with escapes
}

func (r *chunkReader) read(data []byte, prev chunkHead) (c chunk, ok bool) {
	p := jsonReader{data: data, buf: r.buf[:0]}
	defer func() { r.buf = p.buf }()
	p.space()
	if p.peek() == '{' {
		ok = p.object(func(key []byte) bool { return p.topMember(key, &c, &prev) })
	} else {
		ok = p.skip(0)
	}
	p.space()
	return c, ok && p.i == len(p.data)
}

// maxDepth is encoding/json's nesting limit: deeper is invalid.
const maxDepth = 10000

// jsonReader reads JSON text from data at i.
type jsonReader struct {
	data []byte
	i    int
	buf  []byte // decoded content
}

func (p *jsonReader) peek() byte {
	if p.i < len(p.data) {
		return p.data[p.i]
	}
	return 0
}

func (p *jsonReader) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// topMember reads the value of a top-level member.
func (p *jsonReader) topMember(key []byte, c *chunk, prev *chunkHead) bool {
	switch string(key) {
	case "id":
		return p.text(&c.head.ID, prev.ID)
	case "object":
		return p.text(&c.head.Object, prev.Object)
	case "model":
		return p.text(&c.head.Model, prev.Model)
	case "created":
		start := p.i
		if !p.skip(1) {
			return false
		}
		c.head.Created = number(p.data[start:p.i])
		return true
	case "error":
		start := p.i
		if !p.skip(1) {
			return false
		}
		c.errRaw = nil
		if raw := p.data[start:p.i]; string(raw) != "null" {
			c.errRaw = raw
		}
		return true
	case "choices":
		if p.peek() != '[' {
			return p.skip(1)
		}
		return p.array(func() bool {
			if p.peek() != '{' {
				return p.skip(2)
			}
			var ch struct {
				index, finish []byte // raw values
				content       []byte // delta.content when a string, quoted
				esc           bool   // content needs decoding
			}
			if !p.object(func(key []byte) bool {
				start := p.i
				switch string(key) {
				case "index":
					if !p.skip(3) {
						return false
					}
					ch.index = p.data[start:p.i]
				case "finish_reason":
					if !p.skip(3) {
						return false
					}
					ch.finish = p.data[start:p.i]
				case "delta":
					ch.content, ch.esc = nil, false
					if p.peek() != '{' {
						return p.skip(3)
					}
					return p.object(func(key []byte) bool {
						start := p.i
						if string(key) != "content" {
							return p.skip(4)
						}
						ch.content, ch.esc = nil, false
						if p.peek() != '"' {
							return p.skip(4)
						}
						esc, ok := p.str()
						ch.content, ch.esc = p.data[start:p.i], esc
						return ok
					})
				default:
					return p.skip(3)
				}
				return true
			}) {
				return false
			}
			if ch.index != nil && ch.index[0] != '"' && number(ch.index) != 0 {
				return true
			}
			if ch.content != nil {
				c.content, c.seen = ch.content[1:len(ch.content)-1], true
				if ch.esc {
					p.buf = appendUnquoted(p.buf[:0], ch.content)
					c.content = p.buf
				}
			}
			if len(ch.finish) > 2 && ch.finish[0] == '"' {
				c.finished = true
			}
			return true
		})
	}
	return p.skip(1)
}

// text reads a string value into s; null is "", another kind of value
// its JSON text (as gjson's String read them). A string equal to prev is
// prev.
func (p *jsonReader) text(s *string, prev string) bool {
	start := p.i
	if p.peek() == '"' {
		esc, ok := p.str()
		if !ok {
			return false
		}
		switch raw := p.data[start+1 : p.i-1]; {
		case esc:
			*s = unquote(p.data[start:p.i])
		case string(raw) == prev:
			*s = prev
		default:
			*s = string(raw)
		}
		return true
	}
	if !p.skip(1) {
		return false
	}
	if raw := p.data[start:p.i]; string(raw) != "null" {
		*s = string(raw)
	}
	return true
}

// number is a JSON number's integer part (0 for anything else), as
// gjson's Int read it.
func number(raw []byte) int64 {
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0
	}
	return int64(f)
}

// object reads an object, calling member with each key (decoded) with
// the reader at the member's value, which member must read.
func (p *jsonReader) object(member func(key []byte) bool) bool {
	p.i++ // {
	p.space()
	if p.peek() == '}' {
		p.i++
		return true
	}
	for {
		if p.peek() != '"' {
			return false
		}
		start := p.i
		esc, ok := p.str()
		if !ok {
			return false
		}
		key := p.data[start+1 : p.i-1]
		if esc {
			key = []byte(unquote(p.data[start:p.i]))
		}
		p.space()
		if p.peek() != ':' {
			return false
		}
		p.i++
		p.space()
		if !member(key) {
			return false
		}
		p.space()
		switch p.peek() {
		case ',':
			p.i++
			p.space()
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling elem with the reader at each element,
// which elem must read.
func (p *jsonReader) array(elem func() bool) bool {
	p.i++ // [
	p.space()
	if p.peek() == ']' {
		p.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		p.space()
		switch p.peek() {
		case ',':
			p.i++
			p.space()
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// skip reads one value at nesting depth, checking it and nothing more.
func (p *jsonReader) skip(depth int) bool {
	switch c := p.peek(); {
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return false
		}
		if c == '[' {
			return p.array(func() bool { return p.skip(depth + 1) })
		}
		return p.object(func([]byte) bool { return p.skip(depth + 1) })
	case c == '"':
		_, ok := p.str()
		return ok
	case c == '-' || c >= '0' && c <= '9':
		return p.num()
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	}
	return false
}

func (p *jsonReader) lit(s string) bool {
	if len(p.data)-p.i < len(s) || string(p.data[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// num reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jsonReader) num() bool {
	if p.peek() == '-' {
		p.i++
	}
	switch c := p.peek(); {
	case c == '0':
		p.i++
	case c >= '1' && c <= '9':
		p.digits()
	default:
		return false
	}
	if p.peek() == '.' {
		p.i++
		if !p.digits() {
			return false
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if !p.digits() {
			return false
		}
	}
	return true
}

func (p *jsonReader) digits() bool {
	start := p.i
	for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// str reads a string, quotes included; esc says whether it holds an
// escape or bytes that are not ASCII (so that it must be decoded).
func (p *jsonReader) str() (esc, ok bool) {
	p.i++ // "
	for p.i < len(p.data) {
		c := p.data[p.i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			p.i++
			continue
		}
		switch {
		case c == '"':
			p.i++
			return esc, true
		case c < 0x20:
			return false, false
		case c == '\\':
			esc = true
			p.i++
			switch p.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				if len(p.data)-p.i < 5 {
					return false, false
				}
				for _, h := range p.data[p.i+1 : p.i+5] {
					if unhex(h) < 0 {
						return false, false
					}
				}
				p.i += 5
			default:
				return false, false
			}
		case c >= utf8.RuneSelf:
			esc = true
			p.i++
		default:
			p.i++
		}
	}
	return false, false
}

func unhex(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// unquote decodes a valid JSON string (quotes included) as
// encoding/json does.
func unquote(raw []byte) string {
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s)
	}
	return string(appendUnquoted(make([]byte, 0, len(s)+8), raw))
}

// appendUnquoted appends the decoded valid JSON string raw (quotes
// included) to b.
func appendUnquoted(b, raw []byte) []byte {
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			i++
			switch s[i] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(s[i+1:])
				i += 4
				// A surrogate counts only as the first half of a pair
				// written as the next escape; otherwise it is U+FFFD.
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
						r2 = hex4(s[i+3:])
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
			default: // " \ /
				b = append(b, s[i])
			}
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
		}
	}
	return b
}

func hex4(s []byte) rune {
	return unhex(s[0])<<12 | unhex(s[1])<<8 | unhex(s[2])<<4 | unhex(s[3])
}
