package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pattern-dialect/dialect/grammarbridge"
)

// cost is what matching a grammar's inputs cost, per input.
type cost struct {
	cpuUS, wallUS float64 // mean time
	allocs        float64 // mean allocations
	faults        float64 // page faults per 1000 inputs
}

// cpuTime returns the process's user+system CPU time. CPU time is what the
// comparison uses: this machine is shared, and wall time mostly measures
// the other processes.
func cpuTime() time.Duration {
	cpu, _ := usage()
	return cpu
}

// usage returns the process's user+system CPU time and its page faults
// served without I/O so far, from one getrusage call.
func usage() (cpu time.Duration, minorFaults int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Minflt
}

// benchGrammar matches every input rounds times and returns the mean cost
// per input, in the steady state of a process that matches many inputs.
//
// It starts from a heap collected, swept and given back to the system,
// so that the garbage of reading the cases is not swept or scavenged on
// the other core during the measurement (both would count as CPU time).
// It then warms up (warmUp), as TypeAgent's timings are of warm
// iterations: every page given back costs a page fault when the heap
// takes it again (about 1.5 µs each on this machine), about one for
// every 4 KB allocated until the heap has grown back to its size. Timed
// from a heap just given back, a run of 200 rounds of image (4 MB
// allocated) took ~86 faults per 1000 inputs, 0.13 µs of its ~1 µs an
// input; warm, ~0. The collections that the rounds cause are in the
// figures, so rounds should be many (200, as TypeAgent's timings) for
// them to be in proportion; faults reports the faults that remain.
func benchGrammar(g *grammarbridge.Grammar, inputs []string, rounds int) cost {
	debug.FreeOSMemory()
	warmUp(g, inputs)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	c0, f0 := usage()
	w0 := time.Now()
	for r := 0; r < rounds; r++ {
		for _, in := range inputs {
			g.Match(in)
		}
	}
	c1, f1 := usage()
	w1 := time.Now()
	runtime.ReadMemStats(&ms1)
	n := float64(rounds * len(inputs))
	return cost{
		cpuUS:  float64(c1-c0) / 1e3 / n,
		wallUS: float64(w1.Sub(w0)) / 1e3 / n,
		allocs: float64(ms1.Mallocs-ms0.Mallocs) / n,
		faults: float64(f1-f0) * 1000 / n,
	}
}

// warmUp matches every input at least once, and then round after round
// until two collections have run (the heap has grown to its goal, been
// collected, and been taken again), or for at most maxWarmUp. It is not
// bounded by rounds: a grammar that allocates little (image: 208 bytes an
// input, 2.5 MB in 200 rounds) had not reached its heap goal, 4 MB, after
// 200 rounds, and the timed rounds then took back pages that
// debug.FreeOSMemory had given back: 25 to 30 faults per 1000 inputs.
func warmUp(g *grammarbridge.Grammar, inputs []string) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gc0 := ms.NumGC
	for start := time.Now(); time.Since(start) < maxWarmUp; {
		for _, in := range inputs {
			g.Match(in)
		}
		if runtime.ReadMemStats(&ms); ms.NumGC >= gc0+2 {
			return
		}
	}
}

// maxWarmUp bounds warmUp for a grammar that allocates too little to run
// the collector twice in that time; such a grammar takes few pages back
// from the system while it is timed anyway.
const maxWarmUp = time.Second

// readTimings reads timings.tsv: grammar -> mean µs per input with
// optimizations off.
func readTimings(file string) (map[string]float64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 3 {
			continue
		}
		if v, err := strconv.ParseFloat(fields[2], 64); err == nil {
			out[fields[0]] = v
		}
	}
	return out, sc.Err()
}

// benchConfig says how benchmark times.
type benchConfig struct {
	rounds int // timed rounds over a grammar's inputs
	repeat int // runs of which the fastest is kept (without ta)
	// ta, when set, times TypeAgent in the same run: pairs runs of each,
	// alternated, and the ratio is taken within each pair.
	ta    *typeAgent
	pairs int
}

