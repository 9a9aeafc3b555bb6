package verbs

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pattern-dialect/dialect/grammarbridge"
)

// Verb is one verb of the registry: its vocabulary entry and, for custom
// verbs, what it maps to.
type Verb struct {
	Spec
	Examples  []string // few-shot examples for model instructions
	Authority bool     // only agents holding the verb's authority role may use it

	// Custom verbs only.
	Custom             bool    // defined in dialect.toml rather than built in
	MapsTo             string  // the built-in verb or configured tool it runs as
	DefaultTarget      *Target // where a send-like verb delivers by default
	Template           string  // fills {content} and other captured fields
	RequiresPermission bool    // queue for approval instead of running
	Priority           int     // settles an alias another verb claims too
	Grammar            *GrammarRef

	// Form is the usage line of the verb's arguments, for instructions and
	// failure messages.
	Form string
	// ReadOnly is set for a Go verb defined read-only: every call of it
	// changes nothing.
	ReadOnly bool
	// HasOperations is set for a verb whose first argument names one of
	// its operations (an MCP server's tools); Registry.Operations lists
	// them.
	HasOperations bool
	// Compounds are the one-word spellings of the verb's names of several
	// words ("websearch", "web-search" and "web_search" for "web
	// search"): models write them, and they mean the verb exactly. A
	// compound another verb already has as a name is left out.
	Compounds []string

	grammar *grammarbridge.Grammar // a custom or Go verb's compiled grammar
	def     *Definition            // a Go verb's definition, nil for others
}

// Target is a delivery target named in configuration.
type Target struct {
	Type string
	ID   string
}

// GrammarRef names a TypeAgent .agr grammar file and its start rule.
type GrammarRef struct {
	File  string
	Start string
}

// Extension is one [dialect.verbs.NAME] table of dialect.toml, already
// decoded. For a built-in NAME only ExtraAliases, Description, Examples,
// RequiresPermission and Priority apply; otherwise it defines a custom
// verb.
type Extension struct {
	Name               string
	ExtraAliases       []string
	Aliases            []string
	MapsTo             string
	DefaultTarget      *Target
	Description        string
	Examples           []string
	Template           string
	RequiresPermission bool
	Strictness         string // "", "loose", "normal", "strict"
	Priority           int
	Grammar            *GrammarRef
}

// ConfigError is a problem with one extension: Key is the dotted key under
// [dialect.verbs.NAME] that is wrong.
type ConfigError struct {
	Key string
	Msg string
}

func (e *ConfigError) Error() string { return e.Key + ": " + e.Msg }

// Options configure a Registry beyond the verb tables.
type Options struct {
	// Tools names the configured tools a custom verb may map to besides
	// the built-in verbs.
	Tools []string
	// GrammarDir is the directory a custom verb's grammar file is relative
	// to: the directory of the configuration file that names it. Empty
	// means the current directory.
	GrammarDir string
	// GrammarLoader reads grammar files; nil reads the file system.
	GrammarLoader grammarbridge.Loader
	// Domains are send domains beyond user, agent, channel, bluesky and
	// discord (a custom verb's default_target type is added by itself).
	Domains []string
	// MaxInput bounds one action's arguments plus content, in bytes;
	// 0 means MaxInput (64 KiB).
	MaxInput int
	// Executors carry out calls, keyed by what they run (Call.Runs): a
	// built-in verb's name or a configured tool's.
	Executors map[string]Executor
	// Verbs are verbs a Go program defines, each with its executor.
	Verbs []Definition
}

// Registry is the vocabulary in force: the built-in verbs, extended and
// added to by configuration, with the grammars that parse their arguments.
// It is immutable once built and safe for concurrent use.
type Registry struct {
	verbs    []*Verb             // in order: built-ins, then custom verbs by name
	by       map[string]*Verb    // canonical name → verb
	builtins map[string]*builtin // built-in verb → its argument parser
	domains  []string            // send domains
	maxInput int
	opts     Options

	executors map[string]Executor // by Call.Runs
}

// authorityVerbs need an authority role (docs/language.md §5).
var authorityVerbs = map[string]bool{"approve": true, "deny": true, "escalate": true, "halt": true}

// NewRegistry builds the registry from the built-in verbs and exts. Tools
// names the configured tools a custom verb may map to besides built-ins.
// Grammar files are read relative to the current directory; see
// NewRegistryWith.
func NewRegistry(exts []Extension, tools []string) (*Registry, error) {
	return NewRegistryWith(exts, Options{Tools: tools})
}

