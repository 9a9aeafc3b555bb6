package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/store"
)

// reportCmdDB makes a failure log with recent rows: srch ×5 and retrieve ×4
// (both close to a verb), aprove ×6 (near miss of a strict verb), zzyzx ×3,
// one old row, and successes.
func reportCmdDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dialect.db")
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l := st.Failures()
	now := time.Now()
	var fs []failures.Failure
	add := func(tok, model string, n int, age time.Duration) {
		for i := 0; i < n; i++ {
			fs = append(fs, failures.Failure{Time: now.Add(-age), Token: tok, Raw: "/" + tok + " project notes",
				Model: model, Agent: "pattern", Context: "Let me check.", Detail: failures.UnknownVerbDetail{Attempted: tok}})
		}
	}
	add("srch", "m1", 5, time.Hour)
	add("retrieve", "m2", 4, 2*time.Hour)
	add("aprove", "m1", 6, 3*time.Hour)
	add("zzyzx", "m2", 3, 4*time.Hour)
	add("srch", "m1", 1, 100*24*time.Hour)
	fs = append(fs, failures.Failure{Time: now.Add(-time.Hour), Code: codes.MissingArg, Verb: "fetch", Token: "fetch",
		Raw: "/fetch", Model: "m2", Detail: failures.MissingArgDetail{Verb: "fetch", Arg: "url"}})
	if err := l.RecordBatch(ctx, fs); err != nil {
		t.Fatal(err)
	}
	if err := l.RecordSuccess(ctx, "m1", 9); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runMain(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, args)
	return code, out.String(), errb.String()
}

func TestReportCmdJSON(t *testing.T) {
	db := reportCmdDB(t)
	cfg := filepath.Join(t.TempDir(), "dialect.toml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "report", "--db", db, "--config", cfg, "--apply", "--only", "none-such")
	if code != 2 || !strings.Contains(errs, "not among the suggested aliases") {
		t.Errorf("--only with an unknown alias: exit %d, %s", code, errs)
	}
	code, out, errs = runCmd(t, "report", "--db", db, "--since", "7d", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r failures.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Failures != 19 {
		t.Errorf("failures = %d, want 19 (the 100-day-old row excluded)", r.Failures)
	}
	got := map[string]string{}
	for _, a := range r.Aliases {
		got[a.Alias] = a.Verb
	}
	if got["srch"] != "search" || got["retrieve"] != "recall" || len(got) != 2 {
		t.Errorf("aliases = %v, want srch→search and retrieve→recall (not aprove: strict; not zzyzx)", got)
	}
	if !strings.Contains(r.Snippet, "[dialect.verbs.search]") {
		t.Errorf("snippet: %q", r.Snippet)
	}
	for _, m := range r.Models {
		if m.Model == "m1" && (m.Failures != 11 || m.Actions != 20) {
			t.Errorf("m1: %+v, want 11 failures of 20 actions", m)
		}
	}
}

func TestReportCmdFormats(t *testing.T) {
	db := reportCmdDB(t)
	for _, f := range []string{"md", "html"} {
		code, out, errs := runCmd(t, "report", "--db", db, "--format", f)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errs)
		}
		if !strings.Contains(out, "srch") || (f == "html" && !strings.Contains(out, "<svg")) || (f == "md" && !strings.Contains(out, "```toml")) {
			t.Errorf("%s output:\n%s", f, out)
		}
	}
	t.Setenv("DIALECT_DB", db)
	if code, out, _ := runCmd(t, "report"); code != 0 || !strings.Contains(out, "# Dialect failure report") {
		t.Errorf("report with $DIALECT_DB: exit %d\n%s", code, out)
	}
}