// benchmark measures every grammar with cases and the compile time of the
// largest grammar, and writes a table with the ratio to TypeAgent.
func benchmark(dir dirs, only string, cfg benchConfig, w io.Writer) error {
	ref, err := readTimings(dir.timings)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir.cases, "*.jsonl"))
	if err != nil {
		return err
	}
	if cfg.ta != nil {
		fmt.Fprintf(w, "%-30s %6s %10s %10s %9s %8s %11s %8s\n", "grammar", "inputs", "wall µs/in", "TypeAgent", "same-run", "lowest", "timings.tsv", "vs tsv")
	} else {
		fmt.Fprintf(w, "%-30s %6s %10s %10s %9s %10s %8s %9s\n", "grammar", "inputs", "cpu µs/in", "wall µs/in", "allocs/in", "TypeAgent", "speedup", "faults/1k")
	}
	minRatio, minName := 0.0, ""
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if only != "" && name != only {
			continue
		}
		file := filepath.Join(dir.grammars, name+".agr")
		g, err := grammarbridge.Compile(grammarbridge.OSLoader{}, file, grammarbridge.Options{})
		if err != nil {
			return err
		}
		cases, err := readCases(f)
		if err != nil {
			return err
		}
		inputs := make([]string, len(cases))
		for i, c := range cases {
			inputs[i] = c.Input
		}
		var ratio float64
		if cfg.ta != nil {
			p, err := timePairs(cfg, file, g, inputs)
			if err != nil {
				return err
			}
			ratio = p.ratio
			vsRef := 0.0
			if r := ref[name]; r > 0 {
				vsRef = r / p.ours
			}
			fmt.Fprintf(w, "%-30s %6d %10.2f %10.1f %8.1fx %7.1fx %11.1f %7.1fx\n", name, len(inputs), p.ours, p.theirs, p.ratio, p.lowest, ref[name], vsRef)
		} else {
			// The machine is shared: keep the fastest of several runs.
			best := benchGrammar(g, inputs, cfg.rounds)
			for i := 1; i < cfg.repeat; i++ {
				c := benchGrammar(g, inputs, cfg.rounds)
				best = cost{min(best.cpuUS, c.cpuUS), min(best.wallUS, c.wallUS), min(best.allocs, c.allocs), min(best.faults, c.faults)}
			}
			if r := ref[name]; r > 0 && best.cpuUS > 0 {
				ratio = r / best.cpuUS
			}
			fmt.Fprintf(w, "%-30s %6d %10.2f %10.2f %9.1f %10.1f %7.1fx %9.1f\n", name, len(inputs), best.cpuUS, best.wallUS, best.allocs, ref[name], ratio, best.faults)
		}
		if ratio > 0 && (minRatio == 0 || ratio < minRatio) {
			minRatio, minName = ratio, name
		}
	}
	if cfg.ta != nil {
		fmt.Fprintf(w, "slowest same-run speedup vs TypeAgent (opt=none, median of %d pairs): %.1fx (%s)\n", cfg.pairs, minRatio, minName)
	} else {
		fmt.Fprintf(w, "slowest speedup vs TypeAgent (opt=none): %.1fx\n", minRatio)
	}

	// Compile time of the largest grammar.
	largest, size := "", int64(0)
	all, _ := filepath.Glob(filepath.Join(dir.grammars, "*.agr"))
	for _, f := range all {
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			largest, size = f, st.Size()
		}
	}
	src, err := os.ReadFile(largest)
	if err != nil {
		return err
	}
	const n = 20
	grammarbridge.CompileString(filepath.Base(largest), string(src), grammarbridge.Options{})
	bestCPU, bestWall := 0.0, 0.0
	for r := 0; r < max(cfg.repeat, 1); r++ {
		c0, w0 := cpuTime(), time.Now()
		for i := 0; i < n; i++ {
			if _, err := grammarbridge.CompileString(filepath.Base(largest), string(src), grammarbridge.Options{}); err != nil {
				return err
			}
		}
		c, wl := float64(cpuTime()-c0)/1e6/n, float64(time.Since(w0))/1e6/n
		if r == 0 || c < bestCPU {
			bestCPU = c
		}
		if r == 0 || wl < bestWall {
			bestWall = wl
		}
	}
	fmt.Fprintf(w, "compile %s (%d bytes): %.2f ms cpu, %.2f ms wall\n", filepath.Base(largest), size, bestCPU, bestWall)
	return nil
}

// pairTimes is what timePairs measured for one grammar.
type pairTimes struct {
	ours, theirs float64 // median wall-clock µs per input
	ratio        float64 // median of the pairs' TypeAgent/grammarbridge
	lowest       float64 // the lowest pair's ratio
}

// timePairs times TypeAgent and grammarbridge on a grammar's inputs in
// cfg.pairs pairs of runs, one of each, taken one after the other (which
// goes first alternates, so that a machine slowing down or speeding up
// favours neither), and compares them within each pair. Both are
// wall-clock times, TypeAgent's as timings.tsv's are.
func timePairs(cfg benchConfig, file string, g *grammarbridge.Grammar, inputs []string) (pairTimes, error) {
	var ours, theirs, ratios []float64
	for i := 0; i < max(cfg.pairs, 1); i++ {
		var o cost
		var t float64
		var err error
		if i%2 == 0 {
			t, err = cfg.ta.time(file, inputs, cfg.rounds)
			o = benchGrammar(g, inputs, cfg.rounds)
		} else {
			o = benchGrammar(g, inputs, cfg.rounds)
			t, err = cfg.ta.time(file, inputs, cfg.rounds)
		}
		if err != nil {
			return pairTimes{}, err
		}
		ours, theirs = append(ours, o.wallUS), append(theirs, t)
		ratios = append(ratios, t/o.wallUS)
	}
	return pairTimes{median(ours), median(theirs), median(ratios), slices.Min(ratios)}, nil
}

// median returns the median of xs (not empty), which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
