package verbs

import (
	"embed"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agnivade/levenshtein"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/grammarbridge"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/patch"
)

// grammarFS holds the argument grammars of the built-in verbs, one file
// per verb, and the rules they share (common.agr).
//
//go:embed grammars/*.agr
var grammarFS embed.FS

// builtin is one built-in verb's argument parser: its compiled grammar,
// the words and symbols the grammar uses, and the function that turns the
// grammar's value into the verb's intent.
type builtin struct {
	name    string
	filters bool   // CTX filters are taken out of the arguments
	form    string // usage, with the verb written as /VERB
	build   func(p *parser, val map[string]any) (intent.Intent, error)

	// The compiled grammar and its words, made on the verb's first parse:
	// a process that runs one /calc compiles one grammar.
	once     sync.Once
	err      error
	grammar  *grammarbridge.Grammar
	keywords map[string]bool // literal words and symbols of the grammar, lower case
	syms     map[string]bool // the symbols among them
}

func (b *builtin) usage(verb string) string { return strings.ReplaceAll(b.form, "/VERB", "/"+verb) }

// builtinForms lists, per built-in verb, its usage line, whether filters
// apply, and its intent builder.
func builtinForms(r *Registry) map[string]*builtin {
	return map[string]*builtin{
		"recall":   {form: `/VERB NAME · /VERB "query" · /VERB + "content" [#tag *project] · /VERB NAME + "content" · /VERB -NAME · /VERB read NAME [v2] · /VERB history NAME · /VERB restore NAME v2 · /VERB patch NAME, then a fenced diff on the next line`, filters: true, build: buildRecall},
		"context":  {form: `/VERB BLOCK + "content" · /VERB BLOCK "old" -> "new" · /VERB archive BLOCK · /VERB load LABEL · /VERB swap BLOCK LABEL`, build: buildContext},
		"search":   {form: `/VERB TERMS [in archival|conversations|all] [everywhere] [> 2 weeks] [role:assistant] [#tag @7d ^5 *project &brief|&full|&json]`, filters: true, build: buildSearch(r)},
		"send":     {form: `/VERB @domain [@target] "message"`, build: buildSend(r, "send")},
		"reply":    {form: `/VERB "message"`, build: buildSend(r, "reply")},
		"post":     {form: `/VERB @platform "message"`, build: buildSend(r, "post")},
		"dm":       {form: `/VERB [@user] "message"`, build: buildSend(r, "dm")},
		"tell":     {form: `/VERB @agent "message"`, build: buildSend(r, "tell")},
		"fetch":    {form: `/VERB URL [html|text] · /VERB continue`, build: buildFetch(r)},
		"web":      {form: `/VERB QUERY`, build: buildWeb},
		"calc":     {form: `/VERB EXPRESSION`, build: buildCalc},
		"approve":  {form: `/VERB ID [always]`, build: buildAuthority(intent.Approve)},
		"deny":     {form: `/VERB ID ["reason"] [always]`, build: buildAuthority(intent.Deny)},
		"escalate": {form: `/VERB ID "reason"`, build: buildAuthority(intent.Escalate)},
		"cancel":   {form: `/VERB [ID]`, build: buildAuthority(intent.Cancel)},
		"halt":     {form: `/VERB "reason" !`, build: buildAuthority(intent.Halt)},
	}
}

// newBuiltins returns the built-in verbs' parsers, each compiling its
// grammar when first used (see builtin.load).
func newBuiltins(r *Registry) map[string]*builtin {
	forms := builtinForms(r)
	for name, b := range forms {
		b.name = name
	}
	return forms
}

