package grammarbridge

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// Loader reads grammar source files by name. Names of imported files are
// resolved against the importing file's name with Resolve.
type Loader interface {
	Load(name string) (string, error)
}

// FSLoader loads grammars from a file system (an embed.FS, os.DirFS, ...).
type FSLoader struct{ FS fs.FS }

// Load reads name from the file system.
func (l FSLoader) Load(name string) (string, error) {
	b, err := fs.ReadFile(l.FS, strings.TrimPrefix(path.Clean(name), "/"))
	return string(b), err
}

// MapLoader loads grammars from memory: file name -> source text.
type MapLoader map[string]string

// Load returns the source stored under name.
func (l MapLoader) Load(name string) (string, error) {
	if src, ok := l[path.Clean(name)]; ok {
		return src, nil
	}
	return "", fmt.Errorf("%s: %w", name, fs.ErrNotExist)
}

// OSLoader loads grammars from the operating system's file system by path.
type OSLoader struct{}

// Load reads the file at name.
func (OSLoader) Load(name string) (string, error) {
	b, err := os.ReadFile(filepath.FromSlash(name))
	return string(b), err
}

// Options configure compilation and matching. The zero value is the default:
// TypeAgent-compatible matching with a work limit of DefaultWorkLimit.
type Options struct {
	// PhraseSets makes the phrase-set references <Polite>, <Greeting>,
	// <Acknowledgement> and <FillerWord> (when the grammar neither defines
	// nor imports them) consume one of their phrases, as TypeAgent's NFA
	// matcher does. Off, they match the empty string and consume nothing,
	// as TypeAgent's AST matcher (the reference) does.
	PhraseSets bool

	// QuantifiedRules makes ?, * and + directly after a rule reference
	// (<Panel>?) quantify it, as they do after a group, which is what a
	// grammar author means. Off, they are literal text after the
	// reference, as TypeAgent's parser reads them: <Panel>? matches the
	// rule followed by a "?" in the input, so (<Panel>)? is how a grammar
	// says the rule is optional there.
	QuantifiedRules bool

	// WorkLimit bounds the matcher's steps per input; 0 means
	// DefaultWorkLimit. A match that needs more fails with ErrWorkLimit.
	WorkLimit int

	// naive, for tests, turns off every optimization that must not change
	// results (memoization, pruning by first byte, dropped redundant
	// skips), leaving the plain backtracking search to compare with.
	naive bool
}

// AsAuthored returns o with every documented deviation from TypeAgent on
// (PhraseSets, QuantifiedRules): a grammar read as its author means it,
// as `dialect grammar match` reads it by default and custom verbs do.
func (o Options) AsAuthored() Options {
	o.PhraseSets, o.QuantifiedRules = true, true
	return o
}

// DefaultWorkLimit is the default number of matcher steps per input.
const DefaultWorkLimit = 1 << 20

// maxDepth bounds rule nesting during a match, so left recursion fails with
// ErrWorkLimit instead of exhausting the stack.
const maxDepth = 2000

// Grammar is a compiled grammar, safe for concurrent use.
type Grammar struct {
	start  *crule
	pool   sync.Pool // of *matcher, reused across inputs
	spare  atomic.Pointer[matcher]
	alts   []*calt // every alternative, by id
	nrules int     // rules and groups, for the memo tables
	opts   Options
	vt     valueTables // constants of the compiled values
	// recordHook, for tests, is called with the matcher before each
	// complete parse's value is built.
	recordHook func(*matcher)
	// Types records the TypeScript type imports and the <Start> rule's
	// value type, as written; they do not affect matching.
	Types []string
}

// phraseSets are TypeAgent's built-in phrase sets.
var phraseSets = map[string][]string{
	"Polite":          {"please", "could you", "would you", "would you please", "can you", "kindly"},
	"Greeting":        {"hey", "hi", "ok", "okay", "alright", "hello", "yo"},
	"Acknowledgement": {"thanks", "thank you", "great", "perfect", "good", "nice", "cool"},
	"FillerWord":      {"um", "uh", "like", "well", "so", "just", "basically", "actually"},
}

// builtinEntities are the entity names an import without a source may
// name. Ordinal and Cardinal have rules (builtin.agr); the others are
// accepted as capture types (plain wildcards) only.
var builtinEntities = map[string]bool{
	"Ordinal": true, "Cardinal": true,
	"CalendarDate": true, "CalendarTime": true, "CalendarTimeRange": true, "CalendarDayRange": true, "Percentage": true,
}

//go:embed builtin.agr
var builtinSource string

