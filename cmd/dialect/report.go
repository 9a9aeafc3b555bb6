package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/verbs"
)

func init() {
	register(&command{
		name:  "report",
		usage: "[--since 7d] [--format md|json|html] [--min-count N] [--min-confidence X] [--apply [--only a,b]] [--config F] [--db PATH]",
		short: "what agents failed to say, with alias suggestions for dialect.toml",
		run:   runReport,
	})
}

func runReport(ctx context.Context, sio *stdio, args []string) error {
	fl := newFlags(commands["report"], sio).state()
	since := fl.String("since", "7d", "start: an age (7d, 12h, 2w) or a date (2026-01-31); rounded down to midnight UTC")
	format := fl.String("format", "md", "output format: md, json or html")
	minCount := fl.Int("min-count", 3, "fewest occurrences of an unknown verb to suggest it as an alias")
	minConf := fl.Float64("min-confidence", 0.25, "least resolver score (0..1) against an existing verb to suggest an alias")
	top := fl.Int("top", 10, "how many failure patterns to show")
	examples := fl.Int("examples", 3, "example usages per pattern and alias")
	apply := fl.Bool("apply", false, "add the suggested aliases to the configuration file in force, keeping its comments")
	only := fl.String("only", "", "with --apply: accept only these aliases (comma-separated)")
	if _, err := fl.parse(args, 0, 0); err != nil {
		return err
	}
	switch *format {
	case "md", "json", "html":
	default:
		return usageError("--format must be md, json or html, not %q", *format)
	}
	if *minCount < 1 || *minConf < 0 || *minConf > 1 || *top < 1 || *examples < 0 {
		return usageError("--min-count, --top must be ≥ 1, --examples ≥ 0, --min-confidence in [0, 1]")
	}
	if *only != "" && !*apply {
		return usageError("--only needs --apply")
	}
	now := time.Now()
	start, err := failures.ParseSince(*since, now)
	if err != nil {
		return usageError("--since: %v", err)
	}
	start = failures.StartOfDay(start)

	rt, err := fl.open(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	cfgPath := rt.Config().Source
	if *apply && !fileExists(cfgPath) {
		return usageError("--apply edits the configuration file in force, and none is: the embedded default is. Create one first (for example ./dialect.toml, or %s) or name it with --config", xdgConfigPath())
	}
	vocab := vocabulary(rt)
	log, err := rt.Failures(ctx)
	if err != nil {
		return err
	}

	bar := newProgress(sio.err, "report")
	rep, err := log.Report(ctx, start, failures.ReportConfig{
		Suggest: failures.SuggestConfig{
			Matcher:       vocab.matcher,
			Known:         vocab.known,
			Resolves:      vocab.resolves,
			Exclude:       vocab.strict,
			MinCount:      *minCount,
			MinConfidence: *minConf,
		},
		Patterns: *top,
		Examples: max(*examples, 1),
		Progress: bar.update,
	})
	bar.done()
	if err != nil {
		return err
	}
	if *examples == 0 {
		stripExamples(rep)
	}

	if *apply {
		accepted := rep.Aliases
		if *only != "" {
			want := strings.Split(*only, ",")
			for i := range want {
				want[i] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(want[i]), "/")))
			}
			accepted = nil
			for _, a := range rep.Aliases {
				if slices.Contains(want, a.Alias) {
					accepted = append(accepted, a)
				}
			}
			for _, w := range want {
				if !slices.ContainsFunc(accepted, func(a failures.AliasCandidate) bool { return a.Alias == w }) {
					return usageError("--only: %q is not among the suggested aliases", w)
				}
			}
		}
		if err := applyAliases(sio, cfgPath, accepted); err != nil {
			return err
		}
	}

	switch *format {
	case "json":
		return rep.WriteJSON(sio.out)
	case "html":
		return rep.WriteHTML(sio.out)
	default:
		return rep.WriteMarkdown(sio.out)
	}
}

func stripExamples(r *failures.Report) {
	for i := range r.Patterns {
		r.Patterns[i].Examples = nil
	}
	for i := range r.Aliases {
		r.Aliases[i].Examples = nil
	}
	for i := range r.UnknownVerbs {
		r.UnknownVerbs[i].Examples = nil
	}
}

// fileExists reports whether path names a regular file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// xdgConfigPath is where the lookup order finds a user's dialect.toml.
func xdgConfigPath() string {
	l := dialect.DefaultLookup("")
	if l.XDG == "" {
		return "$XDG_CONFIG_HOME/dialect/dialect.toml"
	}
	return filepath.Join(l.XDG, "dialect", "dialect.toml")
}

// vocab is what the dialect already knows: built-in verbs, custom verbs and
// every alias, and the runtime's resolver to compare unknown tokens with.
type vocab struct {
	matcher failures.Matcher
	known   map[string]bool // every verb and alias, lower case
	strict  map[string]bool // verbs that must never get suggested aliases
	// resolves says whether a token already resolves, through any tier.
	resolves func(token string) (string, bool)
}

// resolverMatcher suggests the verb a token resolves to now (a tier may
// reach it: the log can hold rows from before an alias or tier existed) or
// else the resolver's best candidate, with the resolver's score as the
// confidence.
type resolverMatcher struct{ rt *dialect.Runtime }

func (m resolverMatcher) Suggest(token string) (string, float64, bool) {
	res := m.rt.Resolve(token)
	if res.OK() {
		return res.Verb, res.Score, true
	}
	for _, cs := range [][]fuzzy.Candidate{res.Candidates, res.Suggestions} {
		if len(cs) > 0 {
			return cs[0].Verb, cs[0].Score, true
		}
	}
	return "", 0, false
}

// vocabulary is what the runtime in force knows of the verbs.
func vocabulary(rt *dialect.Runtime) *vocab {
	v := &vocab{matcher: resolverMatcher{rt}, known: map[string]bool{}, strict: map[string]bool{}}
	v.resolves = func(tok string) (string, bool) {
		// A word is in force when it is a name, or a form of one (case,
		// inflection, spelling variant): making it an alias adds
		// nothing. A word reached by edit distance, sound or meaning is a
		// guess, which an alias makes certain.
		res := rt.Resolve(tok)
		return res.Verb, res.OK() && res.Tier <= fuzzy.TierSpelling
	}
	for _, vb := range rt.Verbs().Verbs() {
		for _, n := range vb.Names() {
			v.known[n] = true
		}
		if vb.Strictness == verbs.Strict {
			v.strict[vb.Name] = true
		}
	}
	return v
}

// applyAliases writes the accepted aliases into the config file: the text
// is edited in place (comments kept), checked by decoding, and replaced
// atomically.
func applyAliases(sio *stdio, path string, accepted []failures.AliasCandidate) error {
	if len(accepted) == 0 {
		fmt.Fprintf(sio.err, "dialect report: no alias to add to %s\n", path)
		return nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, added, err := failures.AddAliases(src, accepted)
	if err != nil {
		return err
	}
	if len(added) == 0 {
		fmt.Fprintf(sio.err, "dialect report: %s already has every suggested alias\n", path)
		return nil
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := writeAtomic(path, out, mode); err != nil {
		return err
	}
	names := make([]string, len(added))
	for i, a := range added {
		names[i] = a.Alias + "→" + a.Verb
	}
	fmt.Fprintf(sio.err, "dialect report: added %d alias(es) to %s: %s\n", len(added), path, strings.Join(names, ", "))
	return nil
}

// writeAtomic replaces path with data through a temporary file in the same
// directory, so a reader never sees half a file.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr, os.Chmod(name, mode)); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
