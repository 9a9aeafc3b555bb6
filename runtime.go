package dialect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/internal/store"
	"github.com/pattern-dialect/dialect/morph"
	"github.com/pattern-dialect/dialect/verbs"
)

// Runtime wires the stages of the dialect together from one Config. It is
// safe for concurrent use; build one per configuration and share it.
type Runtime struct {
	cfg      *Config
	registry *verbs.Registry
	resolver *fuzzy.Resolver
	vocab    *vocabulary

	store    *store.Store  // set by Open
	failures *failures.Log // set by Open
	// external executes the intents that reach outside the runtime (send,
	// fetch, web, calc, tools); nil means none are configured.
	external func(ctx context.Context, msg Message, verb string, it intent.Intent) (string, error)
}

// New builds a Runtime from cfg. A configuration the registry rejects (an
// unknown maps_to, an alias that is not a word...) is a *ConfigError naming
// the file, line and key.
func New(cfg *Config) (*Runtime, error) {
	exts := make([]verbs.Extension, 0, len(cfg.Dialect.Verbs))
	for name, v := range cfg.Dialect.Verbs {
		e := verbs.Extension{
			Name: name, ExtraAliases: v.ExtraAliases, Aliases: v.Aliases, MapsTo: v.MapsTo,
			Description: v.Description, Examples: v.Examples, Template: v.Template,
			RequiresPermission: v.RequiresPermission, Strictness: v.Strictness, Priority: v.Priority,
		}
		if v.DefaultTarget != nil {
			e.DefaultTarget = &verbs.Target{Type: v.DefaultTarget.Type, ID: v.DefaultTarget.ID}
		}
		if v.Grammar != nil {
			e.Grammar = &verbs.GrammarRef{File: v.Grammar.File, Start: v.Grammar.Start}
		}
		exts = append(exts, e)
	}
	reg, err := verbs.NewRegistryWith(exts, cfg.registryOptions())
	if err != nil {
		var ce *verbs.ConfigError
		if errors.As(err, &ce) {
			return nil, cfg.errorAt(ce.Key, ce.Msg)
		}
		return nil, err
	}
	res, err := fuzzy.New(fuzzyEntries(reg), cfg.fuzzyOptions())
	if err != nil {
		return nil, err
	}
	return &Runtime{cfg: cfg, registry: reg, resolver: res, vocab: newVocabulary(reg, res)}, nil
}

// Config returns the configuration the runtime was built from.
func (rt *Runtime) Config() *Config { return rt.cfg }

// Registry returns the verbs in force.
func (rt *Runtime) Registry() *verbs.Registry { return rt.registry }

// Resolver returns the verb resolver over the registry's names.
func (rt *Runtime) Resolver() *fuzzy.Resolver { return rt.resolver }

// Vocabulary returns what the scanner needs to know of the verbs: the
// resolver for single tokens and the registry's multi-word names.
func (rt *Runtime) Vocabulary() detect.Vocabulary { return rt.vocab }

// DetectOptions returns the scanner options dialect.toml sets.
func (rt *Runtime) DetectOptions() detect.Options {
	o := detect.DefaultOptions()
	d := rt.cfg.Detect
	o.Reconsideration = d.Reconsideration
	o.PermissionFlags = d.PermissionFlags
	o.MaxActionSize = d.MaxActionBytes
	o.EarlyExecution = d.EarlyExecution
	if d.ConfirmTokens > 0 {
		o.EarlyWindow = d.ConfirmTokens
	}
	return o
}

// Detect scans a whole message and returns every action found in it, with
// the decision whether it executes.
func (rt *Runtime) Detect(msg []byte) []detect.Action {
	return detect.Scan(rt.vocab, rt.DetectOptions(), msg)
}

// NewScanner returns a streaming scanner configured like Detect; write the
// message to it in chunks of any size, then Close it.
func (rt *Runtime) NewScanner() *detect.Scanner {
	return detect.NewScanner(rt.vocab, rt.DetectOptions())
}

