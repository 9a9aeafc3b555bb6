package verbs

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// Arguments are lexed before a built-in grammar sees them. Quoted strings,
// @names, URLs, references and CTX filters are recognised here, where
// punctuation and escapes can be handled exactly; the grammar then matches a
// rendering of the arguments in which every keyword it knows stays as
// written and every other token is replaced by a placeholder of its class
// and position ("zw3", "zq4"). Captured placeholders are mapped back to the
// text as written, so glued punctuation survives (docs/language.md §3) and no
// user text can be mistaken for grammar syntax.

// tokKind is the lexical class of an argument token.
type tokKind uint8

const (
	tWord   tokKind = iota // anything else, as written
	tQuoted                // "..." with \" and \\ escapes; body unescaped
	tAt                    // @name that is neither a reference nor a since filter
	tURL                   // http(s)://..., www....
	tRef                   // @last, @last.output, @thread, @parent, @[uri]
	tSym                   // a symbol the grammar uses: +, -, ->, >, <
	tFilter                // #tag, @7d, ^5, *project, &format, role:x
)

// placeholder prefixes by class; the shared grammar rules match them.
var prefix = [...]string{tWord: "zw", tQuoted: "zq", tAt: "za", tURL: "zu", tRef: "zr", tSym: "zw", tFilter: "zw"}

// token is one lexed argument token.
type token struct {
	kind     tokKind
	text     string // as written
	body     string // quoted: unescaped body; at: the name; filter: its value
	pos, end int    // byte offsets in the argument text
	filter   byte   // for tFilter: '#', '@', '^', '*', '&' or 'r' (role:)
}

// lex splits args into tokens. syms are the symbols the verb's grammar
// uses; a leading "-" glued to a name, or ">" or "<" glued to a number, is
// split off only when the grammar knows it. An unterminated quote is MALFORMED_SYNTAX.
func lex(verb, args string, syms map[string]bool) ([]token, *ParseError) {
	var toks []token
	i := 0
	for i < len(args) {
		r, w := utf8.DecodeRuneInString(args[i:])
		if unicode.IsSpace(r) {
			i += w
			continue
		}
		if args[i] == '"' {
			end, body, ok := quoted(args, i)
			if !ok {
				return nil, perr(codes.MalformedSyntax, verb, col(args, i), "unterminated quote at column %d", col(args, i))
			}
			toks = append(toks, token{kind: tQuoted, text: args[i:end], body: body, pos: i, end: end})
			i = end
			continue
		}
		j := i
		for j < len(args) {
			r, w := utf8.DecodeRuneInString(args[j:])
			if unicode.IsSpace(r) || (args[j] == '"' && j > i && (args[i] == '+' && j == i+1)) {
				break
			}
			if args[j] == '"' && j > i && args[j-1] == '=' {
				// key="a value": the quoted value belongs to the token.
				end, _, ok := quoted(args, j)
				if !ok {
					return nil, perr(codes.MalformedSyntax, verb, col(args, j), "unterminated quote at column %d", col(args, j))
				}
				j = end
				continue
			}
			j += w
		}
		chunk := args[i:j]
		switch {
		case syms[chunk]:
			toks = append(toks, token{kind: tSym, text: chunk, body: chunk, pos: i, end: j})
		case chunk == "+" && j < len(args) && args[j] == '"':
			toks = append(toks, token{kind: tSym, text: "+", body: "+", pos: i, end: j})
		case len(chunk) > 1 && syms[chunk[:1]] && (chunk[0] == '-' && startsName(chunk[1:]) || (chunk[0] == '>' || chunk[0] == '<') && chunk[1] >= '0' && chunk[1] <= '9'):
			toks = append(toks, token{kind: tSym, text: chunk[:1], body: chunk[:1], pos: i, end: i + 1})
			toks = append(toks, classify(chunk[1:], i+1))
		default:
			toks = append(toks, classify(chunk, i))
		}
		i = j
	}
	return toks, nil
}

