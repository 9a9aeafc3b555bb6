// Command failures measures the failure log under a generated load: it
// writes N failure rows (default one million) with batched inserts, then
// times the weekly report over them, cold (a fresh process-like open) and
// warm, and the exact-window variant whose first day is counted from rows.
//
//	go run ./internal/eval/failures [-rows 1000000] [-batch 1000] [-db PATH]
//
// Targets (issue 8): report ≤ 1 s over 1M rows; batched insert ≥ 100k rows/s.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

func main() {
	cfg := config{}
	flag.IntVar(&cfg.rows, "rows", 1_000_000, "failure rows to generate")
	flag.IntVar(&cfg.batch, "batch", 1000, "rows per RecordBatch call")
	flag.IntVar(&cfg.days, "days", 7, "spread the rows over this many days before now")
	flag.StringVar(&cfg.db, "db", "", "database file (default: a new temporary file, removed afterwards)")
	flag.Uint64Var(&cfg.seed, "seed", 1, "random seed")
	flag.BoolVar(&cfg.tail, "tail", false, "stress: unknown verbs from an unbounded long tail (fresh random typos and junk) instead of a Zipf draw from 5,000 tokens")
	flag.BoolVar(&cfg.reuse, "reuse", false, "with -db: measure the reports on the rows already there, insert nothing")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	if cfg.db == "" {
		dir, err := os.MkdirTemp("", "dialect-eval-failures")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
		cfg.db = filepath.Join(dir, "dialect.db")
	}
	res, err := run(context.Background(), cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval failures:", err)
		os.Exit(1)
	}
	res.print(os.Stdout)
}

type config struct {
	rows, batch, days int
	db                string
	seed              uint64
	reuse             bool
	tail              bool
}

// cpuTime is the CPU time (user + system, all threads) the process has used:
// on a shared, overloaded machine it shows what the work costs when the
// wall clock is mostly waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timer measures wall and CPU time of one phase.
type timer struct{ wall, cpu time.Time }

type span struct{ wall, cpu time.Duration }

func startTimer() timer { return timer{time.Now(), time.Unix(0, int64(cpuTime()))} }

func (t timer) stop() span {
	return span{time.Since(t.wall), cpuTime() - time.Duration(t.cpu.UnixNano())}
}

type result struct {
	load            string
	rows            int
	insert          span
	open            span
	reportCold      span
	reportWarm      span
	reportExact     span
	report          *failures.Report
	fileBytes       int64
	aliasesFound    int
	plantedAliases  int
	plantedRecalled int
}

func (r *result) rowsPerSec(d time.Duration) float64 { return float64(r.rows) / d.Seconds() }