// Compile loads the grammar file name through loader, resolves its imports
// and compiles it, starting at the rule <Start>.
func Compile(loader Loader, name string, opts Options) (*Grammar, error) {
	c := &compiler{loader: loader, opts: opts, files: map[string]*fileScope{}}
	fsc := c.load(name, nil, nil)
	if fsc == nil {
		return nil, c.sorted().err()
	}
	if len(c.errs) > 0 {
		return nil, c.sorted().err()
	}
	startDef := fsc.defs["Start"]
	if startDef == nil {
		return nil, &Error{File: name, Pos: Pos{Line: 1, Col: 1}, Kind: ErrUndefinedRule, Msg: "the grammar has no <Start> rule: expected a definition such as <Start> = ...;"}
	}
	start := c.rule(fsc, startDef)
	// Compile the rules <Start> does not reach too, to report their errors.
	for _, d := range fsc.file.Rules {
		c.rule(fsc, fsc.defs[d.Name])
	}
	if len(c.errs) > 0 {
		return nil, c.sorted().err()
	}
	for _, alt := range start.alts {
		if !c.altHasValue(alt, map[*crule]bool{}) {
			d := fsc.first["Start"]
			return nil, &Error{File: name, Pos: d.Pos, Kind: ErrNoValue, Msg: "the <Start> rule does not produce a value: give every alternative a '-> value' or a single capture"}
		}
	}
	if !opts.naive {
		inlinePassThrough(start, c.nrules)
		inlineWildcardRules(start, c.nrules)
		flattenAlternatives(start, map[*crule]int{})
	}
	if !opts.naive {
		markValueUsed(start, c.nrules)
	}
	computeFirst(start, c.nrules)
	if opts.naive {
		disablePruning(start, map[*crule]bool{})
	} else {
		dropRedundantSkips(start, c.nrules)
		// After dropRedundantSkips, which makes more rule parts
		// non-optional; the first-byte sets are then those of the new
		// parts.
		if spliceSilent(start, c.nrules) {
			computeFirst(start, c.nrules)
		}
	}
	// The rules reached no longer change from here on: walk them once.
	rules := reachable(start, c.nrules)
	for _, r := range rules {
		for _, a := range r.alts {
			a.lit0 = a.literalAt(0)
			if len(a.parts) > 0 {
				p := &a.parts[0]
				a.kwFirst = p.kind == partRules && p.keywords && !p.optional
			}
		}
	}
	markSimple(rules)
	assignSearchIDs(rules)
	g := &Grammar{start: start, opts: opts, alts: c.alts, nrules: c.nrules}
	g.compileValues()
	var ds dispatchSlabs
	for _, r := range rules {
		r.buildDispatchLists(&ds)
	}
	start.buildStartTests()
	if !opts.naive {
		b := shareBuilder{g: g}
		for _, r := range rules {
			b.buildShare(r)
		}
	}
	for _, im := range fsc.file.Imports {
		if im.IsType() {
			g.Types = append(g.Types, im.Names...)
		}
	}
	for _, d := range fsc.file.Rules {
		if d.Name == "Start" && d.Type != "" {
			g.Types = append(g.Types, d.Type)
		}
	}
	return g, nil
}

// CompileString compiles a grammar held in a string, which may not import
// other .agr files.
func CompileString(name, src string, opts Options) (*Grammar, error) {
	return Compile(MapLoader{path.Clean(name): src}, name, opts)
}

// compiler holds the state of one Compile call.
type compiler struct {
	loader Loader
	opts   Options
	files  map[string]*fileScope // by resolved name; nil value while loading (cycle)
	errs   ErrorList
	alts   []*calt // every compiled alternative, indexed by id
	nrules int     // rules and groups made so far

	// lits holds the literal parts compiled so far by tokens and spacing
	// (the key literal builds in key): grammars repeat their words, and a copy shares the
	// tokens, which nothing writes after compiling but for what their
	// text decides (search ids).
	lits  map[string]*cpart
	key   []byte         // scratch for lits' keys
	texts map[string]any // implicit texts, boxed once

	// What lives as long as the grammar comes from slabs (slab.go).
	calts   slab[calt]
	crules  slab[crule]
	cparts  slab[cpart]
	altPtrs slab[*calt]  // rules' and groups' lists of alternatives
	names   slab[string] // alternatives' captured variables (calt.vars)
	litSlabs
}

// boxText returns text as an interface value, allocated once per text.
func (c *compiler) boxText(text string) any {
	if v, ok := c.texts[text]; ok {
		return v
	}
	if c.texts == nil {
		c.texts = map[string]any{}
	}
	v := any(text)
	c.texts[text] = v
	return v
}

// literal returns the compiled literal part of tokens under spacing sp,
// made once per compile.
func (c *compiler) literal(tokens []string, sp Spacing) cpart {
	c.key = append(c.key[:0], byte(sp))
	for _, t := range tokens {
		c.key = append(c.key, byte(len(t)>>24), byte(len(t)>>16), byte(len(t)>>8), byte(len(t)))
		c.key = append(c.key, t...)
	}
	if p, ok := c.lits[string(c.key)]; ok {
		return *p
	}
	p := c.cparts.new()
	*p = c.litSlabs.literalPart(tokens, sp)
	if c.lits == nil {
		c.lits = map[string]*cpart{}
	}
	c.lits[c.litSlabs.strs.str(c.key)] = p
	return *p
}

// fileScope is one loaded file and the names visible in it.
type fileScope struct {
	name  string
	file  *File
	defs  map[string]*ruleDefs // local and imported rules by name
	first map[string]*RuleDef  // first local definition by name, for positions
	ents  map[string]bool      // imported entity names
	types map[string]bool      // names imported from TypeScript files
}

// ruleDefs is a rule: all definitions of one name in one file (a name
// defined twice has the alternatives of both), compiled on first use.
type ruleDefs struct {
	owner    *fileScope
	name     string
	defs     []*RuleDef
	compiled *crule
	builtin  bool
}