// NewRegistryWith builds the registry from the built-in verbs and exts,
// compiling every custom verb's grammar. A problem with an extension is a
// *ConfigError naming its key.
func NewRegistryWith(exts []Extension, opts Options) (*Registry, error) {
	r := &Registry{by: map[string]*Verb{}, opts: opts, maxInput: opts.MaxInput, executors: map[string]Executor{}}
	for k, ex := range opts.Executors {
		r.executors[k] = ex
	}
	if r.maxInput <= 0 {
		r.maxInput = MaxInput
	}
	r.domains = appendNew(slices.Clone(builtinDomains), opts.Domains...)
	b := newBuiltins(r)
	r.builtins = b
	for _, s := range Builtin() {
		v := &Verb{Spec: s, Authority: authorityVerbs[s.Name], Examples: builtinExamples[s.Name], Form: b[s.Name].usage(s.Name)}
		r.verbs = append(r.verbs, v)
		r.by[s.Name] = v
	}
	for _, d := range opts.Verbs {
		if err := r.define(d); err != nil {
			return nil, err
		}
	}
	exts = slices.Clone(exts)
	slices.SortFunc(exts, func(a, b Extension) int { return strings.Compare(a.Name, b.Name) })
	for _, e := range exts {
		if err := r.apply(e, opts.Tools); err != nil {
			return nil, err
		}
	}
	r.compounds()
	return r, nil
}

// compounds gives each verb the one-word spellings of its multi-word
// names, except those that are another name already or that two verbs
// would share.
func (r *Registry) compounds() {
	taken := map[string]int{}
	for _, v := range r.verbs {
		for _, n := range append([]string{v.Name}, v.Aliases...) {
			taken[n] = -1
		}
	}
	for _, v := range r.verbs {
		for _, n := range v.Aliases {
			words := strings.Fields(n)
			if len(words) < 2 {
				continue
			}
			for _, sep := range []string{"", "-", "_"} {
				c := strings.Join(words, sep)
				if taken[c] == 0 {
					v.Compounds = append(v.Compounds, c)
				}
				if taken[c] >= 0 {
					taken[c]++
				}
			}
		}
	}
	for _, v := range r.verbs {
		v.Compounds = slices.DeleteFunc(v.Compounds, func(c string) bool { return taken[c] != 1 })
	}
}

// Names returns every name that means the verb: its own, its aliases and
// its compounds.
func (v *Verb) Names() []string {
	return append(append([]string{v.Name}, v.Aliases...), v.Compounds...)
}

func (r *Registry) apply(e Extension, tools []string) error {
	key := func(k string) string { return "dialect.verbs." + e.Name + "." + k }
	name := strings.ToLower(strings.TrimSpace(e.Name))
	if !ValidName(name) {
		return &ConfigError{"dialect.verbs." + e.Name, "a verb name is a letter, then letters, digits, '_' or '-'"}
	}
	for _, a := range append(slices.Clone(e.ExtraAliases), e.Aliases...) {
		if !validAlias(a) {
			return &ConfigError{key("aliases"), fmt.Sprintf("%q is not a verb phrase (words of letters, digits, '_' or '-')", a)}
		}
	}
	if v, ok := r.by[name]; ok && !v.Custom {
		if v.def != nil && (e.Grammar != nil || e.Template != "") {
			return &ConfigError{"dialect.verbs." + e.Name, "a verb defined by the program can only be given extra_aliases, description, examples, requires_permission and priority"}
		}
		switch {
		case len(e.Aliases) > 0:
			return &ConfigError{key("aliases"), "a built-in verb takes extra_aliases, not aliases"}
		case e.MapsTo != "", e.Template != "", e.DefaultTarget != nil, e.Grammar != nil, e.Strictness != "":
			return &ConfigError{"dialect.verbs." + e.Name, "a built-in verb can only be given extra_aliases, description, examples, requires_permission and priority"}
		}
		v.Aliases = appendNew(slices.Clone(v.Aliases), e.ExtraAliases...)
		if e.Description != "" {
			v.Description = e.Description
		}
		v.Examples = append(slices.Clone(v.Examples), e.Examples...)
		v.RequiresPermission = v.RequiresPermission || e.RequiresPermission
		v.Priority = e.Priority
		return nil
	}
	if len(e.ExtraAliases) > 0 {
		return &ConfigError{key("extra_aliases"), "extra_aliases extends a built-in verb; a custom verb takes aliases"}
	}
	if e.MapsTo == "" {
		return &ConfigError{key("maps_to"), "a custom verb needs maps_to: a built-in verb or a configured tool"}
	}
	target, builtin := r.by[strings.ToLower(e.MapsTo)]
	if builtin && (target.Custom || target.def != nil) {
		return &ConfigError{key("maps_to"), fmt.Sprintf("%q is itself a custom verb; map to a built-in verb or a tool", e.MapsTo)}
	}
	if !builtin && !slices.Contains(tools, e.MapsTo) {
		return &ConfigError{key("maps_to"), fmt.Sprintf("%q is neither a built-in verb nor a configured tool", e.MapsTo)}
	}
	v := &Verb{
		Spec:               Spec{Name: name, Aliases: appendNew(nil, e.Aliases...), Description: e.Description},
		Examples:           e.Examples,
		Custom:             true,
		MapsTo:             strings.ToLower(e.MapsTo),
		DefaultTarget:      e.DefaultTarget,
		Template:           e.Template,
		RequiresPermission: e.RequiresPermission,
		Priority:           e.Priority,
		Grammar:            e.Grammar,
	}
	if !builtin {
		v.MapsTo = e.MapsTo // tool names keep their case
	}
	switch e.Strictness {
	case "loose":
		v.Strictness = Loose
	case "strict":
		v.Strictness = Strict
	case "", "normal":
		v.Strictness = Normal
	default:
		return &ConfigError{key("strictness"), fmt.Sprintf("%q is not loose, normal or strict", e.Strictness)}
	}
	if builtin {
		// A custom verb is never more forgiving than what it runs as, and
		// needs the same authority.
		v.Strictness = stricter(v.Strictness, target.Strictness)
		v.Authority = target.Authority
		v.Form = r.builtins[v.MapsTo].usage(name)
	} else {
		v.Form = "/" + name + " ARGUMENTS"
	}
	if e.DefaultTarget != nil {
		if e.DefaultTarget.Type == "" {
			return &ConfigError{key("default_target"), "needs a type (user, agent, channel, bluesky, discord or another domain)"}
		}
		r.domains = appendNew(r.domains, e.DefaultTarget.Type)
	}
	if err := checkTemplate(e.Template); err != nil {
		return &ConfigError{key("template"), err.Error()}
	}
	if e.Grammar != nil {
		g, err := r.compileGrammar(e.Grammar)
		if err != nil {
			return &ConfigError{key("grammar"), err.Error()}
		}
		v.grammar = g
		v.Form = "/" + name + " ... (grammar " + filepath.Base(e.Grammar.File) + ")"
	}
	r.verbs = append(r.verbs, v)
	r.by[name] = v
	return nil
}

