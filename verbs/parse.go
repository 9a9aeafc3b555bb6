package verbs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/grammarbridge"
	"github.com/pattern-dialect/dialect/intent"
)

// ContentKind says which form an action's content block took. Its values
// are those of detect.ContentKind, so a caller converts with
// verbs.ContentKind(action.Kind); verbs does not import detect.
type ContentKind int

// The content forms of docs/language.md §3.
const (
	NoContent ContentKind = iota
	Quoted
	TripleQuoted
	Fenced
	QuoteLines
)

// MaxInput is the largest argument text plus content one action may carry
// (docs/language.md §7).
const MaxInput = 64 << 10

// Input is one action's text, as the scanner split it.
type Input struct {
	Token   string      // the verb as written ("forget", "Look up"); optional
	Args    string      // the rest of the line after the verb, marker and chain removed
	Content string      // the content block, unescaped for Quoted
	Kind    ContentKind // which form the content took
	Marker  string      // the permission marker: ".", "?", "?ask", "!", "?flag" or ""
	Blocks  Blocks      // existing memory blocks, for inference; may be nil
}

// Blocks is what parsing needs to know about memory: whether a block of a
// given name exists. /recall NAME reads when it does and searches
// otherwise.
type Blocks interface {
	HasBlock(ctx context.Context, name string) (bool, error)
}

// BlockMatcher is optionally implemented by a Blocks: the blocks a name
// that is not exact could mean ("notes" → project_notes, meeting_notes).
// An explicit block operation on a name with several such blocks is
// AMBIGUOUS_ARGS.
type BlockMatcher interface {
	MatchBlocks(ctx context.Context, name string) ([]string, error)
}