func (c *compiler) errorf(file string, pos Pos, kind error, format string, a ...any) {
	c.errs = append(c.errs, &Error{File: file, Pos: pos, Kind: kind, Msg: fmt.Sprintf(format, a...)})
}

func (c *compiler) sorted() ErrorList {
	sort.SliceStable(c.errs, func(i, j int) bool {
		a, b := c.errs[i], c.errs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Pos.Offset < b.Pos.Offset
	})
	return c.errs
}

// Resolve returns the name of the file imported as imp from the file from.
func Resolve(from, imp string) string {
	if path.IsAbs(imp) || from == "" {
		return path.Clean(imp)
	}
	return path.Join(path.Dir(from), imp)
}

// load parses and scopes one file. importer and at locate the import for
// errors.
func (c *compiler) load(name string, importer *fileScope, at *Import) *fileScope {
	if fsc, ok := c.files[name]; ok {
		if fsc == nil {
			c.errorf(importer.name, at.Pos, ErrImport, "import cycle: %s imports itself through %s", name, importer.name)
		}
		return fsc
	}
	var src string
	var err error
	if name == "\x00builtin.agr" {
		src = builtinSource
	} else {
		src, err = c.loader.Load(name)
	}
	if err != nil {
		if importer == nil {
			c.errs = append(c.errs, &Error{File: name, Pos: Pos{Line: 1, Col: 1}, Kind: ErrImport, Msg: fmt.Sprintf("cannot read the grammar: %v", err)})
		} else {
			c.errorf(importer.name, at.Pos, ErrImport, "cannot read imported file %q: %v", at.From, err)
		}
		return nil
	}
	f, err := Parse(name, src)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			c.errs = append(c.errs, e)
		}
		return nil
	}
	c.files[name] = nil
	fsc := &fileScope{name: name, file: f, defs: map[string]*ruleDefs{}, first: map[string]*RuleDef{}, ents: map[string]bool{}, types: map[string]bool{}}
	for _, d := range f.Rules {
		rd := fsc.defs[d.Name]
		if rd == nil {
			rd = &ruleDefs{owner: fsc, name: d.Name}
			fsc.defs[d.Name] = rd
			fsc.first[d.Name] = d
		}
		rd.defs = append(rd.defs, d)
	}
	imported := map[string]string{} // name -> source, for conflicts between imports
	bind := func(im *Import, n string, rd *ruleDefs) {
		if local := fsc.first[n]; local != nil {
			c.errorf(name, local.Pos, ErrConflict, "rule <%s> is defined here and also imported from %q", n, im.From)
			return
		}
		if prev, ok := imported[n]; ok && fsc.defs[n] != rd {
			c.errorf(name, im.Pos, ErrConflict, "<%s> is imported from both %q and %q", n, prev, im.From)
			return
		}
		imported[n] = im.From
		fsc.defs[n] = rd
	}
	for _, im := range f.Imports {
		switch {
		case im.IsType():
			// TypeScript types: recorded, and usable as capture types.
			for _, n := range im.Names {
				fsc.types[n] = true
			}
		case im.From == "":
			for _, n := range im.Names {
				if !builtinEntities[n] {
					c.errorf(name, im.Pos, ErrUndefinedEntity, "unknown entity %q: expected one of Ordinal, Cardinal, CalendarDate, CalendarTime, CalendarTimeRange, CalendarDayRange, Percentage", n)
					continue
				}
				fsc.ents[n] = true
				if n == "Ordinal" || n == "Cardinal" {
					b := c.load("\x00builtin.agr", fsc, im)
					if b != nil {
						rd := b.defs[n]
						rd.builtin = true
						bind(&Import{Pos: im.Pos, From: "(built-in entities)"}, n, rd)
					}
				}
			}
		default:
			target := c.load(Resolve(name, im.From), fsc, im)
			if target == nil {
				continue
			}
			exported := target.exported()
			if im.All {
				names := make([]string, 0, len(exported))
				for n := range exported {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					bind(im, n, exported[n])
				}
				for n := range target.ents {
					fsc.ents[n] = true
				}
				continue
			}
			for _, n := range im.Names {
				rd := exported[n]
				if rd == nil {
					c.errorf(name, im.Pos, ErrUndefinedRule, "%q does not export a rule <%s>", im.From, n)
					continue
				}
				bind(im, n, rd)
			}
		}
	}
	c.files[name] = fsc
	return fsc
}

// exported returns the rules another file may import: the rules marked
// export, or every local rule when none is.
func (f *fileScope) exported() map[string]*ruleDefs {
	out := map[string]*ruleDefs{}
	any := false
	for _, d := range f.file.Rules {
		if d.Export {
			any = true
			out[d.Name] = f.defs[d.Name]
		}
	}
	if !any {
		for n, d := range f.first {
			_ = d
			out[n] = f.defs[n]
		}
	}
	return out
}

