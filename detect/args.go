package detect

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Reading one action: its verb, arguments, chain, marker and the opening of
// its content block (docs/language.md §3).

// parseAction reads the action whose sigil is at line[i].
func (s *Scanner) parseAction(line []byte, i, start int, inline bool) {
	a := Action{Inline: inline, lineAction: !inline}
	a.Span = Span{Start: start + i, End: start + len(line), Line: s.line, Col: utf8.RuneCount(line[:i]) + 1}
	ts, end, verb, ok, do := s.readVerb(line, i)
	// The token stays as written (valid UTF-8): whoever resolves it again
	// must see what Resolve saw, not its NFC form.
	a.Token, a.Do = string(bytes.ToValidUTF8(line[ts:end], []byte("\uFFFD"))), do
	if ok {
		a.Verb = verb
		if !inline {
			s.kind = kindAction
		}
	}

	rest := line[end:]
	args, chain := splitChain(rest)
	if len(chain) > 0 {
		a.Chain = cleanText(chain)
	}
	s.content = s.content[:0]
	next := afterAction
	if k := bytes.Index(args, []byte(`"""`)); k >= 0 {
		after := args[k+3:]
		args = args[:k]
		a.Kind = TripleQuoted
		if c := bytes.Index(after, []byte(`"""`)); c >= 0 {
			s.content = append(s.content, after[:c]...)
			args = append(args[:len(args):len(args)], after[c+3:]...)
			next = inProse
		} else {
			if len(bytes.TrimSpace(after)) > 0 {
				s.content = append(s.content, after...)
				s.content = append(s.content, '\n')
			}
			next = inTripleBlock
		}
	} else if k := fenceInArgs(args); k >= 0 {
		ch, n, _ := fenceAt(args, k)
		s.fenceC, s.fenceN = ch, n
		_, s.fenceInd = skipCols(line, 0, 0)
		args = args[:k]
		a.Kind = Fenced
		next = inFencedBlock
	}
	args, marker := s.splitMarker(args)
	if marker != "" {
		a.Marker = marker
		a.badMarker = !s.validMarker(marker)
	}
	args = bytes.TrimSpace(args)
	if a.Kind == NoContent {
		if q, ok := trailingQuoted(args); ok {
			a.Kind = Quoted
			s.content = append(s.content, q...)
		}
	}
	if len(args) > s.opt.MaxActionSize {
		a.tooLarge = true
		args = args[:s.opt.MaxActionSize]
	}
	a.Args = cleanText(args)
	if a.lineAction || a.Do {
		s.reconOpen = true
	}
	s.actions = append(s.actions, a)
	s.cur = len(s.actions) - 1
	s.state = next
	if next == inProse {
		s.finishAction(s.line)
	}
}

// readVerb reads the verb token whose sigil is at line[i]: after an
// optional /do marker, a word, extended by the following words while a
// longer registered phrase goes on (longest phrase that resolves wins). It
// returns the token's bounds, the canonical verb and whether it resolved,
// and whether the /do marker preceded it.
func (s *Scanner) readVerb(line []byte, i int) (ts, end int, verb string, ok, do bool) {
	ts, te := i+1, wordEnd(line, i+1)
	if te-ts == 2 && (line[ts]|0x20) == 'd' && (line[ts+1]|0x20) == 'o' {
		if k := skipBlank(line, te); k > te && k < len(line) {
			k2 := k
			if line[k2] == '/' {
				k2++
			}
			if e := wordEnd(line, k2); e > k2 && !pathAfter(line, e) {
				do = true
				ts, te = k2, e
			}
		}
	}
	// The verb, extended word by word while a longer phrase is registered.
	// Resolve gets the words as written and normalises them itself: NFC
	// turns U+212A KELVIN SIGN into K, and a letter that normalises onto
	// ASCII must never make a strict verb (docs/language.md §4).
	raw := string(line[ts:te])
	verb, ok = s.vocab.Resolve(raw)
	end = te
	for cur, rawCur, curEnd := norm.NFC.String(raw), raw, te; s.vocab.Extends(cur); {
		k := skipBlank(line, curEnd)
		if k == curEnd {
			break
		}
		e := wordEnd(line, k)
		if e == k || !tokenEnds(line, e) {
			break // "/search web.dev", "/search web's": not the phrase "search web"
		}
		w := string(line[k:e])
		cur, rawCur = cur+" "+norm.NFC.String(w), rawCur+" "+w
		curEnd = e
		if v, ok2 := s.vocab.Resolve(rawCur); ok2 {
			verb, ok, end = v, true, e
		}
	}
	return ts, end, verb, ok, do
}

// tokenEnds reports whether the word ending at b[e] ends its
// whitespace-separated token, but for closing punctuation: a multi-word
// alias extends only over whole words.
func tokenEnds(b []byte, e int) bool {
	if e < len(b) && strings.IndexByte(".,;:!?)]`", b[e]) >= 0 {
		e++
	}
	return e >= len(b) || isSpaceAt(b, e)
}

// isSpaceAt reports whether a whitespace character starts at b[i].
func isSpaceAt(b []byte, i int) bool {
	if c := b[i]; c < utf8.RuneSelf {
		return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' || c == '\n'
	}
	r, _ := utf8.DecodeRune(b[i:])
	return unicode.IsSpace(r)
}

