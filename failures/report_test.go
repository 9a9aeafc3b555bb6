package failures

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testSuggest is the vocabulary of the fixture tests: a few built-in verbs
// and aliases, two synonyms, and the strict verb approve.
func testSuggest() SuggestConfig {
	terms := []Term{{"recall", "recall"}, {"remember", "recall"}, {"search", "search"}, {"find", "search"},
		{"lookup", "search"}, {"look", "search"}, {"fetch", "fetch"}, {"approve", "approve"}, {"post", "post"}}
	known := map[string]bool{}
	for _, t := range terms {
		known[t.Word] = true
	}
	return SuggestConfig{
		Matcher: &EditMatcher{Terms: terms, Synonyms: map[string]string{"retrieve": "recall", "memorize": "recall"}},
		Known:   known,
		Exclude: map[string]bool{"approve": true},
	}
}

var fixtureSince = time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC)

// TestReportFixture checks the report of testdata/week.jsonl against
// answers worked out by hand (see the comments).
func TestReportFixture(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *Log) {
		loadFixture(t, l, "testdata/week.jsonl")
		r, err := l.Report(context.Background(), fixtureSince, ReportConfig{Suggest: testSuggest()})
		if err != nil {
			t.Fatal(err)
		}
		// 38 rows, 2 of them before the window (2026-11-01).
		if r.Failures != 36 {
			t.Errorf("Failures = %d, want 36", r.Failures)
		}
		// alpha: retrieve 3 + memorize 4 + lookup 1 + retreive 2 + fetch 1 = 11, 20 ok
		// beta: retrieve 2 + aprove 5 + zzyzx 3 + archivs 2 = 12, 13 ok
		// gamma: srch 7 + lookup 2 + fetch 3 + ?akc 1 = 13, 10 ok
		wantModels := []struct {
			model        string
			failures, ok int
			rate         float64
		}{{"gamma", 13, 10, 13.0 / 23}, {"beta", 12, 13, 12.0 / 25}, {"alpha", 11, 20, 11.0 / 31}}
		if len(r.Models) != 3 {
			t.Fatalf("models: %+v", r.Models)
		}
		for i, w := range wantModels {
			m := r.Models[i]
			if m.Model != w.model || m.Failures != w.failures || m.Successes != w.ok || m.Actions != w.failures+w.ok || math.Abs(m.Rate-w.rate) > 1e-9 {
				t.Errorf("model %d = %+v, want %+v", i, m, w)
			}
		}
		if r.Actions != 36+43 {
			t.Errorf("Actions = %d, want 79", r.Actions)
		}
		// Aliases: srch→search 7 × (1-2/6), retrieve→recall 5 × 0.8, memorize→recall
		// 4 × 0.8. Not: aprove (strict verb), lookup (already an alias), zzyzx
		// (close to nothing), retreive (2 < MinCount 3).
		type alias struct {
			alias, verb string
			count       int
			score       float64
		}
		want := []alias{{"srch", "search", 7, 7 * (1 - 2.0/6)}, {"retrieve", "recall", 5, 4}, {"memorize", "recall", 4, 3.2}}
		var got []alias
		for _, a := range r.Aliases {
			got = append(got, alias{a.Alias, a.Verb, a.Count, math.Round(a.Score*1000) / 1000})
		}
		for i := range want {
			want[i].score = math.Round(want[i].score*1000) / 1000
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("aliases:\n got %+v\nwant %+v", got, want)
		}
		if a := r.Aliases[1]; !reflect.DeepEqual(a.ByModel, map[string]int{"alpha": 3, "beta": 2}) || len(a.Examples) != 2 {
			t.Errorf("retrieve: by model %v, %d examples", a.ByModel, len(a.Examples))
		}
		// Examples are the newest in the window; the 2026-11-01 row is not one.
		for _, e := range r.Aliases[1].Examples {
			if e.Time.Before(fixtureSince) {
				t.Errorf("example from before the window: %+v", e)
			}
		}
		// Patterns: most frequent first, ties by code then subject.
		wantPat := []string{"UNKNOWN_VERB//srch=7", "UNKNOWN_VERB//aprove=5", "UNKNOWN_VERB//retrieve=5",
			"MISSING_ARG/fetch/url=4", "UNKNOWN_VERB//memorize=4", "UNKNOWN_VERB//lookup=3", "UNKNOWN_VERB//zzyzx=3",
			"UNKNOWN_MODIFIER/search/archivs=2", "UNKNOWN_VERB//retreive=2", "PERMISSION_MARKER_INVALID/post/?akc=1"}
		var gotPat []string
		for _, p := range r.Patterns {
			gotPat = append(gotPat, fmt.Sprintf("%s/%s/%s=%d", p.Code, p.Verb, p.Subject, p.Count))
		}
		if !reflect.DeepEqual(gotPat, wantPat) {
			t.Errorf("patterns:\n got %v\nwant %v", gotPat, wantPat)
		}
		if !strings.Contains(r.Patterns[0].Fix, `add "srch" to [dialect.verbs.search]`) {
			t.Errorf("srch fix = %q", r.Patterns[0].Fix)
		}
		if !strings.Contains(r.Patterns[1].Fix, "strict verb /approve") || !strings.Contains(r.Patterns[5].Fix, "is a verb or alias now: nothing to do") {
			t.Errorf("aprove fix = %q, lookup fix = %q", r.Patterns[1].Fix, r.Patterns[5].Fix)
		}
		if !strings.Contains(r.Patterns[6].Fix, "close to no verb") {
			t.Errorf("zzyzx fix = %q", r.Patterns[6].Fix)
		}
		// Days: 2026-11-14 .. 2026-11-21, the chart's bars.
		if len(r.Days) != 8 || r.Days[0].Day != "2026-11-14" || r.Days[7].Day != "2026-11-21" {
			t.Fatalf("days: %+v", r.Days)
		}
		wantDays := []int{2, 3, 3, 6, 9, 5, 4, 4} // 14th..21st
		for i, d := range r.Days {
			if d.Total != wantDays[i] {
				t.Errorf("day %s total %d, want %d", d.Day, d.Total, wantDays[i])
			}
		}
		wantSnippet := "[dialect.verbs.recall]\nextra_aliases = [\"retrieve\", \"memorize\"]\n\n[dialect.verbs.search]\nextra_aliases = [\"srch\"]\n"
		if r.Snippet != wantSnippet {
			t.Errorf("snippet:\n%s\nwant:\n%s", r.Snippet, wantSnippet)
		}

		// The Markdown form is a golden file.
		var md bytes.Buffer
		if err := r.WriteMarkdown(&md); err != nil {
			t.Fatal(err)
		}
		golden(t, "testdata/week.md", md.Bytes())
	})
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update after checking):\n%s", path, got)
	}
}