// rule compiles a named rule (once).
func (c *compiler) rule(fsc *fileScope, rd *ruleDefs) *crule {
	if rd.compiled != nil {
		return rd.compiled
	}
	r := c.newRule(rd.name)
	rd.compiled = r // before compiling the body, for recursion
	n := 0
	for _, d := range rd.defs {
		n += len(d.Alts)
	}
	r.alts = c.altPtrs.make(n)[:0]
	for _, d := range rd.defs {
		sp := SpacingAuto
		if d.HasSpacing {
			sp = d.Spacing
		}
		for _, a := range d.Alts {
			r.alts = append(r.alts, c.alt(rd.owner, a, sp))
		}
	}
	return r
}

// alt compiles one alternative; sp is the enclosing spacing mode.
func (c *compiler) alt(fsc *fileScope, a *Alt, sp Spacing) *calt {
	if a.HasSpacing {
		sp = a.Spacing
	}
	ca := c.newAlt()
	ca.spacing = sp
	ca.parts = c.cparts.make(len(a.Parts))[:0]
	parts := a.Parts
	if !c.opts.QuantifiedRules {
		parts = unquantifyRules(parts)
	}
	captures := 0
	for _, e := range parts {
		if _, ok := e.(*Capture); ok {
			captures++
		}
	}
	if captures > 0 {
		ca.vars = c.names.make(captures)[:0]
	}
	for _, e := range parts {
		switch e := e.(type) {
		case *Literal:
			ca.parts = append(ca.parts, c.literal(e.Tokens, sp))
		case *RuleRef:
			p := cpart{kind: partRules, slot: -1, name: e.Name}
			p.optional = e.Quant == QuantOpt || e.Quant == QuantStar
			p.repeat = e.Quant == QuantStar || e.Quant == QuantPlus
			if !c.ref(fsc, e.Pos, e.Name, &p) {
				continue
			}
			ca.parts = append(ca.parts, p)
		case *Group:
			g := c.newRule("(group)")
			g.alts = c.altPtrs.make(len(e.Alts))[:0]
			for _, ga := range e.Alts {
				g.alts = append(g.alts, c.alt(fsc, ga, sp))
			}
			p := cpart{kind: partRules, slot: -1, rule: g, name: "(group)"}
			p.optional = e.Quant == QuantOpt || e.Quant == QuantStar
			p.repeat = e.Quant == QuantStar || e.Quant == QuantPlus
			ca.parts = append(ca.parts, p)
		case *Capture:
			if _, dup := ca.vars.slot(e.Var); dup {
				c.errorf(fsc.name, e.Pos, ErrConflict, "variable %q is captured twice in one alternative", e.Var)
				continue
			}
			p := cpart{slot: ca.nslots, optional: e.Optional, name: e.Var}
			switch e.Kind {
			case CaptureNumber:
				p.kind = partNumber
			case CaptureRule:
				p.kind = partRules
				if !c.ref(fsc, e.Pos, e.Type, &p) {
					continue
				}
				if p.kind == partRules && !c.ruleHasValue(p.rule, map[*crule]bool{}) {
					c.errorf(fsc.name, e.Pos, ErrNoValue, "rule <%s> does not produce a value, so it cannot be captured in $(%s:<%s>)", e.Type, e.Var, e.Type)
				}
			default:
				p.kind = partWildcard
				switch e.Type {
				case "wildcard", "string", "word":
				default:
					// An imported type name captures as a plain wildcard,
					// as in TypeAgent's AST matcher.
					if !fsc.ents[e.Type] && !fsc.types[e.Type] {
						c.errorf(fsc.name, e.Pos, ErrUndefinedEntity, "unknown capture type %q in $(%s:%s): expected wildcard, string, word, number, <Rule>, or an imported entity or type", e.Type, e.Var, e.Type)
					}
				}
			}
			ca.vars = append(ca.vars, e.Var) // slot ca.nslots
			ca.nslots++
			ca.parts = append(ca.parts, p)
		}
	}
	switch {
	case a.Value != nil:
		ca.value = a.Value
		ca.implicit = implicitExplicit
		c.checkVars(fsc, a.Value, ca.vars)
	case ca.nslots == 1:
		ca.implicit = implicitSlot
	case ca.nslots == 0 && len(ca.parts) == 1:
		switch ca.parts[0].kind {
		case partString:
			ca.implicit = implicitText
			ca.text = c.boxText(ca.parts[0].text)
		case partPhrase:
			ca.implicit = implicitText
			ca.text = ""
		case partRules:
			ca.implicit = implicitChild
		}
	}
	ca.textHash = hashValue(ca.text)
	return ca
}

// unquantifyRules returns parts as TypeAgent's parser reads them: a
// quantifier directly after a rule reference is not one, but the first
// character of literal text, which goes on with the literal that follows
// (one token with it when nothing separates them). It returns parts
// itself when no reference is quantified.
func unquantifyRules(parts []Expr) []Expr {
	var out []Expr
	for i := 0; i < len(parts); i++ {
		r, ok := parts[i].(*RuleRef)
		if !ok || r.Quant == QuantOne {
			if out != nil {
				out = append(out, parts[i])
			}
			continue
		}
		if out == nil {
			out = append(make([]Expr, 0, len(parts)+1), parts[:i]...)
		}
		out = append(out, &RuleRef{Pos: r.Pos, Name: r.Name})
		q := string("?*+"[r.Quant-QuantOpt])
		lit := &Literal{Pos: r.quantPos, Tokens: []string{q}}
		if i+1 < len(parts) {
			if next, ok := parts[i+1].(*Literal); ok {
				i++
				if next.Pos.Offset == r.quantPos.Offset+1 { // <R>?word: one token
					lit.Tokens = append([]string{q + next.Tokens[0]}, next.Tokens[1:]...)
				} else {
					lit.Tokens = append(lit.Tokens, next.Tokens...)
				}
			}
		}
		out = append(out, lit)
	}
	if out == nil {
		return parts
	}
	return out
}