// Parse turns the arguments of one action into its intent. verb is the
// canonical verb (see Verb); a verb's alias as written goes in in.Token.
// Failures are *ParseError values with a docs/language.md §6 code; other errors
// (a Blocks lookup failing, a cancelled ctx) are returned wrapped.
func (r *Registry) Parse(ctx context.Context, verb string, in Input) (intent.Intent, error) {
	v := r.by[strings.ToLower(verb)]
	if v == nil {
		return nil, &ParseError{Code: codes.UnknownVerb, Message: fmt.Sprintf("/%s is not a verb", verb)}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in = clean(in)
	if len(in.Args)+len(in.Content) > r.maxInput {
		return nil, perr(codes.InputTooLarge, v.Name, 0, "/%s: arguments and content are %d bytes; the limit is %d", v.Name, len(in.Args)+len(in.Content), r.maxInput)
	}
	switch {
	case v.def != nil:
		return r.parseDefined(ctx, v, in)
	case v.Custom:
		return r.parseCustom(ctx, v, in)
	}
	return r.parseBuiltin(ctx, v, v.Name, in)
}

// clean makes untrusted text safe to match: invalid UTF-8 replaced,
// NFC-normalised (docs/language.md §7).
func clean(in Input) Input {
	fix := func(s string) string {
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		return norm.NFC.String(s)
	}
	in.Args, in.Content, in.Token = fix(strings.TrimSpace(in.Args)), fix(in.Content), fix(in.Token)
	return in
}

// parser carries one parse of one action by a built-in grammar.
type parser struct {
	ctx      context.Context
	verb     string // canonical name, for messages
	in       Input
	args     string // the argument text the tokens index
	toks     []token
	r        rendering
	filters  intent.Filters
	role     string
	nfilt    int  // filter tokens taken out
	labelled bool // the filters were taken as an insert's or append's labels
}

// parseBuiltin parses in by the grammar of the built-in verb b; name is
// the verb for messages (a custom verb's own name).
func (r *Registry) parseBuiltin(ctx context.Context, v *Verb, name string, in Input) (intent.Intent, error) {
	b := r.builtins[builtinName(v)]
	if err := b.load(); err != nil {
		return nil, err
	}
	args := in.Args
	if op := impliedOp(b.name, in.Token); op != "" && !startsWithKeyword(args, b.keywords) {
		args = op + " " + args
	}
	toks, lexErr := lex(name, args, b.syms)
	if lexErr != nil {
		if args != in.Args { // the column counts from the written arguments
			lexErr.Pos -= len(args) - len(in.Args)
			lexErr.Message = fmt.Sprintf("unterminated quote at column %d", lexErr.Pos)
		}
		return nil, lexErr
	}
	if err := bannedKeys(name, args, toks); err != nil {
		return nil, err
	}
	if err := badRefs(name, args, toks); err != nil {
		return nil, err
	}
	p := &parser{ctx: ctx, verb: name, in: in, args: args, toks: toks}
	if b.filters {
		if err := p.takeFilters(); err != nil {
			return nil, err
		}
	}
	out, err := p.run(b)
	if b.name == "recall" && p.nfilt > 0 && !p.labelled {
		rc, ok := out.(intent.Recall)
		if errors.Is(err, errFiltersAreContent) || err == nil && ok && rc.Op != intent.RecallSearch {
			// Filters belong to searches, and label what insert and
			// append store; anywhere else they are content.
			p = &parser{ctx: ctx, verb: name, in: in, args: args, toks: toks}
			out, err = p.run(b)
		}
	}
	if err != nil {
		return nil, err
	}
	return withRefs(out, refs(toks), refsIn(contentBlock(in))), nil
}

// contentBlock is the action's content block when it is not already in
// the arguments.
func contentBlock(in Input) string {
	if in.Kind == Quoted {
		return ""
	}
	return in.Content
}

// withRefs lists on an intent every reference written in its arguments
// and content, wherever the grammar put the text it sits in, so that the
// runtime resolves each of them (a reference in a search's terms as much
// as in a message's content).
func withRefs(it intent.Intent, lists ...[]intent.Ref) intent.Intent {
	var rs []intent.Ref
	for _, l := range lists {
		for _, r := range l {
			if !slices.Contains(rs, r) {
				rs = append(rs, r)
			}
		}
	}
	if len(rs) == 0 {
		return it
	}
	switch in := it.(type) {
	case intent.Recall:
		in.Refs = rs
		return in
	case intent.Context:
		in.Refs = rs
		return in
	case intent.Search:
		in.Refs = rs
		return in
	case intent.Send:
		in.Refs = rs
		return in
	case intent.Fetch:
		in.Refs = rs
		return in
	case intent.Web:
		in.Refs = rs
		return in
	case intent.Calc:
		in.Refs = rs
		return in
	}
	return it
}

// run renders, matches and builds the intent.
func (p *parser) run(b *builtin) (intent.Intent, error) {
	p.r = render(p.toks, b.keywords, func(t token) bool { return t.kind == tFilter && p.nfilt > 0 })
	if len(p.r.words) == 0 {
		return b.build(p, nil)
	}
	m, err := b.grammar.BestContext(p.ctx, p.r.input)
	if err != nil && p.ctx.Err() != nil {
		return nil, p.ctx.Err() // the action's time ran out: TIMEOUT, not the model's mistake
	}
	if err != nil {
		return nil, p.noMatch(b, err)
	}
	var val map[string]any // a value that is not an object leaves it nil
	_ = json.Unmarshal(m.Value, &val)
	return b.build(p, val)
}

// noMatch turns a grammar's failure into MALFORMED_SYNTAX that says what
// would have been accepted where the match stopped.
func (p *parser) noMatch(b *builtin, err error) error {
	var nm *grammarbridge.NoMatchError
	if !asNoMatch(err, &nm) {
		return perr(codes.MalformedSyntax, p.verb, 0, "/%s: the arguments could not be read (%v). Usage: %s", p.verb, err, b.usage(p.verb))
	}
	// Map the offset in the rendering back to a token and a column: the
	// word the offset falls in, or the next one when it falls on a space.
	off := min(nm.Offset, len(p.r.input))
	w := strings.Count(p.r.input[:off], " ")
	if off < len(p.r.input) && p.r.input[off] == ' ' {
		w++
	}
	pos := len(p.args) + 1
	got := "the end of the arguments"
	if w < len(p.r.words) {
		t := p.toks[p.r.toks[w]]
		pos = t.pos
		got = fmt.Sprintf("%q", t.text)
	}
	column := col(p.args, pos) - (len(p.args) - len(p.in.Args))
	expected := nm.Expected
	if w < len(p.r.words) {
		// A wildcard would have taken the token found there: the keyword
		// the grammar wanted after it is the useful part of the list.
		var lits []string
		for _, x := range expected {
			if !strings.HasPrefix(x, "$(") {
				lits = append(lits, x)
			}
		}
		if len(lits) > 0 {
			expected = lits
		}
	}
	exp := describeExpected(expected)
	if w >= len(p.r.words) || p.wantsMore(b) {
		// The arguments ran out: something is missing rather than wrong.
		e := perr(codes.MissingArg, p.verb, 0, "/%s needs more: expected %s after the arguments. Usage: %s", p.verb, orList(exp), b.usage(p.verb))
		e.Expected = exp
		return e
	}
	e := perr(codes.MalformedSyntax, p.verb, max(column, 1), "/%s: at column %d, found %s but expected %s. Usage: %s",
		p.verb, max(column, 1), got, orList(exp), b.usage(p.verb))
	e.Expected = exp
	if w < len(p.r.words) {
		e.Token = p.toks[p.r.toks[w]].text
	}
	return e
}

// wantsMore reports whether one more token of some class would make the
// arguments match: then something is missing rather than wrong.
func (p *parser) wantsMore(b *builtin) bool {
	n := strconv.Itoa(len(p.r.words))
	for _, ph := range []string{"zw", "zq", "za", "zu"} {
		if ms, err := b.grammar.MatchContext(p.ctx, p.r.input+" "+ph+n); err == nil && len(ms) > 0 {
			return true
		}
	}
	return false
}

// describeExpected names what the grammar wanted in words a model reads.
func describeExpected(exp []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range exp {
		d := x
		switch x {
		case "zw":
			d = "a word"
		case "zq":
			d = "a \"quoted string\""
		case "za":
			d = "an @name"
		case "zu":
			d = "a URL"
		case "zr":
			d = "a reference"
		case "end of input":
			d = "the end of the arguments"
		default:
			if strings.HasPrefix(x, "$(") {
				d = "text (" + strings.TrimSuffix(strings.TrimPrefix(x, "$("), ")") + ")"
			} else {
				d = "'" + x + "'"
			}
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		out = []string{"nothing more"}
	}
	return out
}

// takeFilters pulls CTX filters and role: out of the tokens.
func (p *parser) takeFilters() error {
	for _, t := range p.toks {
		if t.kind != tFilter {
			continue
		}
		p.nfilt++
		f := &p.filters
		switch t.filter {
		case '#':
			f.Tags = append(f.Tags, t.body)
		case '@':
			s, _ := intent.ParseSince(t.body)
			f.Since = s
		case '^':
			fmt.Sscan(t.body, &f.Limit)
		case '*':
			f.Project = t.body
		case '&':
			format := strings.ToLower(strings.TrimRight(t.body, ".,;:!?"))
			if !slices.Contains(Formats, format) {
				e := perr(codes.UnknownModifier, p.verb, col(p.args, t.pos), "/%s: %s is not a format (&%s)", p.verb, t.text, strings.Join(Formats, ", &"))
				e.Token = t.text
				if s := closest(format, Formats, 2); s != "" {
					e.Suggestion = "&" + s
					e.Message = fmt.Sprintf("/%s %s — did you mean '&%s'?", p.verb, t.text, s)
				}
				return e
			}
			f.Format = format
		case 'r':
			if !roles[t.body] {
				e := perr(codes.UnknownModifier, p.verb, col(p.args, t.pos), "/%s: %s is not a role (user, assistant, system, tool)", p.verb, t.text)
				e.Token = t.text
				if s := closest(t.body, keys(roles), 2); s != "" {
					e.Suggestion = "role:" + s
					e.Message = fmt.Sprintf("/%s %s — did you mean 'role:%s'?", p.verb, t.text, s)
				}
				return e
			}
			p.role = t.body
		}
	}
	return nil
}

var roles = map[string]bool{"user": true, "assistant": true, "system": true, "tool": true}

// Formats are the result formats a search may ask for with &format:
// brief (one line per result), full (whole entries) and json.
var Formats = []string{"brief", "full", "json"}

// at returns the token at a rendered position given as a grammar value
// (a float64), or nil.
func (p *parser) at(v any) *token {
	n, ok := v.(float64)
	if !ok || n < 0 || int(n) >= len(p.r.toks) {
		return nil
	}
	return &p.toks[p.r.toks[int(n)]]
}

// text returns the text a grammar value stands for: a position gives its
// token (a quoted string's body, an @name without @), a wildcard capture
// gives the tokens it spans as written. The second result lists the
// tokens, for references.
func (p *parser) text(v any) (string, []token) {
	switch v := v.(type) {
	case float64:
		t := p.at(v)
		if t == nil {
			return "", nil
		}
		return t.body, []token{*t}
	case string:
		from, to, ok := p.r.span(v)
		if !ok {
			return v, nil
		}
		if from == to && (p.toks[p.r.toks[from]].kind == tQuoted) {
			t := p.toks[p.r.toks[from]]
			return t.body, []token{t}
		}
		var b strings.Builder
		var ts []token
		for k := from; k <= to; k++ {
			i := p.r.toks[k]
			t := p.toks[i]
			if k > from {
				prev := p.r.toks[k-1]
				if prev == i-1 {
					b.WriteString(p.args[p.toks[prev].end:t.pos])
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString(t.text)
			ts = append(ts, t)
		}
		return b.String(), ts
	}
	return "", nil
}

// str returns the text of field k of val, "" when absent.
func (p *parser) str(val map[string]any, k string) string {
	s, _ := p.text(val[k])
	return s
}

// refs returns the references in tokens and in the bodies of quoted ones.
func refs(ts []token) []intent.Ref {
	var out []intent.Ref
	for _, t := range ts {
		switch t.kind {
		case tRef:
			r, _ := intent.ParseRef(t.text)
			out = append(out, r)
		case tQuoted:
			out = append(out, refsIn(t.body)...)
		}
	}
	return out
}

// refsIn finds reference tokens in free text.
func refsIn(s string) []intent.Ref {
	var out []intent.Ref
	for _, w := range strings.Fields(s) {
		if !strings.HasPrefix(w, "@") {
			continue
		}
		w = strings.TrimRight(w, ",;:!?)'\"")
		if r, ok := intent.ParseRef(w); ok {
			out = append(out, r)
		} else if r, ok := intent.ParseRef(strings.TrimRight(w, ".")); ok {
			out = append(out, r)
		}
	}
	return out
}

// content joins captured content with the action's content block:
// the block alone when nothing was captured.
func (p *parser) content(val map[string]any, k string) (string, []intent.Ref) {
	s, ts := p.text(val[k])
	rs := refs(ts)
	blk := p.in.Content
	if p.in.Kind == Quoted {
		blk = "" // its text is in the arguments
	}
	switch {
	case s == "":
		s = blk
		rs = append(rs, refsIn(blk)...)
	case blk != "":
		s += "\n" + blk
		rs = append(rs, refsIn(blk)...)
	}
	return s, rs
}

func startsWithKeyword(args string, kw map[string]bool) bool {
	f := strings.Fields(args)
	return len(f) > 0 && kw[strings.ToLower(f[0])]
}

// bannedKeys rejects key=value payloads whose key JavaScript hosts would
// treat as an object's prototype (docs/language.md §7).
func bannedKeys(verb, args string, toks []token) error {
	for _, t := range toks {
		if t.kind == tQuoted {
			continue
		}
		k, _, found := strings.Cut(t.text, "=")
		if !found {
			k, _, found = strings.Cut(t.text, ":")
		}
		if found && isBanned(strings.Trim(k, `"'`)) {
			return perr(codes.BannedKey, verb, col(args, t.pos), "/%s: the key %q is not allowed in arguments (column %d)", verb, k, col(args, t.pos))
		}
	}
	return nil
}

func isBanned(k string) bool {
	switch k {
	case "__proto__", "constructor", "prototype":
		return true
	}
	return false
}

// badRefs rejects tokens written as references that are none: @last.outpt,
// an unclosed @[uri (docs/language.md §3: never a silent empty string).
func badRefs(verb, args string, toks []token) error {
	for _, t := range toks {
		if t.kind == tQuoted || t.kind == tRef {
			continue
		}
		low := strings.ToLower(strings.TrimRight(t.text, ",;:!?)"))
		if _, ok := intent.ParseRef(low); ok {
			continue
		}
		c := col(args, t.pos)
		switch {
		case strings.HasPrefix(low, "@last.") || strings.HasPrefix(low, "@[") && !strings.Contains(low, "]") || low == "@[]":
			e := perr(codes.InvalidReference, verb, c, "%s at column %d is not a reference (@last, @last.message, @last.output, @thread, @parent, @[uri])", t.text, c)
			e.Token = t.text
			if s := closest(low, []string{"@last.message", "@last.output"}, 3); s != "" {
				e.Suggestion = s
				e.Message = fmt.Sprintf("%s at column %d is not a reference — did you mean %s?", t.text, c, s)
			}
			return e
		}
	}
	return nil
}