// TestQueriesAgreeWithReport checks the separate query methods give the
// report's answers.
func TestQueriesAgreeWithReport(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *Log) {
		loadFixture(t, l, "testdata/week.jsonl")
		ctx := context.Background()
		r, err := l.Report(ctx, fixtureSince, ReportConfig{Suggest: testSuggest()})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := l.ModelStats(ctx, fixtureSince)
		if err != nil || !reflect.DeepEqual(ms, r.Models) {
			t.Errorf("ModelStats = %+v, %v", ms, err)
		}
		as, err := l.SuggestAliases(ctx, fixtureSince, testSuggest())
		if err != nil || !reflect.DeepEqual(as, r.Aliases) {
			t.Errorf("SuggestAliases = %+v, %v", as, err)
		}
		ps, err := l.CommonPatterns(ctx, fixtureSince, 10, 3, testSuggest())
		if err != nil || !reflect.DeepEqual(ps, r.Patterns) {
			t.Errorf("CommonPatterns = %+v, %v", ps, err)
		}
		uv, err := l.UnknownVerbs(ctx, fixtureSince, 3)
		if err != nil || !reflect.DeepEqual(uv, r.UnknownVerbs) {
			t.Errorf("UnknownVerbs = %+v, %v", uv, err)
		}
		if uv[0].Token != "srch" || uv[0].Count != 7 || len(uv[0].Examples) != 1 || uv[0].Examples[0].Context != "Searching now." {
			t.Errorf("UnknownVerbs[0] = %+v", uv[0])
		}
	})
}

