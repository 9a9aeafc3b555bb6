// Command patch evaluates package patch on real diffs: every change applied
// as git wrote it, and perturbed the way models write patches (see
// generators), side by side with GNU patch on the same variants in the
// same run. It prints one table: for each variant, how many changes came
// out right, were refused, or came out silently wrong (no error, output !=
// new).
//
//	go run ./internal/eval/patch [-data DIR] [-seed N] [-seeds K] [-gnu PATH] [-v] [-dump VARIANT/SET/NNNN]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/pattern-dialect/dialect/patch"
)

func main() {
	def := os.Getenv("DIALECT_DATA")
	if def == "" {
		def = filepath.Join("..", "shared", "data")
	}
	data := flag.String("data", def, "the shared data directory (holds diffs/); env DIALECT_DATA")
	seed := flag.Uint64("seed", 1, "seed of the variants")
	seeds := flag.Int("seeds", 1, "run seeds seed, seed+1, ... and add the counts up")
	gnu := flag.String("gnu", "patch", "GNU patch binary; empty to skip the GNU columns")
	verbose := flag.Bool("v", false, "list every change that was not applied right")
	dump := flag.String("dump", "", "VARIANT/SET/NNNN: write that variant's old, diff and want into -out and stop")
	outDir := flag.String("out", os.TempDir(), "where -dump writes")
	flag.Parse()
	if _, err := os.Stat(filepath.Join(*data, "diffs")); err != nil {
		fmt.Printf("eval patch: skipped, no data (%v); set -data or DIALECT_DATA\n", err)
		return
	}
	changes, err := loadChanges(filepath.Join(*data, "diffs"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval patch:", err)
		os.Exit(1)
	}
	if *dump != "" {
		if err := dumpVariant(changes, *dump, *seed, *outDir); err != nil {
			fmt.Fprintln(os.Stderr, "eval patch:", err)
			os.Exit(1)
		}
		return
	}
	cfg := config{seed: *seed, seeds: max(*seeds, 1), gnu: *gnu, verbose: *verbose}
	if cfg.gnu != "" {
		if p, err := exec.LookPath(cfg.gnu); err != nil {
			fmt.Printf("note: GNU patch (%s) not found; its columns are skipped (apt-get install -y patch)\n", cfg.gnu)
			cfg.gnu = ""
		} else {
			cfg.gnu = p
		}
	}
	var res *results
	for k := range cfg.seeds {
		one := cfg
		one.seed += uint64(k)
		r, err := evaluate(context.Background(), changes, one)
		if err != nil {
			fmt.Fprintln(os.Stderr, "eval patch:", err)
			os.Exit(1)
		}
		res = res.add(r)
	}
	res.print(os.Stdout, cfg)
	tw, err := twice(context.Background(), changes, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval patch:", err)
		os.Exit(1)
	}
	fmt.Printf("\neach diff applied to its own new text, as if sent twice (refusing, or leaving the text as it is, is right):\n"+
		"  ours: refused %d, unchanged %d, CHANGED %d", tw.ours[refused]+tw.ours[ambiguous], tw.ours[right], tw.ours[wrong])
	if cfg.gnu != "" {
		fmt.Printf("; GNU patch -f: refused %d, unchanged %d, CHANGED %d", tw.gnu[refused], tw.gnu[right], tw.gnu[wrong])
	}
	fmt.Println()
	best, err := timeApplyAll(changes, 20)
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval patch:", err)
		os.Exit(1)
	}
	fmt.Printf("\napplying all %d changes as git wrote them (patch.Apply, parse included): best of 20 runs %.1f ms (target <= 50 ms)\n",
		len(changes), float64(best.Microseconds())/1000)
}

// twice applies every diff to the text it produces: the patch was already
// applied. Ours and GNU patch count as right when they leave the text as
// it is, refused when they fail, and wrong when they change it.
func twice(ctx context.Context, changes []change, cfg config) (*row, error) {
	r := &row{name: "twice"}
	dir, err := os.MkdirTemp("", "evalpatch")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	for _, ch := range changes {
		v := variant{old: ch.new, diff: ch.dif, want: ch.new}
		r.n++
		r.ours[judge(v, patch.Options{Fuzz: patch.DefaultFuzz})]++
		if cfg.gnu != "" {
			o, err := runGNU(ctx, cfg.gnu, dir, v, false)
			if err != nil {
				return nil, err
			}
			r.gnu[o]++
		}
	}
	return r, nil
}

// timeApplyAll returns the fastest of runs applications of every change;
// the fastest run is the one least disturbed by other work on the machine.
func timeApplyAll(changes []change, runs int) (time.Duration, error) {
	best := time.Duration(math.MaxInt64)
	for range runs {
		start := time.Now()
		for _, ch := range changes {
			if _, _, err := patch.Apply(ch.old, ch.dif); err != nil {
				return 0, fmt.Errorf("%s: %w", ch.name, err)
			}
		}
		best = min(best, time.Since(start))
	}
	return best, nil
}