// ref resolves a rule name for part p: a rule, or a phrase set.
func (c *compiler) ref(fsc *fileScope, pos Pos, name string, p *cpart) bool {
	if rd := fsc.defs[name]; rd != nil {
		p.rule = c.rule(rd.owner, rd)
		return true
	}
	if phrases, ok := phraseSets[name]; ok && p.slot < 0 {
		if !c.opts.PhraseSets {
			p.kind = partPhrase
			return true
		}
		r := c.newRule(name)
		for _, ph := range phrases {
			a := c.newAlt()
			a.parts = c.cparts.make(1)
			a.parts[0] = c.litSlabs.literalPart(strings.Fields(ph), SpacingAuto)
			a.implicit, a.text, a.textHash = implicitText, ph, hashValue(ph)
			r.alts = append(r.alts, a)
		}
		p.rule = r
		return true
	}
	if builtinEntities[name] {
		c.errorf(fsc.name, pos, ErrUndefinedRule, "rule <%s> is not defined: add import { %s }; to use the built-in entity", name, name)
		return false
	}
	c.errorf(fsc.name, pos, ErrUndefinedRule, "rule <%s> is not defined", name)
	return false
}

// varSet is an alternative's captured variables by slot: the name of
// slot i is at i. An alternative captures few, so a lookup compares the
// names one by one (a map was two allocations an alternative).
type varSet []string

// slot returns the slot of variable name, or false.
func (v varSet) slot(name string) (int, bool) {
	for i, n := range v {
		if n == name {
			return i, true
		}
	}
	return -1, false
}

// checkVars reports variables in a value that the alternative does not
// capture.
func (c *compiler) checkVars(fsc *fileScope, v ValueExpr, vars varSet) {
	walkValue(v, func(x ValueExpr) {
		if vr, ok := x.(*VarValue); ok {
			if _, ok := vars.slot(vr.Name); !ok {
				c.errorf(fsc.name, vr.Pos, ErrUndefinedVar, "variable %q is not captured in this alternative (captures inside a group are not visible outside it)", vr.Name)
			}
		}
		if cv, ok := x.(*CallValue); ok && !knownMethods[cv.Method] {
			c.errorf(fsc.name, cv.Pos, ErrEval, "unknown method %q", cv.Method)
		}
	})
}

func walkValue(v ValueExpr, f func(ValueExpr)) {
	f(v)
	switch v := v.(type) {
	case *ObjectValue:
		for _, p := range v.Props {
			walkValue(p.Value, f)
		}
	case *ArrayValue:
		for _, e := range v.Elems {
			walkValue(e, f)
		}
	case *UnaryValue:
		walkValue(v.X, f)
	case *BinaryValue:
		walkValue(v.X, f)
		walkValue(v.Y, f)
	case *CondValue:
		walkValue(v.Test, f)
		walkValue(v.Then, f)
		walkValue(v.Else, f)
	case *MemberValue:
		walkValue(v.X, f)
		if v.Index != nil {
			walkValue(v.Index, f)
		}
	case *CallValue:
		walkValue(v.X, f)
		for _, a := range v.Args {
			walkValue(a, f)
		}
	case *TemplateValue:
		for _, e := range v.Exprs {
			walkValue(e, f)
		}
	}
}

// ruleHasValue reports whether every alternative of r produces a value.
func (c *compiler) ruleHasValue(r *crule, seen map[*crule]bool) bool {
	if seen[r] {
		return true
	}
	seen[r] = true
	for _, a := range r.alts {
		if !c.altHasValue(a, seen) {
			return false
		}
	}
	return true
}

func (c *compiler) altHasValue(a *calt, seen map[*crule]bool) bool {
	switch a.implicit {
	case implicitNone:
		return false
	case implicitChild:
		return a.parts[0].kind == partPhrase || c.ruleHasValue(a.parts[0].rule, seen)
	}
	return true
}

// litSlabs holds the slabs a compile's literal parts take their tokens
// and separators from.
type litSlabs struct {
	toks slab[ctoken]
	seps slab[sepKind]
	strs strSlab
}