// Grammar returns the compiled argument grammar of a verb: a built-in
// verb's embedded grammar, or a custom verb's own; nil for a custom verb
// parsed by the grammar of the built-in it maps to, or an unknown verb.
func (r *Registry) Grammar(name string) *grammarbridge.Grammar {
	v := r.by[name]
	switch {
	case v == nil:
		return nil
	case v.grammar != nil:
		return v.grammar
	case !v.Custom && v.def == nil:
		b := r.builtins[v.Name]
		if b.load() != nil {
			return nil
		}
		return b.grammar
	}
	return nil
}

// Verb returns the verb with canonical name, or nil.
func (r *Registry) Verb(name string) *Verb { return r.by[name] }

// Verbs returns every verb, built-ins first, then custom verbs by name.
func (r *Registry) Verbs() []*Verb { return slices.Clone(r.verbs) }

// Claimants returns the canonical verbs that have name (case-insensitive,
// whitespace-folded) as their name or one of their aliases, in registry
// order. More than one means an alias conflict, settled by argument shape
// and then priority.
func (r *Registry) Claimants(name string) []string {
	name = strings.Join(strings.Fields(strings.ToLower(name)), " ")
	var out []string
	for _, v := range r.verbs {
		if v.Name == name || slices.Contains(v.Aliases, name) || slices.Contains(v.Compounds, name) {
			out = append(out, v.Name)
		}
	}
	return out
}

// ValidName reports whether s, already lower case, is a valid verb name:
// a letter (ASCII a–z, or any rune beyond ASCII) first, then those,
// digits, '_' and '-'. Tools that become verbs (MCP servers') are held to
// the same rule.
func ValidName(s string) bool {
	for i, c := range s {
		isLetter := c >= 'a' && c <= 'z' || c > 127
		if i == 0 && !isLetter || !(isLetter || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

func validAlias(s string) bool {
	ws := strings.Fields(strings.ToLower(s))
	for _, w := range ws {
		if !ValidName(w) {
			return false
		}
	}
	return len(ws) > 0
}

// appendNew appends the normalised names not already in dst.
func appendNew(dst []string, names ...string) []string {
	for _, n := range names {
		n = strings.Join(strings.Fields(strings.ToLower(n)), " ")
		if !slices.Contains(dst, n) {
			dst = append(dst, n)
		}
	}
	return dst
}

// stricter returns the less forgiving of two strictness levels.
func stricter(a, b Strictness) Strictness {
	rank := map[Strictness]int{Loose: 0, Normal: 1, Strict: 2}
	if rank[a] >= rank[b] {
		return a
	}
	return b
}