// randomLog records n random failures over the 10 days before fixedNow.
func randomLog(t testing.TB, l *Log, n int, seed uint64) []Failure {
	rng := rand.New(rand.NewPCG(seed, 1))
	tokens := []string{"retrieve", "srch", "memorize", "zzyzx", "lookup", "aprove"}
	models := []string{"a", "b", "c", ""}
	var fs []Failure
	for i := 0; i < n; i++ {
		ts := fixedNow.Add(-time.Duration(rng.Int64N(int64(10 * 24 * time.Hour))))
		f := Failure{Time: ts, Model: models[rng.IntN(len(models))], Raw: "/x"}
		switch rng.IntN(3) {
		case 0, 1:
			tok := tokens[rng.IntN(len(tokens))]
			f.Detail, f.Token, f.Raw = UnknownVerbDetail{Attempted: tok}, tok, "/"+tok
		default:
			f.Detail, f.Verb = MissingArgDetail{"fetch", "url"}, "fetch"
		}
		fs = append(fs, f)
	}
	if err := l.RecordBatch(context.Background(), fs); err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestCellsExact checks the roll-up answer against a count of the rows,
// for windows that start on and off midnight, and after a prune.
func TestCellsExact(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *Log) {
		ctx := context.Background()
		fs := randomLog(t, l, 1200, 7)
		for i := 0; i < 50; i++ { // and some one at a time
			if _, err := l.Record(ctx, Failure{Code: codes.UnknownVerb, Token: "srch", Raw: "/srch", Time: fixedNow.Add(-time.Duration(i) * time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		check := func(label string, since time.Time) {
			t.Helper()
			uv, err := l.UnknownVerbs(ctx, since, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range uv {
				n, err := l.Count(ctx, Filter{Since: since, Code: codes.UnknownVerb, Subject: tc.Token})
				if err != nil {
					t.Fatal(err)
				}
				if int64(tc.Count) != n {
					t.Errorf("%s since %s: %s rolled up %d, rows %d", label, since, tc.Token, tc.Count, n)
				}
			}
			ms, _ := l.ModelStats(ctx, since)
			total := 0
			for _, m := range ms {
				total += m.Failures
			}
			if n, _ := l.Count(ctx, Filter{Since: since}); int64(total) != n {
				t.Errorf("%s since %s: rolled up %d failures, rows %d", label, since, total, n)
			}
		}
		for _, since := range []time.Time{fixedNow.Add(-10 * 24 * time.Hour), StartOfDay(fixedNow.Add(-3 * 24 * time.Hour)),
			fixedNow.Add(-77 * time.Hour), fixedNow.Add(-30 * time.Minute)} {
			check("before prune", since)
		}
		cut := fixedNow.Add(-100 * time.Hour) // not midnight: the cut's day is recounted
		want := 0
		for _, f := range fs {
			if f.Time.Before(cut) {
				want++
			}
		}
		for i := 0; i < 50; i++ {
			if fixedNow.Add(-time.Duration(i) * time.Hour).Before(cut) {
				want++
			}
		}
		var calls int
		n, err := l.Prune(ctx, cut, func(done, total int64) { calls++ })
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(want) || calls == 0 {
			t.Errorf("Prune deleted %d (progress calls %d), want %d", n, calls, want)
		}
		if left, _ := l.Count(ctx, Filter{Until: cut}); left != 0 {
			t.Errorf("%d rows older than the cut remain", left)
		}
		for _, since := range []time.Time{fixedNow.Add(-10 * 24 * time.Hour), cut, fixedNow.Add(-30 * time.Hour)} {
			check("after prune", since)
		}
	})
}

func TestSuggestEmptyAndNilMatcher(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *Log) {
		r, err := l.Report(context.Background(), fixtureSince, ReportConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Failures != 0 || len(r.Aliases) != 0 || r.Snippet != "" || len(r.Days) != 8 {
			t.Errorf("empty report: %+v", r)
		}
		var md, js, html bytes.Buffer
		if err := r.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "No failures.") {
			t.Errorf("markdown: %v\n%s", err, md.String())
		}
		if err := r.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"failures": 0`) {
			t.Errorf("json: %v\n%s", err, js.String())
		}
		if err := r.WriteHTML(&html); err != nil || !strings.Contains(html.String(), "<svg") {
			t.Errorf("html: %v", err)
		}
	})
}

// TestReportListsMatchQueries checks the report's cut-down lists (built
// with early termination) against the library's full queries on a log
// with hundreds of distinct tokens.
func TestReportListsMatchQueries(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *Log) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(11, 5))
		words := []string{"search", "recall", "fetch", "remember", "find", "post"}
		var fs []Failure
		for i := 0; i < 1500; i++ {
			w := []rune(words[rng.IntN(len(words))])
			for k := rng.IntN(3); k > 0; k-- { // 0–2 random substitutions
				w[rng.IntN(len(w))] = rune('a' + rng.IntN(26))
			}
			tok := string(w)
			if rng.IntN(3) == 0 {
				tok = fmt.Sprintf("zz%d", int(rng.ExpFloat64()*40))
			}
			fs = append(fs, Failure{Time: fixedNow.Add(-time.Duration(rng.IntN(6*24)) * time.Hour), Token: tok, Raw: "/" + tok,
				Model: fmt.Sprint("m", rng.IntN(4)), Detail: UnknownVerbDetail{Attempted: tok}})
		}
		if err := l.RecordBatch(ctx, fs); err != nil {
			t.Fatal(err)
		}
		sc := testSuggest()
		sc.MinCount = 2
		r, err := l.Report(ctx, fixtureSince, ReportConfig{Suggest: sc, Aliases: 5, UnknownVerbs: 7, Patterns: 4, Examples: 2})
		if err != nil {
			t.Fatal(err)
		}
		all, _ := l.SuggestAliases(ctx, fixtureSince, SuggestConfig{Matcher: sc.Matcher, Known: sc.Known, Exclude: sc.Exclude, MinCount: 2, Examples: 2})
		if len(all) < 10 {
			t.Fatalf("only %d alias candidates: the test needs more", len(all))
		}
		if !reflect.DeepEqual(r.Aliases, all[:5]) {
			t.Errorf("aliases:\n got %+v\nwant %+v", r.Aliases, all[:5])
		}
		uv, _ := l.UnknownVerbs(ctx, fixtureSince, 2)
		if !reflect.DeepEqual(r.UnknownVerbs, uv[:7]) || r.UnknownVerbsTotal != len(uv) {
			t.Errorf("unknown verbs:\n got %+v (total %d)\nwant %+v (total %d)", r.UnknownVerbs, r.UnknownVerbsTotal, uv[:7], len(uv))
		}
		ps, _ := l.CommonPatterns(ctx, fixtureSince, 4, 2, sc)
		if !reflect.DeepEqual(r.Patterns, ps) {
			t.Errorf("patterns:\n got %+v\nwant %+v", r.Patterns, ps)
		}
	})
}

func TestTopN(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := rng.IntN(6)
		xs := make([]int, rng.IntN(30))
		for i := range xs {
			xs[i] = rng.IntN(10)
		}
		var top topN[int]
		top.n, top.less = n, func(a, b int) bool { return a > b }
		for _, x := range xs {
			top.add(x)
		}
		want := append([]int(nil), xs...)
		sort.Sort(sort.Reverse(sort.IntSlice(want)))
		want = want[:min(n, len(want))]
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(top.items, want) {
			t.Fatalf("top %d of %v = %v, want %v", n, xs, top.items, want)
		}
	}
}

// TestFixesAreActionable: a fix names what the owner controls, never
// proposes a word already in force, and never reads as nonsense with an
// empty subject.
func TestFixesAreActionable(t *testing.T) {
	cfg := testSuggest().withDefaults()
	cfg.Resolves = func(tok string) (string, bool) {
		if tok == "searching" {
			return "search", true
		}
		return "", false
	}
	for _, tt := range []struct {
		p       Pattern
		says    string
		mustNot []string
	}{
		{Pattern{Code: codes.UnknownVerb, Subject: "searching", Count: 9}, "now resolves to /search", []string{"extra_aliases"}},
		{Pattern{Code: codes.UnknownVerb, Subject: "lookup", Count: 9}, "nothing to do", []string{"extra_aliases"}},
		{Pattern{Code: codes.UnknownModifier, Verb: "search", Subject: "in conversatons", Count: 3}, `"in conversatons"`, []string{"grammar"}},
		{Pattern{Code: codes.UnknownModifier, Verb: "calc", Subject: "parsecs", Count: 3}, `/calc does not know "parsecs"`, []string{`""`}},
		{Pattern{Code: codes.UnknownModifier, Verb: "calc", Count: 3}, "a unit agents use", []string{`""`}},
		{Pattern{Code: codes.UnknownModifier, Verb: "send", Subject: "@usr", Count: 3}, "[exec.send.routes]", nil},
		{Pattern{Code: codes.InvalidReference, Subject: "@last.outptu", Count: 3}, "misspell", []string{"column"}},
		{Pattern{Code: codes.InvalidReference, Subject: "@thread", Count: 3}, "cannot resolve @thread", nil},
		{Pattern{Code: codes.InvalidReference, Subject: "@last.output", Count: 3}, "--session", nil},
		{Pattern{Code: codes.MissingArg, Verb: "fetch", Count: 3}, "without a required argument", []string{`""`}},
		{Pattern{Code: codes.AmbiguousArgs, Verb: "recall", Subject: "notes", Count: 3}, "dialect memory ls", []string{"most recent"}},
		{Pattern{Code: codes.AmbiguousVerb, Subject: "context|recall", Count: 3}, "priority = 1 under [dialect.verbs.context]", nil},
		{Pattern{Code: codes.PendingApproval, Verb: "send", Count: 3}, "--always", nil},
		{Pattern{Code: codes.PermissionDenied, Verb: "recall", Count: 3}, "dialect rules", nil},
	} {
		got := fix(tt.p, nil, cfg)
		if !strings.Contains(got, tt.says) {
			t.Errorf("fix(%s %q) = %q, want it to say %q", tt.p.Code, tt.p.Subject, got, tt.says)
		}
		for _, bad := range tt.mustNot {
			if strings.Contains(got, bad) {
				t.Errorf("fix(%s %q) = %q says %q", tt.p.Code, tt.p.Subject, got, bad)
			}
		}
	}
	// A token the resolver reaches is never an alias candidate.
	out := suggest([]TokenCount{{Token: "searching", Count: 50}, {Token: "srch", Count: 50}}, cfg)
	if len(out) != 1 || out[0].Alias != "srch" {
		t.Errorf("suggest = %+v, want only srch", out)
	}
}
