package failures

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/codes"
)

// SuggestConfig says how alias suggestions are made.
type SuggestConfig struct {
	// Matcher finds the verb an unknown token is close to. Required for
	// suggestions; with nil Matcher there are none.
	Matcher Matcher
	// Known holds every existing verb and alias, lower-case: a token in it
	// is never suggested again.
	Known map[string]bool
	// Resolves, if not nil, says whether a token is already in force — a
	// verb's name, or a form of one the resolver always reaches (case,
	// inflection, spelling) — and to which verb: such a token is never
	// suggested as an alias; its failures predate what resolves it now.
	Resolves func(token string) (verb string, ok bool)
	// Exclude holds verbs that never get suggested aliases (the strict
	// verbs approve, deny and halt: a near miss of them must stay a failure).
	Exclude map[string]bool
	// MinCount is the fewest occurrences a token needs (default 3).
	MinCount int
	// MinConfidence is the least matcher confidence (default 0.5).
	MinConfidence float64
	// Examples is how many example usages to attach (default 3).
	Examples int
}

func (c SuggestConfig) withDefaults() SuggestConfig {
	if c.MinCount <= 0 {
		c.MinCount = 3
	}
	if c.MinConfidence <= 0 {
		c.MinConfidence = 0.5
	}
	if c.Examples <= 0 {
		c.Examples = 3
	}
	return c
}

// AliasCandidate is a token that models keep writing for an existing verb.
type AliasCandidate struct {
	Alias      string         `json:"alias"`
	Verb       string         `json:"verb"`
	Count      int            `json:"count"`
	Confidence float64        `json:"confidence"`
	Score      float64        `json:"score"` // Count × Confidence, the rank
	ByModel    map[string]int `json:"by_model"`
	Examples   []Example      `json:"examples,omitempty"`
}

