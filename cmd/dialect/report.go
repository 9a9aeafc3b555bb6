package main

import (
	"context"
	"errors"
	"flag"
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
	"github.com/pattern-dialect/dialect/internal/sqlite"
	"github.com/pattern-dialect/dialect/verbs"
)

func init() {
	register(&command{
		name:  "report",
		usage: "[--since 7d] [--format md|json|html] [--db PATH] [--config dialect.toml] [--min-count N] [--min-confidence X] [--apply [--only a,b]]",
		short: "what agents failed to say, with alias suggestions for dialect.toml",
		run:   runReport,
	})
}

func runReport(ctx context.Context, sio *stdio, args []string) error {
	fl := flag.NewFlagSet("report", flag.ContinueOnError)
	fl.SetOutput(sio.err)
	since := fl.String("since", "7d", "start: an age (7d, 12h, 2w) or a date (2026-01-31); rounded down to midnight UTC")
	format := fl.String("format", "md", "output format: md, json or html")
	dbPath := fl.String("db", "", "database file (default $DIALECT_DB, else ~/.local/state/dialect/dialect.db)")
	config := fl.String("config", "dialect.toml", "dialect.toml: its verbs and aliases are known; --apply edits it")
	minCount := fl.Int("min-count", 3, "fewest occurrences of an unknown verb to suggest it as an alias")
	minConf := fl.Float64("min-confidence", 0.25, "least resolver score (0..1) against an existing verb to suggest an alias")
	top := fl.Int("top", 10, "how many failure patterns to show")
	examples := fl.Int("examples", 3, "example usages per pattern and alias")
	apply := fl.Bool("apply", false, "add the suggested aliases to the --config file, keeping its comments")
	only := fl.String("only", "", "with --apply: accept only these aliases (comma-separated)")
	if help, err := parseFlags(fl, args); help || err != nil {
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

	cfgSrc, cfgExists, err := readConfig(*config, fl)
	if err != nil {
		return err
	}
	vocab, err := vocabulary(*config, cfgSrc)
	if err != nil {
		return err
	}
	matcher := vocab.matcher

	log, err := openLog(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer log.Close()

	bar := newProgress(sio.err, "report")
	rep, err := log.Report(ctx, start, failures.ReportConfig{
		Suggest: failures.SuggestConfig{
			Matcher:       matcher,
			Known:         vocab.known,
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
		if err := applyAliases(sio, *config, cfgSrc, cfgExists, accepted); err != nil {
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

// openLog opens the failure log at path, or at the default path.
func openLog(ctx context.Context, path string) (*failures.Log, error) {
	if path == "" {
		p, err := sqlite.DefaultPath()
		if err != nil {
			return nil, usageError("%v", err)
		}
		path = p
	}
	return failures.Open(ctx, path)
}

// readConfig reads dialect.toml. A missing file is fine unless the flag
// was given explicitly without --apply (which creates it).
func readConfig(path string, fl *flag.FlagSet) ([]byte, bool, error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		explicit := false
		fl.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "config" })
		applying := fl.Lookup("apply").Value.String() == "true"
		if explicit && !applying {
			return nil, false, usageError("--config %s: %v", path, err)
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, usageError("--config: %v", err)
	}
	return src, true, nil
}

// vocab is what the dialect already knows: built-in verbs, custom verbs and
// every alias, and the runtime's resolver to compare unknown tokens with.
type vocab struct {
	matcher failures.Matcher
	known   map[string]bool // every verb and alias, lower case
	strict  map[string]bool // verbs that must never get suggested aliases
}

// resolverMatcher suggests the verb a token resolves to now (a tier may
// reach it: the log can hold rows from before an alias or tier existed) or
// else the resolver's best candidate, with the resolver's score as the
// confidence.
type resolverMatcher struct{ r *fuzzy.Resolver }

func (m resolverMatcher) Suggest(token string) (string, float64, bool) {
	res := m.r.Resolve(token)
	if res.OK() {
		return res.Verb, res.Score, true
	}
	if len(res.Candidates) > 0 {
		c := res.Candidates[0]
		return c.Verb, c.Score, true
	}
	return "", 0, false
}

// vocabulary builds the runtime's registry and resolver from the
// configuration at path (src is its text; nil: the embedded default), the
// same way dialect run does.
func vocabulary(path string, src []byte) (*vocab, error) {
	cfg, err := dialect.ParseConfig("embedded default", nil)
	if src != nil {
		cfg, err = dialect.ParseConfig(path, src)
	}
	if err != nil {
		return nil, usageErr{err}
	}
	rt, err := dialect.New(cfg)
	if err != nil {
		return nil, usageErr{err}
	}
	v := &vocab{matcher: resolverMatcher{rt.Resolver()}, known: map[string]bool{}, strict: map[string]bool{}}
	for _, vb := range rt.Registry().Verbs() {
		v.known[vb.Name] = true
		for _, a := range vb.Aliases {
			v.known[a] = true
		}
		if vb.Strictness == verbs.Strict {
			v.strict[vb.Name] = true
		}
	}
	return v, nil
}

// applyAliases writes the accepted aliases into the config file: the text
// is edited in place (comments kept), checked by decoding, and replaced
// atomically.
func applyAliases(sio *stdio, path string, src []byte, exists bool, accepted []failures.AliasCandidate) error {
	if len(accepted) == 0 {
		fmt.Fprintf(sio.err, "dialect report: no alias to add to %s\n", path)
		return nil
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
	if exists {
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
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