// load compiles the verb's grammar and collects its keywords, once.
func (b *builtin) load() error {
	b.once.Do(func() {
		file := "grammars/" + b.name + ".agr"
		g, err := grammarbridge.Compile(grammarbridge.FSLoader{FS: grammarFS}, file, grammarbridge.Options{})
		if err != nil {
			b.err = fmt.Errorf("verbs: built-in grammar %s: %w", file, err)
			return
		}
		src, err := grammarFS.ReadFile(file)
		if err != nil {
			b.err = err
			return
		}
		f, err := grammarbridge.Parse(file, string(src))
		if err != nil {
			b.err = err
			return
		}
		kw, syms := map[string]bool{}, map[string]bool{}
		for _, rd := range f.Rules {
			collectLiterals(rd.Alts, kw)
		}
		for k := range kw {
			if !isLetter(k) {
				syms[k] = true
			}
		}
		b.grammar, b.keywords, b.syms = g, kw, syms
	})
	return b.err
}

func collectLiterals(alts []*grammarbridge.Alt, into map[string]bool) {
	for _, a := range alts {
		for _, part := range a.Parts {
			switch x := part.(type) {
			case *grammarbridge.Literal:
				for _, t := range x.Tokens {
					into[strings.ToLower(t)] = true
				}
			case *grammarbridge.Group:
				collectLiterals(x.Alts, into)
			}
		}
	}
}

func asNoMatch(err error, nm **grammarbridge.NoMatchError) bool { return errors.As(err, nm) }

// impliedOp is the operation an alias implies (docs/language.md §5: forget →
// delete): the keyword put before the arguments unless they start with one.
func impliedOp(verb, token string) string {
	if verb != "recall" {
		return ""
	}
	switch strings.ToLower(strings.TrimSpace(token)) {
	case "forget":
		return "delete"
	case "save", "store", "archive":
		return "insert"
	}
	return ""
}

func missing(p *parser, format string, a ...any) error {
	return perr(codes.MissingArg, p.verb, 0, "/%s "+format, append([]any{p.verb}, a...)...)
}