// literalPart compiles literal tokens with the separator rules of sp,
// their lists taken from s.
func (s *litSlabs) literalPart(tokens []string, sp Spacing) cpart {
	p := cpart{kind: partString, slot: -1, text: strings.Join(tokens, " "), toks: s.toks.make(len(tokens))}
	if len(tokens) > 1 {
		p.seps = s.seps.make(len(tokens) - 1)
	}
	for i, t := range tokens {
		ct := ctoken{src: t, ascii: true}
		for j := 0; j < len(t); j++ {
			if t[j] >= utf8.RuneSelf {
				ct.ascii = false
				break
			}
		}
		if ct.ascii {
			ct.lower = strings.ToLower(t)
			// A read-only view of lower's bytes, for bytes.Index: never
			// written.
			ct.lowerB = unsafe.Slice(unsafe.StringData(ct.lower), len(ct.lower))
			if len(ct.lower) > 0 {
				ct.rareB = ct.lower[0] // rare is 0 until assignSearchIDs chooses
			}
		}
		if ct.ascii {
			for j := 0; j < len(ct.lower) && j < 8; j++ {
				ct.word |= uint64(ct.lower[j]) << (8 * j)
				ct.mask |= 0xff << (8 * j)
			}
		}
		first, _ := utf8.DecodeRuneInString(t)
		ct.sepFirst = isSep(first)
		if ct.ascii && ct.sepFirst {
			if k := strings.IndexFunc(t, func(r rune) bool { return !isSep(r) }); k > 0 {
				ct.lead = k
			}
		}
		if ct.ascii {
			ct.rest = ct.lowerB[ct.lead:]
			if len(ct.rest) >= 2 {
				ct.pair, ct.hasPair = uint16(pairHash(ct.rest[0], ct.rest[1])), true
			}
		}
		p.toks[i] = ct
		if i > 0 {
			var k sepKind
			switch sp {
			case SpacingRequired:
				k = sepRequired
			case SpacingNone:
				k = sepNone
			case SpacingOptional:
				k = sepOptional
			default:
				last, _ := utf8.DecodeLastRuneInString(tokens[i-1])
				if needsSep(last, first) {
					k = sepRequired
				}
			}
			p.seps[i-1] = k
		}
	}
	p.asciiToks = true
	for i, t := range p.toks {
		if !t.ascii || i > 0 && t.sepFirst && t.lead == 0 {
			p.asciiToks = false
		}
	}
	if t := &p.toks[0]; t.ascii && !t.sepFirst {
		p.fword, p.fmask = t.word, t.mask
	}
	return p
}

// reachable returns start and every rule its alternatives reach, each once,
// in depth-first order.
func reachable(start *crule, nrules int) []*crule {
	var rules []*crule
	walkRules(start, nrules, func(r *crule) { rules = append(rules, r) })
	return rules
}

// computeFirst fills the first-byte sets of every rule and alternative
// reachable from start, by fixed-point iteration: an alternative can start
// with what its first part can, and with what the next part can while the
// parts before can match nothing. A rule or alternative that can match the
// empty string, or start with a capture or a non-ASCII letter, is firstAny.
func computeFirst(start *crule, nrules int) {
	rules := reachable(start, nrules)
	// crule.anyStart: some match can start with any byte (a capture, a
	// non-ASCII or all-separator token); crule.nullable: it can match
	// nothing. Both make firstAny, which is what the matcher tests; a
	// nullable rule still lets its parent see the first bytes of the parts
	// after it.
	for changed := true; changed; {
		changed = false
		for _, r := range rules {
			var first byteSet
			any, null := false, false
			for _, a := range r.alts {
				a.first = byteSet{}
				altAny, altNull := false, true
				for i := range a.parts {
					p := &a.parts[i]
					pnull := p.optional
					switch p.kind {
					case partString:
						// The input's first byte after separators is the
						// token's first non-separator (a token may start
						// with quotes: 'send').
						if c, ok := firstNonSep(p.toks[0].src); ok {
							a.first.add(c)
						} else {
							altAny = true
						}
					case partNumber:
						for c := byte('0'); c <= '9'; c++ {
							a.first.add(c)
						}
						a.first.add('+')
					case partWildcard:
						altAny = true
					case partRules:
						altAny = altAny || p.rule.anyStart
						a.first.union(&p.rule.first)
						pnull = pnull || p.rule.nullable
					case partPhrase:
						pnull = true
					}
					if !pnull {
						altNull = false
						break
					}
				}
				a.firstAny = altAny || altNull
				any = any || altAny
				null = null || altNull
				first.union(&a.first)
			}
			if first != r.first || any != r.anyStart || null != r.nullable {
				r.first, r.anyStart, r.nullable = first, any, null
				r.firstAny = any || null
				changed = true
			}
		}
	}
}

// suffixFirst returns the folded first bytes a match of a's parts from
// part i on can start with, or any: as computeFirst does for whole
// alternatives.
func suffixFirst(a *calt, i int) (first byteSet, any bool) {
	for ; i < len(a.parts); i++ {
		p := &a.parts[i]
		null := p.optional
		switch p.kind {
		case partString:
			if c, ok := firstNonSep(p.toks[0].src); ok {
				first.add(c)
			} else {
				return first, true
			}
		case partNumber:
			for c := byte('0'); c <= '9'; c++ {
				first.add(c)
			}
			first.add('+')
		case partWildcard:
			return first, true
		case partRules:
			if p.rule.anyStart {
				return first, true
			}
			first.union(&p.rule.first)
			null = null || p.rule.nullable
		case partPhrase:
			null = true
		}
		if !null {
			return first, false
		}
	}
	return first, true // all of them can match nothing
}