func TestReportCmdUsage(t *testing.T) {
	db := reportCmdDB(t)
	for _, args := range [][]string{
		{"report", "--db", db, "--format", "pdf"},
		{"report", "--db", db, "--since", "7x"},
		{"report", "--db", db, "--since", "yesterday"},
		{"report", "--db", db, "--only", "srch"},
		{"report", "--db", db, "extra"},
		{"report", "--db", db, "--config", filepath.Join(t.TempDir(), "missing.toml")},
		{"failures", "--db", db, "--since", "-3d"},
		{"failures", "prune", "--db", db},
	} {
		if code, _, errs := runCmd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[dialect\n"), 0o644)
	if code, _, errs := runCmd(t, "report", "--db", db, "--config", bad); code != 2 || !strings.Contains(errs, "bad.toml:1:") {
		t.Errorf("broken config: exit %d, %s", code, errs)
	}
}

func TestReportCmdApply(t *testing.T) {
	db := reportCmdDB(t)
	cfg := filepath.Join(t.TempDir(), "dialect.toml")
	orig := "# Our dialect.\n\n[dialect.verbs.recall]  # memory verbs\nextra_aliases = [\"memorize\"]  # added by hand\n\n# Custom verbs below.\n[dialect.verbs.notify]\naliases = [\"ping\"]\nmaps_to = \"send\"\n"
	if err := os.WriteFile(cfg, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd(t, "report", "--db", db, "--config", cfg, "--apply", "--only", "/retrieve")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, _ := os.ReadFile(cfg)
	want := strings.Replace(orig, `["memorize"]`, `["memorize", "retrieve"]`, 1)
	if string(got) != want {
		t.Errorf("after --only retrieve:\n%s\nwant:\n%s", got, want)
	}
	if st, _ := os.Stat(cfg); st.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", st.Mode().Perm())
	}
	// All suggestions: srch is added; retrieve is now known and not suggested.
	code, out, errs := runCmd(t, "report", "--db", db, "--config", cfg, "--apply", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, _ = os.ReadFile(cfg)
	want += "\n[dialect.verbs.search]\nextra_aliases = [\"srch\"]\n"
	if string(got) != want {
		t.Errorf("after --apply:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(out, `"alias": "retrieve"`) {
		t.Errorf("retrieve suggested again although it is an alias now")
	}
	// Nothing left to add: the file stays as it is.
	if code, _, errs = runCmd(t, "report", "--db", db, "--config", cfg, "--apply"); code != 0 || !strings.Contains(errs, "no alias to add") {
		t.Errorf("third run: exit %d, %s", code, errs)
	}
	if again, _ := os.ReadFile(cfg); string(again) != want {
		t.Errorf("third run changed the file")
	}
	// A file --apply cannot edit safely is left alone, exit 1.
	inline := filepath.Join(t.TempDir(), "inline.toml")
	src := "[dialect.verbs]\nsearch = { extra_aliases = [\"seek\"] }\n"
	os.WriteFile(inline, []byte(src), 0o644)
	if code, _, errs := runCmd(t, "report", "--db", db, "--config", inline, "--apply", "--only", "srch"); code != 1 || !strings.Contains(errs, "inline table") {
		t.Errorf("inline table: exit %d, %s", code, errs)
	}
	if b, _ := os.ReadFile(inline); string(b) != src {
		t.Errorf("inline-table file was changed")
	}
}

func TestFailuresCmdListAndPrune(t *testing.T) {
	db := reportCmdDB(t)
	code, out, errs := runCmd(t, "failures", "--db", db, "--json", "--limit", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 20 {
		t.Errorf("%d JSON lines, want 20", len(lines))
	}
	var f failures.Failure
	if err := json.Unmarshal([]byte(lines[0]), &f); err != nil || f.Code == "" {
		t.Errorf("first line %q: %v", lines[0], err)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--code", "missing_arg"}, 1},
		{[]string{"--model", "m1", "--since", "30d"}, 11},
		{[]string{"--token", "srch"}, 6},
		{[]string{"--until", "30d"}, 1},
		{[]string{"--limit", "3"}, 3},
	} {
		code, out, errs := runCmd(t, append([]string{"failures", "--db", db}, c.args...)...)
		n := strings.Count(out, "\n")
		if code != 0 || n != c.want {
			t.Errorf("%v: exit %d, %d lines, want %d\n%s%s", c.args, code, n, c.want, out, errs)
		}
	}
	code, out, _ = runCmd(t, "failures", "prune", "--db", db, "--older-than", "90d", "--dry-run")
	if code != 0 || !strings.Contains(out, "would delete 1 rows") {
		t.Errorf("dry run: %d %s", code, out)
	}
	code, out, _ = runCmd(t, "failures", "prune", "--db", db, "--older-than", "90d")
	if code != 0 || !strings.Contains(out, "deleted 1 rows") {
		t.Errorf("prune: %d %s", code, out)
	}
	if _, out, _ = runCmd(t, "failures", "--db", db, "--json", "--limit", "0"); strings.Count(out, "\n") != 19 {
		t.Errorf("after prune: %d rows, want 19", strings.Count(out, "\n"))
	}
}

func TestFailuresCmdEscapesTerminal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dialect.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Failures().Record(context.Background(), failures.Failure{Code: codes.UnknownVerb, Raw: "/x \x1b[31mred\x1b[0m", Token: "x", Context: "a\x07b"})
	st.Close()
	_, out, _ := runCmd(t, "failures", "--db", path)
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `\x1b[31mred`) {
		t.Errorf("escape characters reached the output: %q", out)
	}
}

func TestFailuresCmdProgressBar(t *testing.T) {
	if got := renderBar("prune", 5, 10, 10); got != "\rprune [#####.....] 5/10" {
		t.Errorf("renderBar = %q", got)
	}
	if got := renderBar("x", 20, 10, 4); got != "\rx [####] 10/10" {
		t.Errorf("renderBar over total = %q", got)
	}
	var b bytes.Buffer // not a terminal: nothing drawn
	p := newProgress(&b, "x")
	p.update(1, 2)
	p.done()
	if b.Len() != 0 {
		t.Errorf("progress drew on a non-terminal: %q", b.String())
	}
}

// TestReportSaysTrueThings runs a log of failing messages through `dialect
// run` and checks what the report says of them: subjects are what the
// models wrote, no suggestion is a word already in force, fixes read.
func TestReportSaysTrueThings(t *testing.T) {
	e := newRunEnv(t, "")
	in, err := os.ReadFile("testdata/failing.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.cli(string(in), "run", "--jsonl", "--json"); code != 1 {
		t.Fatalf("run: exit %d %s", code, errs)
	}
	code, out, errs := e.cli("", "report", "--since", "1d", "--format", "json", "--min-count", "2", "--top", "30")
	if code != 0 {
		t.Fatalf("report: %d %s", code, errs)
	}
	var rep failures.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	subjects := map[string]failures.Pattern{}
	for _, p := range rep.Patterns {
		subjects[string(p.Code)+" "+p.Subject] = p
		if strings.Contains(p.Subject, "column") || strings.Contains(p.Subject, "did you mean") || strings.Contains(p.Subject, "Usage") {
			t.Errorf("subject %q is a message, not what the model wrote", p.Subject)
		}
		if strings.Contains(p.Fix, `""`) || strings.Contains(p.Fix, "grammar as a synonym") {
			t.Errorf("fix %q of %s %q is not actionable", p.Fix, p.Code, p.Subject)
		}
	}
	for _, want := range []string{"INVALID_REFERENCE @last.outptu", "INVALID_REFERENCE @last.output", "UNKNOWN_MODIFIER in conversatons",
		"UNKNOWN_MODIFIER role:asistant", "UNKNOWN_MODIFIER &md", "UNKNOWN_MODIFIER furlongs", "UNKNOWN_MODIFIER @usr", "UNKNOWN_VERB frobnicate",
		`MALFORMED_SYNTAX unexpected "maybe"`, "MISSING_ARG a URL", "MALFORMED_SYNTAX unterminated quote"} {
		if _, ok := subjects[want]; !ok {
			t.Errorf("no pattern %q; patterns: %v", want, keysOf(subjects))
		}
	}
	for _, p := range rep.Patterns {
		if p.Code == "UNKNOWN_VERB" && p.Subject == "websearch" {
			t.Errorf("/websearch failed: it is /web now")
		}
	}
	for _, a := range rep.Aliases {
		if a.Alias == "in conversations" || a.Alias == "websearch" || a.Alias == "web search" {
			t.Errorf("suggested %q, a word already in force", a.Alias)
		}
	}
	if !strings.Contains(subjects["UNKNOWN_MODIFIER furlongs"].Fix, `/calc does not know "furlongs"`) {
		t.Errorf("calc fix: %q", subjects["UNKNOWN_MODIFIER furlongs"].Fix)
	}
}

func keysOf(m map[string]failures.Pattern) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