// config is one evaluation run's settings.
type config struct {
	seed    uint64
	seeds   int    // how many seeds from seed on (printing only)
	gnu     string // absolute path of GNU patch, "" to skip it
	verbose bool
}

// loadChanges reads dir/SET/NNNN/{old,new,diff.patch}.
func loadChanges(dir string) ([]change, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*", "diff.patch"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no changes under %s", dir)
	}
	sort.Strings(paths)
	var out []change
	for _, p := range paths {
		d := filepath.Dir(p)
		var b [3][]byte
		for i, n := range []string{"old", "new", "diff.patch"} {
			if b[i], err = os.ReadFile(filepath.Join(d, n)); err != nil {
				return nil, err
			}
		}
		name := filepath.Base(filepath.Dir(d)) + "/" + filepath.Base(d)
		out = append(out, change{name: name, old: string(b[0]), new: string(b[1]), dif: string(b[2])})
	}
	return out, nil
}

// outcome is what one applier did with one variant.
type outcome int

const (
	right     outcome = iota // output == want
	refused                  // an error, nothing written
	ambiguous                // refused because the hunk fits several places (ours only)
	wrong                    // no error, output != want: silently wrong
)

// tally counts outcomes.
type tally [4]int

// row is one line of the table: one variant applied by each applier.
type row struct {
	name, doc string
	n         int
	strict    tally // ours, Options{Strict: true}
	ours      tally // ours, careful (patch.Apply, or -l for whitespace)
	gnu       tally // GNU patch (-l for whitespace)
	oursPlain tally // whitespace only: ours without IgnoreWhitespace
	gnuPlain  tally // whitespace only: GNU without -l
	// ambGNU counts GNU's outcomes on the variants ours refused as ambiguous.
	ambGNU tally
	misses []string
}

// results is a whole run.
type results struct{ rows []*row }

type job struct {
	g   generator
	ch  change
	row *row
}

// add returns the sum of two runs' counts; res may be nil.
func (res *results) add(o *results) *results {
	if res == nil {
		return o
	}
	for i, r := range res.rows {
		q := o.rows[i]
		r.n += q.n
		for k := range r.strict {
			r.strict[k] += q.strict[k]
			r.ours[k] += q.ours[k]
			r.gnu[k] += q.gnu[k]
			r.oursPlain[k] += q.oursPlain[k]
			r.gnuPlain[k] += q.gnuPlain[k]
			r.ambGNU[k] += q.ambGNU[k]
		}
		r.misses = append(r.misses, q.misses...)
	}
	return res
}