// startsName reports whether s starts as a name may: a letter, a digit or
// "_" ("-_x" and "-2024_notes" name blocks as "-log" does).
func startsName(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// quoted reads a "..." string starting at args[i]; end is just past the
// closing quote.
func quoted(args string, i int) (end int, body string, ok bool) {
	var b strings.Builder
	for j := i + 1; j < len(args); j++ {
		switch c := args[j]; c {
		case '\\':
			if j+1 < len(args) && (args[j+1] == '"' || args[j+1] == '\\') {
				j++
				b.WriteByte(args[j])
				continue
			}
			b.WriteByte(c)
		case '"':
			return j + 1, b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return 0, "", false
}

// classify gives a whitespace-free chunk its class.
func classify(s string, pos int) token {
	t := token{kind: tWord, text: s, body: s, pos: pos, end: pos + len(s)}
	if len(s) < 2 {
		return t
	}
	low := strings.ToLower(s)
	switch {
	case s[0] == '@':
		if _, ok := intent.ParseRef(s); ok {
			t.kind = tRef
		} else if _, err := intent.ParseSince(s[1:]); err == nil {
			t.kind, t.filter, t.body = tFilter, '@', s[1:]
		} else if name := s[1:]; ValidName(strings.ToLower(name)) || isNameLike(name) {
			t.kind, t.body = tAt, name
		}
	case s[0] == '#' && isWordRune(s[1:]):
		t.kind, t.filter, t.body = tFilter, '#', s[1:]
	case s[0] == '^':
		if n, err := strconv.Atoi(s[1:]); err == nil && n > 0 {
			t.kind, t.filter, t.body = tFilter, '^', s[1:]
		}
	case s[0] == '*' && isLetter(s[1:]) && !strings.HasSuffix(s, "*"):
		t.kind, t.filter, t.body = tFilter, '*', s[1:]
	case s[0] == '&' && isLetter(s[1:]):
		t.kind, t.filter, t.body = tFilter, '&', s[1:]
	case strings.HasPrefix(low, "role:") && len(s) > 5:
		t.kind, t.filter, t.body = tFilter, 'r', low[5:]
	case strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "https://") || strings.HasPrefix(low, "www."):
		t.kind = tURL
	}
	return t
}

func isWordRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isNameLike accepts @names with dots or digits (@anchor.v2, @team-7).
func isNameLike(s string) bool {
	if !isLetter(s) {
		return false
	}
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-", r)) {
			return false
		}
	}
	return true
}

// col returns the 1-based rune column of byte offset i in s.
func col(s string, i int) int {
	i = min(max(i, 0), len(s))
	return utf8.RuneCountInString(s[:i]) + 1
}

// Bounds on the keywords a rendering keeps (see render).
const (
	keywordEdge  = 48
	symbolRepeat = 4
)

// rendering is the argument text as a grammar sees it.
type rendering struct {
	words []string // one per rendered token
	toks  []int    // rendered position → index in the token list
	input string   // words joined by spaces
}

// render turns tokens into grammar input: keywords (lower-cased) and
// symbols the grammar knows stay, every other token becomes a placeholder.
// skip drops tokens (filters pulled out of search-like arguments).
//
// Matching cost grows with the number of keywords a wildcard can stop at,
// so a long argument keeps its keywords only near its ends (within
// keywordEdge words) and only the first symbolRepeat occurrences of each
// symbol: every form of the built-in grammars puts its keywords there.
func render(toks []token, keywords map[string]bool, skip func(token) bool) rendering {
	var r rendering
	var b strings.Builder
	total := 0
	for _, t := range toks {
		if skip == nil || !skip(t) {
			total++
		}
	}
	symSeen := map[string]int{}
	for i, t := range toks {
		if skip != nil && skip(t) {
			continue
		}
		n := len(r.words)
		nearEdge := n < keywordEdge || n >= total-keywordEdge
		var w string
		switch {
		case t.kind == tWord && nearEdge && keywords[strings.ToLower(t.text)]:
			w = strings.ToLower(t.text)
		case t.kind == tSym && keywords[t.text] && symSeen[t.text] < symbolRepeat:
			symSeen[t.text]++
			w = t.text
		default:
			w = prefix[t.kind] + strconv.Itoa(n)
		}
		if n > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		r.words = append(r.words, w)
		r.toks = append(r.toks, i)
	}
	r.input = b.String()
	return r
}

// span finds the rendered positions [from, to] a wildcard capture covers.
// Every rendered token is one word of the input, so one placeholder in the
// capture fixes the whole span; a capture of keywords only is found by
// searching.
func (r rendering) span(capture string) (from, to int, ok bool) {
	ws := strings.Fields(capture)
	if len(ws) == 0 {
		return 0, 0, false
	}
	for k, w := range ws {
		if n, isPh := placeholderIndex(w); isPh {
			from = n - k
			to = from + len(ws) - 1
			return from, to, from >= 0 && to < len(r.words)
		}
	}
outer:
	for s := 0; s+len(ws) <= len(r.words); s++ {
		for k, w := range ws {
			if r.words[s+k] != strings.ToLower(w) {
				continue outer
			}
		}
		return s, s + len(ws) - 1, true
	}
	return 0, 0, false
}

func placeholderIndex(w string) (int, bool) {
	if len(w) < 3 || w[0] != 'z' {
		return 0, false
	}
	switch w[:2] {
	case "zw", "zq", "za", "zu", "zr":
		n, err := strconv.Atoi(w[2:])
		return n, err == nil
	}
	return 0, false
}