// noteHidden reports the first candidate in line[from:to], which is code
// or a comment, when its verb resolves: it is never executed, and reported
// with the reason InsideCode or InsideComment. A candidate that does not
// resolve there is nothing, and the text after a candidate is its
// arguments, as in prose.
func (s *Scanner) noteHidden(line []byte, from, to, start int, kind hideKind) {
	b := line[:to]
	for k := from; k < len(b); {
		j := bytes.IndexByte(b[k:], '/')
		if j < 0 {
			return
		}
		i := k + j
		k = i + 1
		if i > from && !boundaryBefore(b, i) && b[i-1] != '`' && !bytes.HasSuffix(b[:i], commentOpen) {
			continue
		}
		if e := wordEnd(b, i+1); e == i+1 || pathAfter(b, e) {
			continue
		}
		ts, end, verb, ok, _ := s.readVerb(b, i)
		if !ok {
			return
		}
		args := bytes.TrimSpace(b[end:])
		if kind == asCode {
			args = bytes.TrimSpace(bytes.TrimRight(args, "`"))
		} else {
			args = bytes.TrimSpace(bytes.TrimSuffix(args, []byte("-->")))
		}
		s.actions = append(s.actions, Action{
			Span:   Span{Start: start + i, End: start + to, Line: s.line, Col: utf8.RuneCount(line[:i]) + 1},
			Token:  cleanText(b[ts:end]),
			Verb:   verb,
			Args:   cleanText(args),
			Inline: i != contentStart(line),
			where:  kind,
		})
		s.markProse() // code and comments are text: nothing before them is trailing
		return
	}
}

// splitChain splits argument text at the first "->" (outside double
// quotes, after whitespace) that is followed by a sigil and a word: the
// arguments, and the chain tail starting at that sigil.
func splitChain(rest []byte) (args, chain []byte) {
	inQ := false
	for i := 0; i+1 < len(rest); i++ {
		c := rest[i]
		switch {
		case inQ && c == '\\':
			i++
		case c == '"':
			inQ = !inQ
		case !inQ && c == '-' && rest[i+1] == '>' && (i == 0 || isBlank(rest[i-1])):
			k := skipBlank(rest, i+2)
			if k < len(rest) && rest[k] == '/' && wordEnd(rest, k+1) > k+1 {
				return rest[:i], bytes.TrimSpace(rest[k:])
			}
		}
	}
	return rest, nil
}

// fenceInArgs returns where a fence opens in an action line's arguments
// (a run of three or more backticks or tildes after whitespace), or -1. A
// backtick fence's info string holds no backtick, so only the last
// backtick run can open one.
func fenceInArgs(args []byte) int {
	if k := bytes.LastIndexByte(args, '`'); k >= 0 {
		for k > 0 && args[k-1] == '`' {
			k--
		}
		if k == 0 || isBlank(args[k-1]) {
			if _, _, ok := fenceAt(args, k); ok {
				return k
			}
		}
	}
	for from := 0; ; {
		k := bytes.Index(args[from:], []byte("~~~"))
		if k < 0 {
			return -1
		}
		k += from
		if k == 0 || isBlank(args[k-1]) {
			return k
		}
		for from = k; from < len(args) && args[from] == '~'; from++ {
		}
	}
}

// splitMarker removes a permission marker — the last whitespace-separated
// token when it is ".", "?", "!", "?ask" or "?word" — from args.
func (s *Scanner) splitMarker(args []byte) ([]byte, string) {
	t := bytes.TrimRight(args, " \t")
	k := bytes.LastIndexAny(t, " \t")
	tok := t[k+1:]
	if k < 0 || len(tok) == 0 { // glued to what precedes the arguments: content
		return args, ""
	}
	switch {
	case len(tok) == 1 && (tok[0] == '.' || tok[0] == '?' || tok[0] == '!'):
	case tok[0] == '?' && wordEnd(tok, 1) == len(tok):
	default:
		return args, ""
	}
	return t[:k+1], string(tok)
}

func (s *Scanner) validMarker(m string) bool {
	if len(m) <= 1 {
		return true
	}
	return s.flags[strings.ToLower(m[1:])]
}

// trailingQuoted returns the raw body of a double-quoted string that ends
// args, honouring \" and \\ escapes.
func trailingQuoted(args []byte) ([]byte, bool) {
	if len(args) < 2 || args[len(args)-1] != '"' {
		return nil, false
	}
	open := -1
	for i := 0; i < len(args); i++ {
		switch c := args[i]; {
		case open >= 0 && c == '\\':
			i++
		case c == '"' && open < 0:
			open = i
		case c == '"':
			if i == len(args)-1 {
				return args[open+1 : i], true
			}
			open = -1
		}
	}
	return nil, false
}

// unescape resolves \" and \\ in a quoted string's body.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cleanText turns untrusted bytes into action text: invalid UTF-8 replaced,
// NFC-normalised (docs/language.md §7).
func cleanText(b []byte) string {
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	return norm.NFC.String(string(b))
}