// evaluate runs every generator over every change.
func evaluate(ctx context.Context, changes []change, cfg config) (*results, error) {
	res := &results{}
	var mu sync.Mutex
	var jobs []job
	for _, g := range generators() {
		r := &row{name: g.name, doc: g.doc}
		res.rows = append(res.rows, r)
		for _, ch := range changes {
			jobs = append(jobs, job{g, ch, r})
		}
	}
	tmp, err := os.MkdirTemp("", "evalpatch")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	work := make(chan int)
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := filepath.Join(tmp, fmt.Sprint(w))
			if err := os.Mkdir(dir, 0o755); err != nil {
				errs <- err
				return
			}
			for i := range work {
				if err := runJob(ctx, jobs[i], cfg, dir, &mu); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range jobs {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		return nil, err
	}
	for _, r := range res.rows {
		sort.Strings(r.misses)
	}
	return res, nil
}

func runJob(ctx context.Context, j job, cfg config, dir string, mu *sync.Mutex) error {
	v, ok, err := j.g.gen(j.ch, rngFor(cfg.seed, j.g.name, j.ch.name))
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	ws := j.g.ws
	strict := judge(v, patch.Options{Strict: true})
	ours := judge(v, patch.Options{Fuzz: patch.DefaultFuzz, IgnoreWhitespace: ws})
	var oursPlain outcome
	if ws {
		oursPlain = judge(v, patch.Options{Fuzz: patch.DefaultFuzz})
	}
	var gnu, gnuPlain outcome
	if cfg.gnu != "" {
		if gnu, err = runGNU(ctx, cfg.gnu, dir, v, ws); err != nil {
			return err
		}
		if ws {
			if gnuPlain, err = runGNU(ctx, cfg.gnu, dir, v, false); err != nil {
				return err
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	r := j.row
	r.n++
	r.strict[strict]++
	r.ours[ours]++
	if ws {
		r.oursPlain[oursPlain]++
	}
	if cfg.gnu != "" {
		r.gnu[gnu]++
		if ws {
			r.gnuPlain[gnuPlain]++
		}
		if ours == ambiguous {
			r.ambGNU[gnu]++
		}
	}
	if ours != right || (cfg.gnu != "" && gnu != right) {
		r.misses = append(r.misses, fmt.Sprintf("%s: ours %s, GNU %s", j.ch.name, ours, gnu))
	}
	return nil
}

func (o outcome) String() string {
	return [...]string{"right", "refused", "ambiguous", "WRONG"}[o]
}

// judge applies v with ours.
func judge(v variant, opt patch.Options) outcome {
	got, _, err := patch.ApplyWith(v.old, v.diff, opt)
	switch {
	case errors.Is(err, patch.ErrAmbiguous):
		return ambiguous
	case err != nil:
		return refused
	case got != v.want:
		return wrong
	}
	return right
}

// runGNU applies v with GNU patch: -f so it never asks or guesses a
// reversed patch, output to a file, rejects discarded.
func runGNU(ctx context.Context, bin, dir string, v variant, ignoreWS bool) (outcome, error) {
	in, out, rej := filepath.Join(dir, "in"), filepath.Join(dir, "out"), filepath.Join(dir, "rej")
	os.Remove(out)
	if err := os.WriteFile(in, []byte(v.old), 0o644); err != nil {
		return 0, err
	}
	args := []string{"-f", "-s", "--no-backup-if-mismatch", "-r", rej, "-o", out}
	if ignoreWS {
		args = append(args, "-l")
	}
	cmd := exec.CommandContext(ctx, bin, append(args, in)...)
	cmd.Stdin = strings.NewReader(v.diff)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return refused, nil
	}
	if err != nil {
		return 0, err
	}
	got, err := os.ReadFile(out)
	if err != nil {
		return refused, nil
	}
	if string(got) != v.want {
		return wrong, nil
	}
	return right, nil
}

func pct(k, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d (%.1f%%)", k, 100*float64(k)/float64(n))
}

// print writes the table and the notes.
func (res *results) print(w io.Writer, cfg config) {
	if cfg.seeds > 1 {
		fmt.Fprintf(w, "patch evaluation, seeds %d to %d, counts added up\n\n", cfg.seed, cfg.seed+uint64(cfg.seeds)-1)
	} else {
		fmt.Fprintf(w, "patch evaluation, seed %d\n\n", cfg.seed)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tn\tstrict right\tours right\tours refused\tof which ambiguous\tours WRONG\tGNU right\tGNU refused\tGNU WRONG\t")
	line := func(name string, n int, strict, ours, gnu tally, haveStrict bool) {
		s := "-"
		if haveStrict {
			s = pct(strict[right], n)
		}
		g := [3]string{"-", "-", "-"}
		if cfg.gnu != "" {
			g = [3]string{pct(gnu[right], n), fmt.Sprint(gnu[refused]), fmt.Sprint(gnu[wrong])}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t\n", name, n, s, pct(ours[right], n),
			ours[refused]+ours[ambiguous], ours[ambiguous], ours[wrong], g[0], g[1], g[2])
	}
	for _, r := range res.rows {
		name := r.name
		ws := false
		for _, g := range generators() {
			ws = ws || g.name == r.name && g.ws
		}
		if ws {
			line(r.name+", no -l", r.n, r.strict, r.oursPlain, r.gnuPlain, true)
			name = r.name + ", -l"
		}
		line(name, r.n, r.strict, r.ours, r.gnu, !ws)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nvariants:")
	for _, r := range res.rows {
		fmt.Fprintf(w, "  %-10s %s\n", r.name, r.doc)
	}
	if cfg.gnu != "" {
		fmt.Fprintln(w, "\nrefused as ambiguous by ours, and what GNU patch did with the same variant:")
		for _, r := range res.rows {
			if n := r.ours[ambiguous]; n > 0 {
				fmt.Fprintf(w, "  %-10s %d refused; GNU right %d, refused %d, WRONG %d\n", r.name, n, r.ambGNU[right], r.ambGNU[refused]+r.ambGNU[ambiguous], r.ambGNU[wrong])
			}
		}
	}
	if cfg.verbose {
		fmt.Fprintln(w, "\nchanges not applied right by one of the two:")
		for _, r := range res.rows {
			for _, m := range r.misses {
				fmt.Fprintf(w, "  %-10s %s\n", r.name, m)
			}
		}
	}
}

// dumpVariant writes one variant to dir as old, diff.patch and want, for a
// closer look with ours and GNU patch.
func dumpVariant(changes []change, spec string, seed uint64, dir string) error {
	name, chName, ok := strings.Cut(spec, "/")
	if !ok {
		return fmt.Errorf("-dump wants VARIANT/SET/NNNN, got %q", spec)
	}
	for _, g := range generators() {
		if g.name != name {
			continue
		}
		for _, ch := range changes {
			if ch.name != chName {
				continue
			}
			v, ok, err := g.gen(ch, rngFor(seed, g.name, ch.name))
			if err != nil || !ok {
				return fmt.Errorf("%s: no variant (%v)", spec, err)
			}
			for f, s := range map[string]string{"old": v.old, "diff.patch": v.diff, "want": v.want} {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
					return err
				}
			}
			fmt.Println("wrote", dir)
			return nil
		}
	}
	return fmt.Errorf("%s: no such variant or change", spec)
}