// registryOptions tells the registry what the rest of the configuration
// defines: the tools custom verbs may map to, the send domains routed, and
// the directory grammar files are relative to (the config file's).
func (c *Config) registryOptions() verbs.Options {
	var o verbs.Options
	for name := range c.Exec.Tools {
		o.Tools = append(o.Tools, name)
	}
	slices.Sort(o.Tools)
	for route := range c.Exec.Send.Routes {
		d := strings.TrimPrefix(strings.ToLower(route), "@")
		d, _, _ = strings.Cut(d, ":")
		if d != "*" && d != "" && !slices.Contains(o.Domains, d) {
			o.Domains = append(o.Domains, d)
		}
	}
	slices.Sort(o.Domains)
	if st, err := os.Stat(c.Source); err == nil && !st.IsDir() {
		o.GrammarDir = filepath.Dir(c.Source)
	}
	return o
}

func fuzzyEntries(reg *verbs.Registry) []fuzzy.Entry {
	vs := reg.Verbs()
	out := make([]fuzzy.Entry, 0, len(vs))
	for _, v := range vs {
		out = append(out, fuzzy.Entry{
			Verb:       v.Name,
			Names:      v.Aliases,
			Strictness: v.Strictness,
			Priority:   v.Priority,
		})
	}
	return out
}

func (c *Config) fuzzyOptions() fuzzy.Options {
	r := c.Resolve
	return fuzzy.Options{
		Loose:      fuzzy.Allowance{Short: r.Edits.Loose.Short, Long: r.Edits.Loose.Long},
		Normal:     fuzzy.Allowance{Short: r.Edits.Normal.Short, Long: r.Edits.Normal.Long},
		NoPhonetic: !r.Phonetic,
		NoLexicon:  !r.Synonyms,
		// The embedder is attached by hosts that do I/O (ResolveContext);
		// the threshold is carried so that it applies when they do.
		SemanticThreshold: r.Embeddings.Threshold,
	}
}

// vocabulary adapts the resolver to detect.Vocabulary. Single tokens go
// through every offline tier; multi-word names are extended word by word
// over the registry's names, allowing an inflected first word.
type vocabulary struct {
	res      *fuzzy.Resolver
	reg      *verbs.Registry
	prefixes map[string]bool // proper word prefixes of multi-word names
}

func newVocabulary(reg *verbs.Registry, res *fuzzy.Resolver) *vocabulary {
	v := &vocabulary{res: res, reg: reg, prefixes: map[string]bool{}}
	for _, vb := range reg.Verbs() {
		for _, name := range append([]string{vb.Name}, vb.Aliases...) {
			words := strings.Fields(name)
			for i := 1; i < len(words); i++ {
				v.prefixes[strings.Join(words[:i], " ")] = true
			}
		}
	}
	return v
}

// Resolve implements detect.Vocabulary. A phrase of several words is a
// verb only when it matches a name up to case and word form: "search in"
// must not become "search web" by edit distance and swallow the "in".
//
// An alias that several verbs claim ("remember") is reported as the first
// claimant in registry order, so that the scanner treats it as a verb; the
// runtime settles it by argument shape when it parses (verbs.ParseAction).
func (v *vocabulary) Resolve(token string) (string, bool) {
	r := v.res.Resolve(token)
	if strings.ContainsAny(token, " \t") && r.Tier > fuzzy.TierSpelling {
		return "", false
	}
	if !r.OK() && !r.NearMiss() {
		// Claimants folds case with strings.ToLower, which takes U+212A
		// KELVIN SIGN to k: a near miss of a strict verb stays one.
		if cs := v.reg.Claimants(token); len(cs) > 1 {
			return cs[0], true
		}
	}
	return r.Verb, r.OK()
}

// Extends implements detect.Vocabulary.
func (v *vocabulary) Extends(prefix string) bool {
	words := strings.Fields(strings.ToLower(prefix))
	if len(words) == 0 {
		return false
	}
	if v.prefixes[strings.Join(words, " ")] {
		return true
	}
	rest := strings.Join(words[1:], " ")
	for _, stem := range morph.Stems(words[0]) {
		if v.prefixes[strings.TrimSpace(stem+" "+rest)] {
			return true
		}
	}
	return false
}

// errorAt turns a problem found after decoding into a *ConfigError at the
// key's position in the file the configuration came from.
func (c *Config) errorAt(key, msg string) *ConfigError {
	line, col := findKey(c.raw, key)
	return &ConfigError{File: c.Source, Line: line, Column: col, Key: key, Msg: msg}
}
