package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pattern-dialect/dialect/grammarbridge"
)

// timing is one grammar's speed measurement.
type timing struct {
	name          string
	inputs        int
	cpuUS, wallUS float64 // mean per input
	allocs        float64 // mean per input
	refUS         float64 // TypeAgent's mean (opt=none), 0 if unknown
}

// cpuTime returns the process's user+system CPU time. CPU time is what the
// comparison uses: this machine is shared, and wall time mostly measures
// the other processes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchGrammar matches every input rounds times (after one warm-up round)
// and returns the mean cost per input. It starts from a collected heap;
// the garbage collections that the rounds cause are in the figures, so
// rounds should be many (200, as TypeAgent's timings) for them to be in
// proportion.
func benchGrammar(g *grammarbridge.Grammar, inputs []string, rounds int) (cpuUS, wallUS, allocs float64) {
	for _, in := range inputs {
		g.Match(in)
	}
	// A collected heap, swept and given back to the system: the garbage
	// of reading the cases must not be swept or scavenged on the other
	// core during the measurement (both would count as CPU time).
	debug.FreeOSMemory()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	c0, w0 := cpuTime(), time.Now()
	for r := 0; r < rounds; r++ {
		for _, in := range inputs {
			g.Match(in)
		}
	}
	c1, w1 := cpuTime(), time.Now()
	runtime.ReadMemStats(&ms1)
	n := float64(rounds * len(inputs))
	return float64(c1-c0) / 1e3 / n, float64(w1.Sub(w0)) / 1e3 / n, float64(ms1.Mallocs-ms0.Mallocs) / n
}

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

// benchmark measures every grammar with cases and the compile time of the
// largest grammar, and writes a table with the ratio to TypeAgent.
func benchmark(dir, only string, rounds, repeat int, w io.Writer) error {
	ref, err := readTimings(filepath.Join(dir, "timings.tsv"))
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "cases", "*.jsonl"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-30s %6s %10s %10s %9s %10s %8s\n", "grammar", "inputs", "cpu µs/in", "wall µs/in", "allocs/in", "TypeAgent", "speedup")
	minRatio := 0.0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if only != "" && name != only {
			continue
		}
		g, err := grammarbridge.Compile(grammarbridge.OSLoader{}, filepath.Join(dir, "grammars", name+".agr"), grammarbridge.Options{})
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
		// The machine is shared: keep the fastest of several runs.
		cpu, wall, allocs := benchGrammar(g, inputs, rounds)
		for i := 1; i < repeat; i++ {
			c, wl, a := benchGrammar(g, inputs, rounds)
			cpu, wall, allocs = min(cpu, c), min(wall, wl), min(allocs, a)
		}
		ratio := 0.0
		if r := ref[name]; r > 0 && cpu > 0 {
			ratio = r / cpu
			if minRatio == 0 || ratio < minRatio {
				minRatio = ratio
			}
		}
		fmt.Fprintf(w, "%-30s %6d %10.2f %10.2f %9.1f %10.1f %7.1fx\n", name, len(inputs), cpu, wall, allocs, ref[name], ratio)
	}
	fmt.Fprintf(w, "slowest speedup vs TypeAgent (opt=none): %.1fx\n", minRatio)

	// Compile time of the largest grammar.
	largest, size := "", int64(0)
	all, _ := filepath.Glob(filepath.Join(dir, "grammars", "*.agr"))
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
	for r := 0; r < max(repeat, 1); r++ {
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