func (r *result) print(w io.Writer) {
	fmt.Fprintf(w, "rows                      %d (%s)\n", r.rows, r.load)
	fmt.Fprintf(w, "database size             %.1f MB\n", float64(r.fileBytes)/1e6)
	fmt.Fprintf(w, "                          wall clock                CPU time (all threads)\n")
	fmt.Fprintf(w, "batched insert            %8.2f s = %7.0f rows/s   %8.2f s = %7.0f rows/s   (target ≥ 100000 rows/s)\n",
		r.insert.wall.Seconds(), r.rowsPerSec(r.insert.wall), r.insert.cpu.Seconds(), r.rowsPerSec(r.insert.cpu))
	fmt.Fprintf(w, "open (migrations checked) %8.1f ms                   %8.1f ms\n", ms(r.open.wall), ms(r.open.cpu))
	fmt.Fprintf(w, "report --since 7d, cold   %8.1f ms                   %8.1f ms   (target ≤ 1000 ms; includes the open)\n", ms(r.reportCold.wall), ms(r.reportCold.cpu))
	fmt.Fprintf(w, "report --since 7d, warm   %8.1f ms                   %8.1f ms\n", ms(r.reportWarm.wall), ms(r.reportWarm.cpu))
	fmt.Fprintf(w, "report, since mid-day     %8.1f ms                   %8.1f ms   (first day counted from rows)\n", ms(r.reportExact.wall), ms(r.reportExact.cpu))
	fmt.Fprintf(w, "report: %d failures, %d models, %d patterns, %d alias candidates\n",
		r.report.Failures, len(r.report.Models), len(r.report.Patterns), len(r.report.Aliases))
	fmt.Fprintf(w, "planted aliases ranked in the top %d candidates: %d of %d\n", topPlanted, r.plantedRecalled, r.plantedAliases)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// topPlanted is how high the planted aliases must rank.
const topPlanted = 10

// planted are unknown verbs the generator writes often on purpose: the
// report should rank them as alias candidates.
func planted() []struct{ token, verb string } {
	return []struct{ token, verb string }{
		{"serach", "search"}, {"recal", "recall"}, {"fetchh", "fetch"}, {"calculat", "calc"}, {"searh", "search"},
	}
}

// gen makes failure rows like a runtime would log them: mostly unknown
// verbs (a few planted frequent ones, the rest from a Zipf-distributed
// population or, with -tail, an unbounded tail of fresh typos and junk),
// then argument problems, across eight models.
type gen struct {
	tail      bool       // unknown verbs from an unbounded tail
	zipf      *rand.Zipf // else: which of vocab
	vocab     []string   // unknown tokens a population of models writes
	modifiers []string   // misspelled modifiers
	markers   []string   // misspelled permission markers
	planted   []struct{ token, verb string }
	rng       *rand.Rand
	words     []string // built-in verbs and aliases, one word
	models    []string
	now       time.Time
	span      time.Duration
	contexts  []string
}

func newGen(seed uint64, now time.Time, days int, tail bool) *gen {
	g := &gen{rng: rand.New(rand.NewPCG(seed, 0x5eed)), now: now, span: time.Duration(days) * 24 * time.Hour, tail: tail, planted: planted()}
	for _, s := range verbs.Builtin() {
		g.words = append(g.words, s.Name)
		for _, a := range s.Aliases {
			if !strings.Contains(a, " ") {
				g.words = append(g.words, a)
			}
		}
	}
	g.models = []string{"gpt-4o-mini", "claude-3-haiku", "llama-3-8b", "mistral-7b", "qwen2-7b", "gemma-2-9b", "phi-3-mini", "command-r"}
	g.contexts = []string{"Let me check what we discussed.", "I'll look that up.", "Saving this for later.",
		"One moment.", "Let me search my notes.", "Here is what I found.", "I should remember this."}
	// The bounded population: 5,000 tokens (typos of real verbs and
	// invented words) drawn with a Zipf law, as models repeat themselves.
	seen := map[string]bool{}
	for len(g.vocab) < 5000 {
		tok := g.typo(g.words[g.rng.IntN(len(g.words))])
		if g.rng.IntN(3) == 0 {
			tok = fmt.Sprintf("v%04d", len(g.vocab))
		}
		if !seen[tok] {
			seen[tok] = true
			g.vocab = append(g.vocab, tok)
		}
	}
	g.zipf = rand.NewZipf(g.rng, 1.2, 1, uint64(len(g.vocab)-1))
	for i := 0; i < 40; i++ {
		g.modifiers = append(g.modifiers, g.typo("archival"))
	}
	for i := 0; i < 20; i++ {
		g.markers = append(g.markers, g.typo("?ask"))
	}
	return g
}

// typo applies one or two random edits to w.
func (g *gen) typo(w string) string {
	r := []rune(w)
	for n := 1 + g.rng.IntN(2); n > 0 && len(r) > 1; n-- {
		i := g.rng.IntN(len(r))
		switch g.rng.IntN(3) {
		case 0:
			r = append(r[:i], r[i+1:]...)
		case 1:
			r[i] = rune('a' + g.rng.IntN(26))
		default:
			r = append(r[:i], append([]rune{rune('a' + g.rng.IntN(26))}, r[i:]...)...)
		}
	}
	return string(r)
}

func (g *gen) failure() failures.Failure {
	f := failures.Failure{
		Time:    g.now.Add(-time.Duration(g.rng.Int64N(int64(g.span)))),
		Model:   g.models[int(math.Min(float64(len(g.models)-1), g.rng.ExpFloat64()*2))],
		Agent:   fmt.Sprintf("agent-%d", g.rng.IntN(20)),
		Session: fmt.Sprintf("s%06d", g.rng.IntN(200000)),
		Context: g.contexts[g.rng.IntN(len(g.contexts))],
	}
	verb := g.words[g.rng.IntN(len(g.words))]
	args := "project deadlines for the launch"
	switch p := g.rng.Float64(); {
	case p < 0.10: // planted: frequent, close to a verb
		pl := g.planted[g.rng.IntN(len(g.planted))]
		f.Token, f.Detail = pl.token, failures.UnknownVerbDetail{Attempted: pl.token}
		f.Candidates = []failures.Candidate{{Verb: pl.verb, Score: 0.8, Tier: "edit"}}
	case p < 0.55: // other unknown verbs
		var tok string
		switch {
		case !g.tail:
			tok = g.vocab[g.zipf.Uint64()]
		case g.rng.IntN(4) == 0:
			tok = fmt.Sprintf("x%05d", g.rng.IntN(50000))
		default:
			tok = g.typo(verb)
		}
		f.Token, f.Detail = tok, failures.UnknownVerbDetail{Attempted: tok}
	case p < 0.65:
		f.Token, f.Verb, f.Detail = verb, verb, failures.MissingArgDetail{Verb: verb, Arg: []string{"url", "query", "id", "content"}[g.rng.IntN(4)]}
		args = ""
	case p < 0.75:
		f.Token, f.Verb, f.Detail = verb, verb, failures.MalformedSyntaxDetail{Verb: verb, Issue: []string{"unterminated quote", "unbalanced brackets", "content block never closed"}[g.rng.IntN(3)], Column: 1 + g.rng.IntN(60)}
	case p < 0.83:
		mod := g.modifiers[g.rng.IntN(len(g.modifiers))]
		if g.tail {
			mod = g.typo("archival")
		}
		f.Token, f.Verb, f.Detail = "search", "search", failures.UnknownModifierDetail{Verb: "search", Modifier: mod, Valid: []string{"archival", "conversations", "constellation", "all"}}
		args = "in " + mod + " deadlines"
	case p < 0.87:
		f.Token, f.Detail = "remember", failures.AmbiguousVerbDetail{Attempted: "remember", Options: []string{"context", "recall"}}
	case p < 0.91:
		f.Token, f.Verb, f.Detail = "recall", "recall", failures.AmbiguousArgsDetail{Verb: "recall", Args: "notes", Possibilities: []string{"project_notes", "meeting_notes"}}
	case p < 0.94:
		f.Token, f.Verb, f.Detail = verb, verb, failures.InvalidReferenceDetail{Reference: "@last.output"}
	case p < 0.97:
		f.Token, f.Verb, f.Detail = "post", "post", failures.PermissionMarkerInvalidDetail{Marker: g.markers[g.rng.IntN(len(g.markers))]}
	case p < 0.99:
		f.Token, f.Verb, f.Detail = "post", "post", failures.PendingApprovalDetail{Verb: "post", Approver: "anchor", QueueID: fmt.Sprint(g.rng.IntN(1000))}
	default:
		f.Token, f.Verb, f.Detail = "recall", "recall", failures.InputTooLargeDetail{Size: 65536 + g.rng.IntN(100000), Limit: 65536}
	}
	f.Raw = "/" + f.Token + " " + args
	return f
}

// run generates the load into cfg.db and measures it. Progress goes to
// progress (a bar when it is a terminal).
func run(ctx context.Context, cfg config, progress io.Writer) (*result, error) {
	if cfg.rows <= 0 || cfg.batch <= 0 || cfg.days <= 0 {
		return nil, fmt.Errorf("rows, batch and days must be positive")
	}
	now := time.Now()
	g := newGen(cfg.seed, now, cfg.days, cfg.tail)
	res := &result{rows: cfg.rows, load: "unknown verbs: Zipf over 5,000 tokens"}
	if cfg.tail {
		res.load = "unknown verbs: unbounded long tail (stress)"
	}
	if !cfg.reuse {
		if err := insert(ctx, cfg, g, now, res, progress); err != nil {
			return nil, err
		}
	}
	if st, err := os.Stat(cfg.db); err == nil {
		res.fileBytes = st.Size()
	}
	return res, measure(ctx, cfg, now, res)
}

// insert writes cfg.rows generated rows in batches, timing only the writes.
func insert(ctx context.Context, cfg config, g *gen, now time.Time, res *result, progress io.Writer) error {
	st, err := store.Open(ctx, cfg.db)
	if err != nil {
		return err
	}
	defer st.Close()
	log := st.Failures()
	// Rows are generated a batch at a time, outside the timed part, in time
	// order as a runtime appends to its log; holding all of them at once
	// would make the garbage collector's work, not the log's, dominate.
	bar := newBar(progress)
	step := g.span / time.Duration(cfg.rows)
	t0 := now.Add(-g.span)
	for done := 0; done < cfg.rows; {
		n := min(cfg.batch, cfg.rows-done)
		batch := make([]failures.Failure, n)
		for i := range batch {
			batch[i] = g.failure()
			batch[i].Time = t0.Add(time.Duration(done+i) * step)
		}
		tm := startTimer()
		err := log.RecordBatch(ctx, batch)
		sp := tm.stop()
		if err != nil {
			return err
		}
		res.insert.wall += sp.wall
		res.insert.cpu += sp.cpu
		done += n
		bar.update(done, cfg.rows)
	}
	bar.clear()
	for _, m := range g.models {
		if err := log.RecordSuccessAt(ctx, m, now, cfg.rows/2); err != nil {
			return err
		}
	}
	return nil
}

// measure times the reports over what the database holds.
func measure(ctx context.Context, cfg config, now time.Time, res *result) error {
	// Cold: open as a new `dialect report` process would, then report.
	tm := startTimer()
	st, err := store.Open(ctx, cfg.db)
	if err != nil {
		return err
	}
	defer st.Close()
	log := st.Failures()
	res.open = tm.stop()
	since := failures.StartOfDay(now.Add(-time.Duration(cfg.days) * 24 * time.Hour))
	rc := failures.ReportConfig{Suggest: failures.SuggestConfig{
		Matcher: &failures.EditMatcher{Terms: terms()}, Known: known(), Exclude: map[string]bool{"approve": true, "deny": true, "halt": true},
	}}
	tm = startTimer()
	if res.report, err = log.Report(ctx, since, rc); err != nil {
		return err
	}
	res.reportCold = tm.stop()
	res.reportCold.wall += res.open.wall
	res.reportCold.cpu += res.open.cpu
	tm = startTimer()
	if _, err = log.Report(ctx, since, rc); err != nil {
		return err
	}
	res.reportWarm = tm.stop()
	tm = startTimer()
	if _, err = log.Report(ctx, since.Add(13*time.Hour+17*time.Minute), rc); err != nil {
		return err
	}
	res.reportExact = tm.stop()

	res.plantedAliases = len(planted())
	top := map[string]bool{}
	for i, a := range res.report.Aliases {
		if i < topPlanted {
			top[a.Alias+"→"+a.Verb] = true
		}
	}
	for _, p := range planted() {
		if top[p.token+"→"+p.verb] {
			res.plantedRecalled++
		}
	}
	return nil
}

func terms() []failures.Term {
	var ts []failures.Term
	for _, s := range verbs.Builtin() {
		ts = append(ts, failures.Term{Word: s.Name, Verb: s.Name})
		for _, a := range s.Aliases {
			ts = append(ts, failures.Term{Word: a, Verb: s.Name})
		}
	}
	return ts
}

func known() map[string]bool {
	k := map[string]bool{}
	for _, t := range terms() {
		k[t.Word] = true
	}
	return k
}