func buildRecall(p *parser, val map[string]any) (intent.Intent, error) {
	op, _ := val["op"].(string)
	switch {
	case val == nil && p.nfilt > 0:
		return intent.Recall{Op: intent.RecallSearch, Filters: p.filters}, nil
	case val == nil && strings.TrimSpace(p.in.Content) != "":
		rc := intent.Recall{Op: intent.RecallInsert, Content: p.in.Content, Refs: refsIn(p.in.Content)}
		rc.Tags, rc.Project = Labels(rc.Content)
		return rc, nil
	case val == nil:
		return nil, missing(p, `needs a block name, a "query", or + "content" to save.`)
	}
	rc := intent.Recall{Op: intent.RecallOp(op)}
	switch op {
	case "insert", "append":
		rc.Content, rc.Refs = p.content(val, "content")
		if strings.TrimSpace(rc.Content) == "" {
			return nil, missing(p, `%s needs the content to save: /%s %s"text".`, op, p.verb, map[bool]string{true: "NAME + ", false: "+ "}[op == "append"])
		}
		if err := p.label(&rc, val["content"]); err != nil {
			return nil, err
		}
		if op == "append" {
			rc.Block = p.str(val, "block")
			return p.checkBlock(rc, false)
		}
		return rc, nil
	case "delete":
		rc.Block = p.str(val, "block")
		return p.checkBlock(rc, false)
	case "read", "restore":
		var err error
		if rc.Block, rc.Version, err = p.blockVersion(val["block"]); err != nil {
			return nil, err
		}
		if op == "restore" {
			if rc.Block == "" || rc.Version == 0 {
				name := cmpOr(strings.TrimSpace(rc.Block), "NAME")
				return nil, missing(p, "restore needs a block and the version to go back to: /%s restore %s v2 (/%s history %s lists them).", p.verb, name, p.verb, name)
			}
			return rc, nil // a deleted block is restored by its exact name
		}
		return p.checkBlock(rc, true)
	case "history":
		rc.Block = p.str(val, "block")
		return p.checkBlock(rc, true)
	case "patch":
		rc.Block = p.str(val, "block")
		rc.Patch = p.in.Content
		if strings.TrimSpace(rc.Patch) == "" {
			return nil, missing(p, "patch needs a unified diff in a fenced block on the next line: /%s patch %s, then ```diff ... ```.", p.verb, cmpOr(rc.Block, "NAME"))
		}
		if _, err := patch.Parse(rc.Patch); err != nil {
			return nil, perr(codes.MalformedSyntax, p.verb, 0, "/%s patch %s: the diff cannot be read: %v", p.verb, rc.Block, err)
		}
		return p.checkBlock(rc, false)
	case "search":
		rc.Query, _ = p.text(val["query"])
		rc.Filters = p.filters
		return rc, nil
	case "auto":
		text, ts := p.text(val["text"])
		if len(ts) == 1 && ts[0].kind == tQuoted {
			return intent.Recall{Op: intent.RecallSearch, Query: text, Filters: p.filters}, nil
		}
		if p.nfilt == 0 && p.in.Blocks != nil && !hasRef(ts) {
			ok, err := p.in.Blocks.HasBlock(p.ctx, text)
			if err != nil {
				return nil, fmt.Errorf("verbs: looking up block %q: %w", text, err)
			}
			if ok {
				return intent.Recall{Op: intent.RecallRead, Block: text}, nil
			}
			// NAME v2 reads that version of a block.
			if name, v, err := p.blockVersion(val["text"]); err == nil && v > 0 {
				if ok, err := p.in.Blocks.HasBlock(p.ctx, name); err == nil && ok {
					return intent.Recall{Op: intent.RecallRead, Block: name, Version: v}, nil
				}
			}
		}
		return intent.Recall{Op: intent.RecallSearch, Query: text, Filters: p.filters}, nil
	}
	return nil, fmt.Errorf("verbs: recall grammar gave unknown op %q", op)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// versionLike reports whether w is written as a version: v or V and digits.
func versionLike(w string) bool {
	if len(w) < 2 || w[0] != 'v' && w[0] != 'V' {
		return false
	}
	for _, c := range w[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func hasRef(ts []token) bool {
	for _, t := range ts {
		if t.kind == tRef {
			return true
		}
	}
	return false
}

// blockVersion reads a block name that may end with a version: "plan v2",
// "plan version 2", "plan to v2", "plan at version 2". The version is 0
// when none is written.
func (p *parser) blockVersion(v any) (string, int, error) {
	text, ts := p.text(v)
	n := len(ts)
	version := 0
	num := func(s string) int {
		k, err := strconv.Atoi(s)
		if err != nil || k <= 0 || k > 1_000_000_000 || strings.HasPrefix(s, "+") {
			return 0
		}
		return k
	}
	if n >= 2 && ts[n-1].kind == tWord && versionLike(ts[n-1].text) && num(ts[n-1].text[1:]) == 0 {
		t := ts[n-1]
		e := perr(codes.MalformedSyntax, p.verb, col(p.args, t.pos), "/%s: %s at column %d is not a version; versions count from v1", p.verb, t.text, col(p.args, t.pos))
		e.Token = t.text
		return "", 0, e
	}
	switch {
	case n >= 2 && ts[n-1].kind == tWord && versionLike(ts[n-1].text) && num(ts[n-1].text[1:]) > 0:
		version, n = num(ts[n-1].text[1:]), n-1
	case n >= 3 && strings.EqualFold(ts[n-2].text, "version") && num(ts[n-1].text) > 0:
		version, n = num(ts[n-1].text), n-2
	}
	if version == 0 {
		return text, 0, nil
	}
	if n >= 2 && ts[n-1].kind == tWord {
		switch strings.ToLower(ts[n-1].text) {
		case "to", "at", "from":
			n--
		}
	}
	if n == 1 && ts[0].kind == tQuoted {
		return ts[0].body, version, nil
	}
	return strings.TrimSpace(p.args[ts[0].pos:ts[n-1].end]), version, nil
}

// label sets an insert's or an append's tags and project: the #tags and
// *project written around quoted content (explicit labels, taken out of
// the content), and the #tags and *project inside the content, which
// stay in it. Filters around content that is not one quoted string, or
// other filters (@7d, ^5), are content: errFiltersAreContent asks for the
// arguments to be read again that way.
func (p *parser) label(rc *intent.Recall, content any) error {
	if p.nfilt > 0 {
		_, ts := p.text(content)
		quoted := len(ts) == 1 && ts[0].kind == tQuoted || len(ts) == 0 && p.in.Content != ""
		if !quoted || p.filters.Since != (intent.Since{}) || p.filters.Limit != 0 || p.filters.Format != "" || p.role != "" {
			return errFiltersAreContent
		}
		p.labelled = true
	}
	tags, project := Labels(rc.Content)
	rc.Tags = normLabels(append(append([]string(nil), p.filters.Tags...), tags...))
	rc.Project = strings.ToLower(cmpOr(p.filters.Project, project))
	return nil
}

// errFiltersAreContent tells parseBuiltin to read a recall's arguments
// again with the filters left in as content.
var errFiltersAreContent = errors.New("filters are content here")

// checkBlock settles a block name that names no block exactly: several
// blocks it could mean is AMBIGUOUS_ARGS; for a read, one is taken.
func (p *parser) checkBlock(rc intent.Recall, read bool) (intent.Intent, error) {
	if rc.Block == "" {
		return nil, missing(p, "%s needs a block name.", rc.Op)
	}
	bm, ok := p.in.Blocks.(BlockMatcher)
	if p.in.Blocks == nil || !ok {
		return rc, nil
	}
	exact, err := p.in.Blocks.HasBlock(p.ctx, rc.Block)
	if err != nil || exact {
		return rc, err
	}
	names, err := bm.MatchBlocks(p.ctx, rc.Block)
	switch {
	case err != nil:
		return nil, fmt.Errorf("verbs: matching block %q: %w", rc.Block, err)
	case len(names) > 1:
		e := perr(codes.AmbiguousArgs, p.verb, 0, "'%s' matches %s — which one?", rc.Block, orList(names))
		e.Candidates, e.Token = names, rc.Block
		return nil, e
	case len(names) == 1 && read:
		rc.Block = names[0]
	}
	return rc, nil
}

func buildContext(p *parser, val map[string]any) (intent.Intent, error) {
	if val == nil {
		return nil, missing(p, `needs a block: /%s BLOCK + "content".`, p.verb)
	}
	op, _ := val["op"].(string)
	c := intent.Context{Op: intent.ContextOp(op), Block: p.str(val, "block")}
	switch op {
	case "append":
		c.Content, c.Refs = p.content(val, "content")
		if strings.TrimSpace(c.Content) == "" {
			return nil, missing(p, `%s needs the content to add: /%s %s + "text".`, c.Block, p.verb, c.Block)
		}
	case "replace":
		var ts1, ts2 []token
		c.Old, ts1 = p.text(val["old"])
		c.New, ts2 = p.text(val["new"])
		for _, ts := range [][]token{ts1, ts2} {
			if err := p.wholeQuote(ts); err != nil {
				return nil, err
			}
		}
		c.Refs = refs(append(ts1, ts2...))
		if c.Old == "" {
			return nil, missing(p, `%s needs the text to replace: /%s %s "old" -> "new".`, c.Block, p.verb, c.Block)
		}
	case "load":
		c.Block, c.Label = "", p.str(val, "label")
	case "swap":
		c.Label = p.str(val, "label")
	}
	return c, nil
}

// wholeQuote checks one side of a replacement: a quoted string stands
// alone, since text around it (`"new" "extra"`) cannot be told apart from
// the quotes it would keep.
func (p *parser) wholeQuote(ts []token) error {
	if len(ts) < 2 {
		return nil
	}
	stray := -1
	for k, t := range ts {
		if t.kind == tQuoted {
			stray = k
			if k == 0 {
				stray = 1
			}
			break
		}
	}
	if stray < 0 {
		return nil
	}
	c := max(col(p.args, ts[stray].pos)-(len(p.args)-len(p.in.Args)), 1)
	shown := ts[stray].text
	if !strconv.CanBackquote(shown) {
		shown = strconv.Quote(shown)
	}
	return perr(codes.MalformedSyntax, p.verb, c, `/%s: at column %d, %s is outside the quoted text; quote the whole text once: /%s BLOCK "old" -> "new"`,
		p.verb, c, shown, p.verb)
}

var domainWords = map[string]string{
	"archival": intent.DomainArchival, "archive": intent.DomainArchival, "memory": intent.DomainArchival,
	"conversations": intent.DomainConversations, "conversation": intent.DomainConversations,
	"chats": intent.DomainConversations, "chat": intent.DomainConversations, "history": intent.DomainConversations,
	"constellation": intent.DomainConstellation, "all": "all", "everything": "all",
}

func buildSearch(r *Registry) func(p *parser, val map[string]any) (intent.Intent, error) {
	return func(p *parser, val map[string]any) (intent.Intent, error) {
		if err := p.unknownDomain(); err != nil {
			return nil, err
		}
		s := intent.Search{Filters: p.filters, Role: p.role}
		if val != nil {
			var ts []token
			s.Terms, ts = p.text(val["terms"])
			s.Refs = refs(ts)
			mods, _ := val["mods"].([]any)
			for _, m := range mods {
				if err := p.searchMod(&s, m); err != nil {
					return nil, err
				}
			}
		}
		if s.Terms == "" && p.nfilt == 0 {
			return nil, missing(p, "needs terms to look for: /%s project deadlines.", p.verb)
		}
		return s, nil
	}
}

// unknownDomain catches "in archivs" at either end of the arguments: a
// domain modifier misspelled, not terms to search for.
func (p *parser) unknownDomain() error {
	w := p.r.words
	for _, i := range []int{0, len(w) - 2} {
		if i < 0 || i+1 >= len(w) || w[i] != "in" || !strings.HasPrefix(w[i+1], "zw") {
			continue
		}
		t := p.toks[p.r.toks[i+1]]
		got := strings.ToLower(strings.Trim(t.text, ".,;:!?"))
		if _, ok := domainWords[got]; ok {
			continue
		}
		best, bd := "", 99
		for _, d := range []string{"archival", "conversations", "constellation", "all"} {
			limit := 2
			if len(got) <= 4 {
				limit = 1
			}
			if dist := levenshtein.ComputeDistance(got, d); dist <= limit && dist < bd {
				best, bd = d, dist
			}
		}
		if best != "" {
			e := perr(codes.UnknownModifier, p.verb, col(p.args, t.pos), "/%s in %s — did you mean 'in %s'?", p.verb, t.text, best)
			e.Suggestion = "in " + best
			e.Token = "in " + t.text
			return e
		}
	}
	return nil
}

func (p *parser) searchMod(s *intent.Search, m any) error {
	mm, _ := m.(map[string]any)
	if d, ok := mm["domain"].(string); ok {
		if d == "all" {
			s.Domains = nil
		} else if !slices.Contains(s.Domains, d) {
			s.Domains = append(s.Domains, d)
		}
		return nil
	}
	n, older := mm["older"]
	if !older {
		n = mm["newer"]
	}
	t := p.at(n)
	if t == nil {
		return nil
	}
	count, err := strconv.Atoi(t.text)
	if err != nil || count <= 0 || count > 100000 {
		return perr(codes.MalformedSyntax, p.verb, col(p.args, t.pos), "/%s: %q at column %d is not a number of time units (> 2 weeks)", p.verb, t.text, col(p.args, t.pos))
	}
	unit := map[string]time.Duration{"m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour,
		"mo": 30 * 24 * time.Hour, "y": 365 * 24 * time.Hour}[mm["unit"].(string)]
	if older {
		s.Time.OlderThan = time.Duration(count) * unit
	} else {
		s.Time.NewerThan = time.Duration(count) * unit
	}
	return nil
}

// builtinDomains are the send domains of docs/language.md §5.
var builtinDomains = []string{"user", "agent", "channel", "bluesky", "discord"}

func buildSend(r *Registry, via string) func(p *parser, val map[string]any) (intent.Intent, error) {
	return func(p *parser, val map[string]any) (intent.Intent, error) {
		s := intent.Send{}
		if via != "send" {
			s.Via = via
		}
		at := func(k string) (string, *token) {
			t := p.at(val[k])
			if t == nil {
				return "", nil
			}
			return t.body, t
		}
		switch via {
		case "send":
			var t *token
			s.Domain, t = at("domain")
			s.Target, _ = at("target")
			if t == nil {
				return nil, missing(p, `needs a destination: /%s @user "message" (domains: %s).`, p.verb, strings.Join(r.domains, ", "))
			}
			if err := p.checkDomain(r, &s.Domain, t, r.domains); err != nil {
				return nil, err
			}
		case "reply":
			s.Domain = "thread"
		case "post":
			var t *token
			s.Domain, t = at("platform")
			if t == nil {
				return nil, missing(p, `needs a platform: /%s @bluesky "text".`, p.verb)
			}
			if err := p.checkDomain(r, &s.Domain, t, r.platforms()); err != nil {
				return nil, err
			}
		case "dm":
			s.Domain = "user"
			s.Target, _ = at("target")
		case "tell":
			s.Domain = "agent"
			s.Target, _ = at("target")
			if s.Target == "" && val != nil {
				s.Target = p.str(val, "target")
			}
			if s.Target == "" {
				return nil, missing(p, `needs an agent: /%s @anchor "message".`, p.verb)
			}
		}
		s.Content, s.Refs = p.content(val, "content")
		if strings.TrimSpace(s.Content) == "" {
			return nil, missing(p, `needs a message: %s.`, strings.ReplaceAll(builtinFormsUsage[via], "/VERB", "/"+p.verb))
		}
		return s, nil
	}
}

var builtinFormsUsage = map[string]string{
	"send": `/VERB @user "message"`, "reply": `/VERB "message"`, "post": `/VERB @bluesky "message"`,
	"dm": `/VERB "message"`, "tell": `/VERB @anchor "message"`,
}

func (r *Registry) platforms() []string {
	var out []string
	for _, d := range r.domains {
		if d != "user" && d != "agent" && d != "thread" {
			out = append(out, d)
		}
	}
	return out
}

// checkDomain accepts a known domain (case-insensitive) and otherwise
// suggests the closest.
func (p *parser) checkDomain(r *Registry, d *string, t *token, known []string) error {
	low := strings.ToLower(*d)
	for _, k := range known {
		if k == low {
			*d = k
			return nil
		}
	}
	e := perr(codes.UnknownModifier, p.verb, col(p.args, t.pos), "/%s: @%s is not a destination here (%s)", p.verb, *d, "@"+strings.Join(known, ", @"))
	e.Token = "@" + *d
	if s := closest(low, known, 2); s != "" {
		e.Suggestion = "@" + s
		e.Message = fmt.Sprintf("/%s @%s — did you mean '@%s'?", p.verb, *d, s)
	}
	return e
}

// closest returns the option within limit edits of s, nearest first, or "".
func closest(s string, options []string, limit int) string {
	best, bd := "", limit+1
	for _, o := range options {
		if d := levenshtein.ComputeDistance(s, o); d < bd {
			best, bd = o, d
		}
	}
	return best
}

func keys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

func buildFetch(r *Registry) func(p *parser, val map[string]any) (intent.Intent, error) {
	return func(p *parser, val map[string]any) (intent.Intent, error) {
		if val == nil {
			return nil, missing(p, "needs a URL.")
		}
		if c, _ := val["continue"].(bool); c {
			return intent.Fetch{Continue: true}, nil
		}
		t := p.at(val["url"])
		if t != nil && t.kind == tRef {
			r, _ := intent.ParseRef(t.text)
			f := intent.Fetch{URL: t.text, Refs: []intent.Ref{r}}
			f.Format, _ = val["format"].(string)
			return f, nil
		}
		url, ok := asURL(t)
		if !ok {
			if strings.EqualFold(p.in.Token, "get") {
				// get is fetch only before a URL; otherwise it reads memory.
				in := p.in
				in.Token, in.Args = "", "read "+in.Args
				return r.parseBuiltin(p.ctx, r.by["recall"], "recall", in)
			}
			return nil, missing(p, "needs a URL; %q is not one.", t.text)
		}
		f := intent.Fetch{URL: url}
		f.Format, _ = val["format"].(string)
		return f, nil
	}
}

// asURL accepts http(s) URLs, www. hosts and bare host names with a dot
// (example.org/page), adding https://.
func asURL(t *token) (string, bool) {
	if t == nil {
		return "", false
	}
	s := t.text
	low := strings.ToLower(s)
	switch {
	case strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "https://"):
		return s, len(s) > len("https://")
	case strings.HasPrefix(low, "www."):
		return "https://" + s, true
	}
	host, _, _ := strings.Cut(s, "/")
	dot := strings.LastIndexByte(host, '.')
	if dot <= 0 || dot == len(host)-1 || strings.ContainsAny(host, "@:") {
		return "", false
	}
	for _, c := range host[dot+1:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "", false
		}
	}
	return "https://" + s, true
}

func buildWeb(p *parser, val map[string]any) (intent.Intent, error) {
	q, ts := p.text(val["query"])
	if q == "" {
		q = strings.TrimSpace(p.in.Content)
	}
	if q == "" {
		return nil, missing(p, "needs a query: /%s go 1.26 release notes.", p.verb)
	}
	return intent.Web{Query: q, Refs: refs(ts)}, nil
}

func buildCalc(p *parser, val map[string]any) (intent.Intent, error) {
	e, ts := p.text(val["expr"])
	if e == "" {
		e = strings.TrimSpace(p.in.Content)
	}
	if e == "" {
		return nil, missing(p, "needs an expression: /%s 20%% of 350.", p.verb)
	}
	return intent.Calc{Expr: e, Refs: refs(ts)}, nil
}

func buildAuthority(op intent.AuthorityOp) func(p *parser, val map[string]any) (intent.Intent, error) {
	return func(p *parser, val map[string]any) (intent.Intent, error) {
		a := intent.Authority{Op: op}
		if t := p.at(val["id"]); t != nil {
			a.ID = strings.TrimPrefix(t.body, "#")
		}
		a.Always, _ = val["always"].(bool)
		a.Reason = p.str(val, "reason")
		if a.Reason == "" && (op == intent.Halt || op == intent.Escalate || op == intent.Deny) {
			a.Reason = strings.TrimSpace(p.in.Content)
		}
		switch {
		case op == intent.Halt && a.Reason == "":
			return nil, missing(p, `needs a reason: /%s "reason" !`, p.verb)
		case op == intent.Halt && p.in.Marker != "!":
			return nil, perr(codes.MalformedSyntax, p.verb, 0, `/%s stops the runtime and must end with the ! marker: /%s "reason" !`, p.verb, p.verb)
		case op == intent.Cancel || op == intent.Halt:
		case a.ID == "":
			return nil, missing(p, "needs the id of a pending action: %s.", map[intent.AuthorityOp]string{
				intent.Approve: "/" + p.verb + " 12", intent.Deny: "/" + p.verb + ` 12 "reason"`, intent.Escalate: "/" + p.verb + ` 12 "reason"`}[op])
		case op == intent.Escalate && a.Reason == "":
			return nil, missing(p, `needs a reason: /%s %s "reason".`, p.verb, a.ID)
		}
		return a, nil
	}
}