// SuggestAliases returns alias candidates from the UNKNOWN_VERB failures
// since the given time: tokens seen at least MinCount times, that the
// matcher puts close to an existing verb with at least MinConfidence, that
// are not already verbs or aliases, ranked by count × confidence.
func (l *Log) SuggestAliases(ctx context.Context, since time.Time, cfg SuggestConfig) ([]AliasCandidate, error) {
	cs, err := l.cells(ctx, since)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	out := suggest(unknownVerbs(cs), cfg)
	keys := make([]exKey, len(out))
	for i := range out {
		keys[i] = exKey{string(codes.UnknownVerb), "", out[i].Alias}
	}
	x := exampleIDs(cs, keys)
	for i := range out {
		if out[i].Examples, err = l.examples(ctx, x[keys[i]], cfg.Examples); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// inForce reports whether token already means a verb: a name or alias,
// or a word the resolver reaches.
func (c SuggestConfig) inForce(token string) bool {
	if c.Known[token] {
		return true
	}
	if c.Resolves != nil {
		_, ok := c.Resolves(token)
		return ok
	}
	return false
}

func suggest(tokens []TokenCount, cfg SuggestConfig) []AliasCandidate {
	if cfg.Matcher == nil {
		return nil
	}
	var out []AliasCandidate
	for _, t := range tokens {
		if t.Count < cfg.MinCount || cfg.inForce(t.Token) || !ValidAlias(t.Token) {
			continue
		}
		verb, conf, ok := cfg.Matcher.Suggest(t.Token)
		if !ok || conf < cfg.MinConfidence || cfg.Exclude[verb] || verb == t.Token {
			continue
		}
		out = append(out, AliasCandidate{
			Alias: t.Token, Verb: verb, Count: t.Count, Confidence: conf,
			Score: float64(t.Count) * conf, ByModel: t.ByModel,
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return aliasLess(out[i], out[j]) })
	return out
}

// aliasLess orders alias candidates: score, then count, then alias.
func aliasLess(a, b AliasCandidate) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Count != b.Count {
		return a.Count > b.Count
	}
	return a.Alias < b.Alias
}

// Pattern is a recurring failure: the same code about the same subject
// (and verb), with a suggested fix.
type Pattern struct {
	Code     codes.Code     `json:"code"`
	Verb     string         `json:"verb,omitempty"`
	Subject  string         `json:"subject,omitempty"`
	Count    int            `json:"count"`
	ByModel  map[string]int `json:"by_model"`
	Fix      string         `json:"suggested_fix"`
	Examples []Example      `json:"examples,omitempty"`
}

// CommonPatterns returns the n most frequent failure patterns since the
// given time, each with a suggested fix and up to examples usages.
func (l *Log) CommonPatterns(ctx context.Context, since time.Time, n, examples int, cfg SuggestConfig) ([]Pattern, error) {
	cs, err := l.cells(ctx, since)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	ps := patterns(cs, n, suggest(unknownVerbs(cs), cfg), cfg)
	keys := make([]exKey, len(ps))
	for i, p := range ps {
		keys[i] = exKey{string(p.Code), p.Verb, p.Subject}
	}
	x := exampleIDs(cs, keys)
	for i := range ps {
		if ps[i].Examples, err = l.examples(ctx, x[keys[i]], examples); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

func patterns(cs []cell, n int, aliases []AliasCandidate, cfg SuggestConfig) []Pattern {
	type key struct{ code, verb, subject string }
	idx := map[key]int{}
	var out []Pattern
	for _, c := range cs {
		k := key{c.code, c.verb, c.subject}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Pattern{Code: codes.Code(c.code), Verb: c.verb, Subject: c.subject, ByModel: map[string]int{}})
		}
		out[i].Count += c.n
		out[i].ByModel[c.model] += c.n
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		if a.Verb != b.Verb {
			return a.Verb < b.Verb
		}
		return a.Subject < b.Subject
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	byAlias := map[string]AliasCandidate{}
	for _, a := range aliases {
		byAlias[a.Alias] = a
	}
	for i := range out {
		out[i].Fix = fix(out[i], byAlias, cfg)
	}
	return out
}

// fix proposes what the owner of the configuration can change so that
// the pattern stops failing, in terms of what they control: dialect.toml,
// the agents' instructions, standing rules. A word already in force is
// never proposed again.
func fix(p Pattern, aliases map[string]AliasCandidate, cfg SuggestConfig) string {
	v := "the verb"
	if p.Verb != "" {
		v = "/" + p.Verb
	}
	instructions := "check that the agent's prompt has the instructions (dialect verbs --instructions --agent NAME)"
	switch p.Code {
	case codes.UnknownVerb:
		if a, ok := aliases[p.Subject]; ok {
			return fmt.Sprintf("add %q to [dialect.verbs.%s] extra_aliases (confidence %.2f)", a.Alias, a.Verb, a.Confidence)
		}
		if cfg.Resolves != nil {
			if verb, ok := cfg.Resolves(p.Subject); ok {
				return fmt.Sprintf("/%s now resolves to /%s (an alias or tier added since): nothing to do", p.Subject, verb)
			}
		}
		if cfg.Known[p.Subject] {
			return fmt.Sprintf("/%s is a verb or alias now: nothing to do", p.Subject)
		}
		if cfg.Matcher != nil {
			if verb, conf, ok := cfg.Matcher.Suggest(p.Subject); ok {
				switch {
				case cfg.Exclude[verb]:
					return fmt.Sprintf("near miss of the strict verb /%s: it stays a failure by design; the instructions spell /%s exactly", verb, verb)
				case conf < cfg.MinConfidence:
					return fmt.Sprintf("weakly close to /%s (confidence %.2f): if agents mean /%s, add %q to [dialect.verbs.%s] extra_aliases", verb, conf, verb, p.Subject, verb)
				case p.Count < cfg.MinCount:
					return fmt.Sprintf("close to /%s (confidence %.2f) but seen only %d times: wait for more evidence", verb, conf, p.Count)
				}
			}
		}
		return fmt.Sprintf("/%s is close to no verb: if agents need it, define [dialect.verbs.%s] with maps_to (a built-in verb or a tool)", p.Subject, tomlKey(p.Subject))
	case codes.AmbiguousVerb:
		opts := strings.Split(p.Subject, "|")
		return fmt.Sprintf("the token reaches %s equally: set priority = 1 under [dialect.verbs.%s] (the verb agents mean), or drop the shared alias",
			"/"+strings.Join(opts, " and /"), tomlKey(opts[0]))
	case codes.AmbiguousArgs:
		if p.Subject == "" {
			return fmt.Sprintf("%s names blocks that several match: give blocks distinct names (dialect memory ls lists them)", v)
		}
		return fmt.Sprintf("%q matches several blocks for %s: give them distinct names (dialect memory ls lists them)", p.Subject, v)
	case codes.MissingArg:
		return fmt.Sprintf("agents write %s without %s: the instructions' examples show it; %s", v, orWhat(p.Subject, "a required argument"), instructions)
	case codes.MalformedSyntax:
		return fmt.Sprintf("%s arguments do not parse (%s): the instructions show its forms; %s", v, orWhat(p.Subject, "see the examples"), instructions)
	case codes.UnknownModifier:
		switch p.Verb {
		case "calc":
			return fmt.Sprintf("/calc does not know %s: tell agents which units it knows, or give them a tool that converts it (maps_to a tool)", orWhat(quoted(p.Subject), "a unit agents use"))
		case "send", "post", "tell", "dm", "reply":
			return fmt.Sprintf("agents send to %s: if it is a real destination, route it under [exec.send.routes]; the instructions list only the routed ones", orWhat(p.Subject, "a destination nothing delivers to"))
		}
		return fmt.Sprintf("agents write %s with %s: the runtime answers with the closest modifier it has; %s", orWhat(quoted(p.Subject), "a modifier it lacks"), v, instructions)
	case codes.InvalidReference:
		switch p.Subject {
		case "@last", "@last.output", "@last.message":
			return fmt.Sprintf("agents use %s before there is one in the session: it names the previous action's result (or message) in the same session; run with --session", p.Subject)
		case "@thread", "@parent":
			return fmt.Sprintf("this host cannot resolve %s: the instructions no longer teach it; a host that knows threads can resolve it", p.Subject)
		}
		if strings.HasPrefix(p.Subject, "@[") {
			return fmt.Sprintf("this host cannot resolve %s references: the instructions no longer teach them", p.Subject)
		}
		return fmt.Sprintf("agents misspell a reference as %s: the runtime answers with the closest one; %s", orWhat(quoted(p.Subject), "something"), instructions)
	case codes.PermissionMarkerInvalid:
		return fmt.Sprintf("marker %s is not configured: add it to [detect] permission_flags if agents mean something by it", p.Subject)
	case codes.PermissionDenied:
		return fmt.Sprintf("%s is refused often: review the agents' roles ([agents.NAME] authority) and the standing rules (dialect rules)", v)
	case codes.PendingApproval:
		return fmt.Sprintf("%s waits for approval often: dialect approve ID --always saves the narrowest rule that lets the routine case run", v)
	case codes.InputTooLarge:
		return "actions exceed the size limit: raise [detect] max_action_bytes, or tell agents to split content"
	case codes.MixedScript:
		return fmt.Sprintf("%q mixes scripts: check the model's output encoding (look-alike letters)", p.Subject)
	case codes.BannedKey:
		return fmt.Sprintf("payloads use the banned key %q: rename the field in the tool's grammar or template", p.Subject)
	}
	return "no suggestion for this code"
}

func orWhat(s, what string) string {
	if s == "" || s == `""` {
		return what
	}
	return s
}

func quoted(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%q", s)
}

// ReportConfig says what a report covers.
type ReportConfig struct {
	Suggest      SuggestConfig
	Patterns     int // how many top patterns (default 10)
	Examples     int // example usages per pattern and token (default 3)
	Aliases      int // how many alias candidates, best first (default 50)
	UnknownVerbs int // how many unknown verbs, most frequent first (default 20)
	// Progress, if not nil, is told about each step: done of total.
	Progress func(done, total int)
}

// DayStat is the failures of one UTC day.
type DayStat struct {
	Day     string         `json:"day"` // 2006-01-02
	Total   int            `json:"total"`
	ByModel map[string]int `json:"by_model"`
}

// Report is everything `dialect report` shows.
type Report struct {
	Since        time.Time        `json:"since"`
	Generated    time.Time        `json:"generated"`
	Failures     int              `json:"failures"`
	Actions      int              `json:"actions"`
	Models       []ModelStat      `json:"models"`
	Days         []DayStat        `json:"days"`
	Patterns     []Pattern        `json:"patterns"`
	UnknownVerbs []TokenCount     `json:"unknown_verbs"`
	Aliases      []AliasCandidate `json:"aliases"`
	// The totals before the lists were cut to ReportConfig's sizes.
	UnknownVerbsTotal int    `json:"unknown_verbs_total"`
	AliasesTotal      int    `json:"aliases_total"`
	Snippet           string `json:"toml_snippet"` // ready to paste into dialect.toml
}

// Report builds the report of the failures since the given time. It reads
// the roll-up once and only the few example rows it shows, so its cost
// grows with the number of distinct patterns, not of rows.
func (l *Log) Report(ctx context.Context, since time.Time, cfg ReportConfig) (*Report, error) {
	if cfg.Patterns <= 0 {
		cfg.Patterns = 10
	}
	if cfg.Examples <= 0 {
		cfg.Examples = 3
	}
	if cfg.Aliases <= 0 {
		cfg.Aliases = 50
	}
	if cfg.UnknownVerbs <= 0 {
		cfg.UnknownVerbs = 20
	}
	cfg.Suggest = cfg.Suggest.withDefaults()
	cfg.Suggest.Examples = cfg.Examples
	now := l.now()
	cs, err := l.cells(ctx, since)
	if err != nil {
		return nil, err
	}
	ok, err := l.successes(ctx, since)
	if err != nil {
		return nil, err
	}
	r := &Report{Since: since.UTC(), Generated: now.UTC()}
	r.Models = modelStats(cs, ok)
	for _, m := range r.Models {
		r.Failures += m.Failures
		r.Actions += m.Actions
	}
	r.Days = days(cs, since, now)
	r.UnknownVerbs, r.UnknownVerbsTotal, r.Aliases, r.Patterns = topLists(cs, cfg)
	var keys []exKey
	for _, a := range r.Aliases {
		keys = append(keys, exKey{string(codes.UnknownVerb), "", a.Alias})
	}
	for _, p := range r.Patterns {
		keys = append(keys, exKey{string(p.Code), p.Verb, p.Subject})
	}
	for _, t := range r.UnknownVerbs {
		keys = append(keys, exKey{string(codes.UnknownVerb), "", t.Token})
	}
	x := exampleIDs(cs, keys)
	steps := len(r.Aliases) + len(r.Patterns) + len(r.UnknownVerbs)
	done := 0
	step := func() {
		done++
		if cfg.Progress != nil {
			cfg.Progress(done, steps)
		}
	}
	for i := range r.Aliases {
		if r.Aliases[i].Examples, err = l.examples(ctx, x[exKey{string(codes.UnknownVerb), "", r.Aliases[i].Alias}], cfg.Examples); err != nil {
			return nil, err
		}
		step()
	}
	for i := range r.Patterns {
		p := &r.Patterns[i]
		if p.Examples, err = l.examples(ctx, x[exKey{string(p.Code), p.Verb, p.Subject}], cfg.Examples); err != nil {
			return nil, err
		}
		step()
	}
	for i := range r.UnknownVerbs {
		if r.UnknownVerbs[i].Examples, err = l.examples(ctx, x[exKey{string(codes.UnknownVerb), "", r.UnknownVerbs[i].Token}], cfg.Examples); err != nil {
			return nil, err
		}
		step()
	}
	r.Snippet = Snippet(r.Aliases)
	return r, nil
}

// days returns one entry per UTC day from since's day to now's, empty days
// included.
func days(cs []cell, since, now time.Time) []DayStat {
	first := floorDiv(since.UnixMilli(), dayMillis)
	last := floorDiv(now.UnixMilli(), dayMillis)
	for _, c := range cs {
		last = max(last, c.day)
	}
	if last-first > 3660 {
		first = last - 3660 // ten years of bars is enough for a chart
	}
	out := make([]DayStat, 0, last-first+1)
	for d := first; d <= last; d++ {
		out = append(out, DayStat{Day: time.UnixMilli(d * dayMillis).UTC().Format(time.DateOnly), ByModel: map[string]int{}})
	}
	for _, c := range cs {
		if c.day < first {
			continue
		}
		d := &out[c.day-first]
		d.Total += c.n
		d.ByModel[c.model] += c.n
	}
	return out
}

// Snippet renders alias candidates as dialect.toml tables, one per verb,
// ready to paste.
func Snippet(as []AliasCandidate) string {
	if len(as) == 0 {
		return ""
	}
	by := map[string][]string{}
	var verbs []string
	for _, a := range as {
		if _, ok := by[a.Verb]; !ok {
			verbs = append(verbs, a.Verb)
		}
		by[a.Verb] = append(by[a.Verb], a.Alias)
	}
	sort.Strings(verbs)
	var b strings.Builder
	for i, v := range verbs {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[dialect.verbs.%s]\nextra_aliases = [", tomlKey(v))
		for j, a := range by[v] {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tomlString(a))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// topLists computes the report's lists from the cells without building a
// per-model map for every token and pattern: with a long tail of one-off
// tokens those maps, not the counting, would dominate. Counts come first;
// per-model breakdowns are filled in only for what is shown. Alias
// candidates are tried in order of count and the search stops once no
// further token can enter the top cfg.Aliases (confidence is at most 1,
// so a token's score is at most its count). The result equals the
// library's UnknownVerbs, SuggestAliases and CommonPatterns, cut to size.
func topLists(cs []cell, cfg ReportConfig) (tokens []TokenCount, total int, aliases []AliasCandidate, pats []Pattern) {
	type pkey struct{ code, verb, subject string }
	tokCount := map[string]int{}
	patCount := map[pkey]int{}
	for _, c := range cs {
		patCount[pkey{c.code, c.verb, c.subject}] += c.n
		if c.code == string(codes.UnknownVerb) && c.subject != "" {
			tokCount[c.subject] += c.n
		}
	}
	total = len(tokCount)
	tokLess := func(a, b TokenCount) bool {
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Token < b.Token
	}
	var top topN[TokenCount]
	top.n, top.less = cfg.UnknownVerbs, tokLess
	var frequent []TokenCount // enough to be an alias
	for t, n := range tokCount {
		tc := TokenCount{Token: t, Count: n}
		top.add(tc)
		if n >= cfg.Suggest.MinCount {
			frequent = append(frequent, tc)
		}
	}
	tokens = top.items
	sort.Slice(frequent, func(i, j int) bool { return tokLess(frequent[i], frequent[j]) })

	// Alias candidates, best first, with early termination.
	sc := cfg.Suggest
	for i, t := range frequent {
		if len(aliases) >= cfg.Aliases && float64(t.Count) < aliases[cfg.Aliases-1].Score {
			break
		}
		one := suggest(frequent[i:i+1], sc)
		if len(one) == 0 {
			continue
		}
		aliases = append(aliases, one[0])
		sort.SliceStable(aliases, func(i, j int) bool { return aliasLess(aliases[i], aliases[j]) })
		if len(aliases) > cfg.Aliases {
			aliases = aliases[:cfg.Aliases]
		}
	}

	// Patterns: the top n by count, ties by code, verb, subject.
	type pcount struct {
		k pkey
		n int
	}
	var topP topN[pcount]
	topP.n = cfg.Patterns
	topP.less = func(a, b pcount) bool {
		if a.n != b.n {
			return a.n > b.n
		}
		if a.k.code != b.k.code {
			return a.k.code < b.k.code
		}
		if a.k.verb != b.k.verb {
			return a.k.verb < b.k.verb
		}
		return a.k.subject < b.k.subject
	}
	for k, n := range patCount {
		topP.add(pcount{k, n})
	}
	keys := make([]pkey, len(topP.items))
	for i, pc := range topP.items {
		keys[i] = pc.k
	}
	byAlias := map[string]AliasCandidate{}
	for _, a := range aliases {
		byAlias[a.Alias] = a
	}
	// A pattern's fix names an alias candidate even beyond the shown ones.
	for _, k := range keys {
		if k.code == string(codes.UnknownVerb) {
			if _, ok := byAlias[k.subject]; !ok {
				if one := suggest([]TokenCount{{Token: k.subject, Count: patCount[k]}}, sc); len(one) == 1 {
					byAlias[k.subject] = one[0]
				}
			}
		}
	}

	// Per-model breakdowns of what is shown, in one more pass.
	tokModels := map[string]map[string]int{}
	for _, t := range tokens {
		tokModels[t.Token] = map[string]int{}
	}
	for _, a := range aliases {
		tokModels[a.Alias] = map[string]int{}
	}
	patModels := map[pkey]map[string]int{}
	for _, k := range keys {
		patModels[k] = map[string]int{}
	}
	for _, c := range cs {
		if m, ok := patModels[pkey{c.code, c.verb, c.subject}]; ok {
			m[c.model] += c.n
		}
		if c.code == string(codes.UnknownVerb) {
			if m, ok := tokModels[c.subject]; ok {
				m[c.model] += c.n
			}
		}
	}
	for i := range tokens {
		tokens[i].ByModel = tokModels[tokens[i].Token]
	}
	for i := range aliases {
		aliases[i].ByModel = tokModels[aliases[i].Alias]
	}
	for _, k := range keys {
		p := Pattern{Code: codes.Code(k.code), Verb: k.verb, Subject: k.subject, Count: patCount[k], ByModel: patModels[k]}
		p.Fix = fix(p, byAlias, sc)
		pats = append(pats, p)
	}
	return tokens, total, aliases, pats
}

// topN keeps the n best items seen, in order; with a long tail most items
// are rejected by one comparison with the worst kept.
type topN[T any] struct {
	n     int
	less  func(a, b T) bool // a ranks before b
	items []T
}

func (t *topN[T]) add(x T) {
	if t.n <= 0 {
		return
	}
	if len(t.items) == t.n && !t.less(x, t.items[len(t.items)-1]) {
		return
	}
	i := sort.Search(len(t.items), func(i int) bool { return t.less(x, t.items[i]) })
	if len(t.items) < t.n {
		t.items = append(t.items, x) // grow by one; otherwise the last drops out
	}
	copy(t.items[i+1:], t.items[i:len(t.items)-1])
	t.items[i] = x
}