// newAlt returns a new alternative, with the next id, and records it.
func (c *compiler) newAlt() *calt {
	a := c.calts.new()
	a.id = int32(len(c.alts))
	c.alts = append(c.alts, a)
	return a
}

// newRule makes a rule with the next id.
func (c *compiler) newRule(name string) *crule {
	c.nrules++
	r := c.crules.new()
	r.id, r.name = int32(c.nrules-1), name
	return r
}

// firstNonSep returns the folded first non-separator byte of a token whose
// leading separators are all ASCII, or false.
func firstNonSep(tok string) (byte, bool) {
	for _, c := range tok {
		if c >= utf8.RuneSelf {
			return 0, false
		}
		if asciiSep[c] {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return byte(c), true
	}
	return 0, false
}

// dropRedundantSkips makes optional rule parts non-optional when the rule
// can itself match nothing with an undefined value: skipping the part and
// taking it empty then give the same parses, and keeping both would only
// make every later parse twice ((<Polite>)? with <Polite> = (please)?).
// Which rules qualify is worked out conservatively, by fixed point.
func dropRedundantSkips(start *crule, nrules int) {
	rules := reachable(start, nrules)
	// emptyUndef[r]: some way for r to match nothing gives the value
	// undefined and counts nothing.
	emptyUndef := make([]bool, nrules) // by rule id
	for changed := true; changed; {
		changed = false
		for _, r := range rules {
			if emptyUndef[r.id] {
				continue
			}
			for _, a := range r.alts {
				if altEmptyUndef(a, emptyUndef) {
					emptyUndef[r.id] = true
					changed = true
					break
				}
			}
		}
	}
	for _, r := range rules {
		for _, a := range r.alts {
			for i := range a.parts {
				if p := &a.parts[i]; p.kind == partRules && p.optional && emptyUndef[p.rule.id] {
					p.optional = false
				}
			}
		}
	}
}

// altEmptyUndef reports whether a can match nothing with an undefined
// value: every part can match nothing (skipped, or a rule that can), and
// the value is none, the skipped variable, or the empty rule's value.
func altEmptyUndef(a *calt, emptyUndef []bool) bool {
	switch a.implicit {
	case implicitNone, implicitSlot, implicitChild:
	default:
		return false
	}
	for i := range a.parts {
		p := &a.parts[i]
		switch {
		case p.optional:
		case p.kind == partRules && emptyUndef[p.rule.id]:
		case p.kind == partPhrase:
		default:
			return false
		}
	}
	return true
}

// disablePruning marks every rule and alternative reachable from r as able
// to start with anything (Options.naive).
func disablePruning(r *crule, seen map[*crule]bool) {
	if seen[r] {
		return
	}
	seen[r] = true
	r.firstAny = true
	for _, a := range r.alts {
		a.firstAny = true
		for i := range a.parts {
			if p := &a.parts[i]; p.kind == partRules {
				disablePruning(p.rule, seen)
			}
		}
	}
}

// inlinePassThrough makes references to a pass-through rule (one
// alternative, no value of its own, whose only part is a plain reference
// or group) refer to what it passes through. The value and the ranking
// counts are the same, and the matcher enters one rule instead of two
// (<ImageWord> = ('image' | 'photo' | ...)).
func inlinePassThrough(start *crule, nrules int) {
	target := func(r *crule) *crule {
		for i := 0; i < 16; i++ { // a bounded chain: cycles stop here
			if len(r.alts) != 1 {
				return r
			}
			a := r.alts[0]
			if a.implicit != implicitChild || len(a.parts) != 1 {
				return r
			}
			p := &a.parts[0]
			if p.kind != partRules || p.optional || p.repeat || p.slot >= 0 {
				return r
			}
			r = p.rule
		}
		return r
	}
	// walkRules goes on into each part's rule after f has set it.
	walkRules(start, nrules, func(r *crule) {
		for _, a := range r.alts {
			for i := range a.parts {
				if p := &a.parts[i]; p.kind == partRules {
					p.rule = target(p.rule)
				}
			}
		}
	})
}

// flattenAlternatives replaces an alternative that only passes another
// rule's value through (<Start> = <Pause> | <Resume> | ...) by that rule's
// alternatives, in order: the parses, their values and their order are the
// same, and the matcher enters one rule fewer. state: 1 while visiting, 2
// when done; a rule is not spliced into itself or into a rule it is being
// flattened for.
func flattenAlternatives(r *crule, state map[*crule]int) {
	if state[r] != 0 {
		return
	}
	state[r] = 1
	var alts []*calt
	changed := false
	for _, a := range r.alts {
		for i := range a.parts {
			if p := &a.parts[i]; p.kind == partRules {
				flattenAlternatives(p.rule, state)
			}
		}
		if len(a.parts) == 1 && a.implicit == implicitChild {
			p := &a.parts[0]
			if p.kind == partRules && !p.optional && !p.repeat && p.slot < 0 && state[p.rule] == 2 {
				alts = append(alts, p.rule.alts...)
				changed = true
				continue
			}
		}
		alts = append(alts, a)
	}
	if changed {
		r.alts = alts
	}
	state[r] = 2
}

// markValueUsed sets cpart.valueUsed, cpart.keywords and cpart.silent on
// every rule part reachable from start.
func markValueUsed(start *crule, nrules int) {
	// pureRules[r]: r and every rule it reaches have only literals (no
	// capture of text or numbers); false while being decided (cycles).
	pureRules := map[*crule]bool{}
	var pure func(r *crule) bool
	pure = func(r *crule) bool {
		if v, ok := pureRules[r]; ok {
			return v
		}
		pureRules[r] = false
		for _, a := range r.alts {
			for i := range a.parts {
				switch p := &a.parts[i]; p.kind {
				case partString, partPhrase:
				case partRules:
					if !pure(p.rule) {
						return false
					}
				default:
					return false
				}
			}
		}
		pureRules[r] = true
		return true
	}
	walkRules(start, nrules, func(r *crule) {
		for _, a := range r.alts {
			for i := range a.parts {
				if p := &a.parts[i]; p.kind == partRules {
					p.valueUsed = p.slot >= 0 || a.implicit == implicitChild
					p.keywords = !p.repeat && isKeywords(p.rule)
					p.silent = !p.valueUsed && !p.keywords && pure(p.rule)
				}
			}
		}
	})
}

// spliceSilent replaces each rule part that is silent (see cpart), neither
// optional nor repeated, and whose rule has one alternative with the
// caller's spacing, by that alternative's parts (<CreateImagePhrase> =
// <Polite> ('create' | 'make')): the parses are the same, in the same
// order, the trail is the same (a silent rule puts nothing on it), and the
// matcher saves the rule entry (continuation, memo slot, first visit) and
// the return to the caller. Rule parts spliced in keep no value: they are
// silent or keywords, as they were under the spliced rule.
// It reports whether it spliced any.
func spliceSilent(start *crule, nrules int) bool {
	any := false
	walkRules(start, nrules, func(r *crule) {
		for _, a := range r.alts {
			if hasSplice(a) {
				a.parts = spliceParts(a.parts, a.spacing, 0)
				any = true
			}
		}
	})
	return any
}

// maxSplice bounds how deep spliceParts splices rules into rules (a rule
// that reaches itself this way could only recurse without end).
const maxSplice = 8

// splices reports whether spliceParts replaces part p of an alternative
// with spacing sp.
func splices(p *cpart, sp Spacing) bool {
	return p.kind == partRules && p.silent && !p.optional && !p.repeat && len(p.rule.alts) == 1 && p.rule.alts[0].spacing == sp
}

func hasSplice(a *calt) bool {
	for i := range a.parts {
		if splices(&a.parts[i], a.spacing) {
			return true
		}
	}
	return false
}

// spliceParts returns parts with the rule parts that splice replaced by
// their alternative's parts, spliced in turn (up to maxSplice deep).
func spliceParts(parts []cpart, sp Spacing, depth int) []cpart {
	var out []cpart
	for _, p := range parts {
		if depth < maxSplice && splices(&p, sp) {
			out = append(out, spliceParts(p.rule.alts[0].parts, sp, depth+1)...)
			continue
		}
		if depth > 0 && p.kind == partRules {
			// Its value went to the spliced rule, whose value was not
			// used; it captures nothing at any depth.
			p.valueUsed, p.slot = false, -1
			p.silent = !p.keywords
		}
		out = append(out, p)
	}
	return out
}

// isKeywords reports whether every alternative of r is a single literal
// with no capture.
func isKeywords(r *crule) bool {
	for _, a := range r.alts {
		if len(a.parts) != 1 || a.parts[0].kind != partString || a.nslots != 0 {
			return false
		}
	}
	return len(r.alts) > 0
}

// inlineWildcardRules turns a capture of a rule that is only a wildcard
// ($(track:<TrackName>) with <TrackName> = $(x:wildcard);) into the
// wildcard capture itself: the text, the ranking counts and the rule
// "no wildcard directly after another" are the same, and the matcher
// neither enters the rule nor carries its open wildcard out of it.
func inlineWildcardRules(start *crule, nrules int) {
	seen := make([]bool, nrules) // by rule id
	var walk func(r *crule)
	walk = func(r *crule) {
		if seen[r.id] {
			return
		}
		seen[r.id] = true
		for _, a := range r.alts {
			for i := range a.parts {
				p := &a.parts[i]
				if p.kind != partRules {
					continue
				}
				walk(p.rule)
				if p.slot < 0 || p.repeat || len(p.rule.alts) != 1 {
					continue
				}
				ra := p.rule.alts[0]
				if len(ra.parts) != 1 || ra.implicit != implicitSlot {
					continue
				}
				if w := &ra.parts[0]; w.kind == partWildcard && !w.optional {
					p.kind, p.rule = partWildcard, nil
				}
			}
		}
	}
	walk(start)
}

// walkRules calls f once for every rule reachable from start (rule ids
// are below nrules).
func walkRules(start *crule, nrules int, f func(*crule)) {
	seen := make([]bool, nrules)
	var walk func(r *crule)
	walk = func(r *crule) {
		if seen[r.id] {
			return
		}
		seen[r.id] = true
		f(r)
		for _, a := range r.alts {
			for i := range a.parts {
				if p := &a.parts[i]; p.kind == partRules && p.rule != nil {
					walk(p.rule)
				}
			}
		}
	}
	walk(start)
}
