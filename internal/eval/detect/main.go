// Command detect evaluates the action scanner on real model outputs
// (../shared/data/llm_outputs by default): how many candidates it detects,
// that none of them is executable and why, and that scanning in chunks of
// 1, 2, 3, 7 and 64 bytes and in random pieces reports exactly what
// whole-message scanning reports. With -mem it also streams messages of 1,
// 4, 16 and 64 MiB in 20-byte chunks and prints peak heap and time; with
// -speed N it times the scanner (whole messages, 4-byte writes) against the
// baselines in N interleaved rounds.
//
//	go run ./internal/eval/detect [-data DIR] [-splits N] [-mem] [-speed 15]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/verbs"
)

func main() {
	def := os.Getenv("DIALECT_DATA")
	if def == "" {
		def = filepath.Join("..", "shared", "data")
	}
	data := flag.String("data", def, "the shared data directory (holding llm_outputs/); $DIALECT_DATA")
	splits := flag.Int("splits", 3, "random multi-splits per message")
	mem := flag.Bool("mem", false, "also print the streaming memory/time table (1, 4, 16, 64 MiB in 20-byte chunks)")
	repeat := flag.Int("repeat", 3, "with -mem: stream each size this many times and keep the fastest")
	verbose := flag.Bool("v", false, "list every candidate with its message and reason")
	speedRounds := flag.Int("speed", 0, "also time the scanner against the baselines in this many interleaved rounds (e.g. 15)")
	flag.Parse()

	msgs, err := loadOutputs(filepath.Join(*data, "llm_outputs"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval detect:", err)
		os.Exit(1)
	}
	sum := evaluate(msgs, vocabulary(), *splits, 1)
	sum.print(os.Stdout)
	if *verbose {
		for _, c := range sum.all {
			fmt.Println("  candidate:", c)
		}
	}
	if *mem {
		fmt.Println()
		texts := make([][]byte, len(msgs))
		for i, m := range msgs {
			texts[i] = m.text
		}
		printMem(os.Stdout, memTable(texts, []int{1 << 20, 4 << 20, 16 << 20, 64 << 20}, 20, *repeat))
	}
	if *speedRounds > 0 {
		fmt.Println()
		texts := make([][]byte, len(msgs))
		for i, m := range msgs {
			texts[i] = m.text
		}
		printSpeed(os.Stdout, speed(texts, *speedRounds), sum.bytes)
	}
	if sum.executable > 0 || sum.mismatches > 0 {
		os.Exit(1)
	}
}

// message is one model output.
type message struct {
	id   string // file:id
	text []byte
}

// loadOutputs reads every *.jsonl file of dir: {"model", "id", "text"}.
func loadOutputs(dir string) ([]message, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.jsonl files in %s (set -data or DIALECT_DATA)", dir)
	}
	sort.Strings(files)
	var out []message
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<26)
		for n := 1; sc.Scan(); n++ {
			var rec struct {
				ID   json.RawMessage `json:"id"`
				Text string          `json:"text"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				fh.Close()
				return nil, fmt.Errorf("%s:%d: %w", f, n, err)
			}
			out = append(out, message{id: filepath.Base(f) + ":" + strings.Trim(string(rec.ID), `"`), text: []byte(rec.Text)})
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	return out, nil
}

// vocabulary is the built-in verbs as a static vocabulary (exact and
// case-insensitive), as `dialect detect` uses until fuzzy resolution is
// wired in. An alias claimed twice goes to the verb listed first.
func vocabulary() *detect.StaticVocabulary {
	names := map[string]string{}
	for _, s := range verbs.Builtin() {
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			if _, taken := names[strings.ToLower(n)]; !taken {
				names[strings.ToLower(n)] = s.Name
			}
		}
	}
	return detect.NewStaticVocabulary(names)
}

// summary is what evaluate measured.
type summary struct {
	messages, bytes int
	candidates      int
	executable      int
	reasons         map[string]int // reason text → count
	positions       map[string]int // line/inline, executable position or not → count
	examples        []string       // executable or executable-position actions, for inspection
	all             []string       // every candidate, for -v
	sizes           []int          // chunk sizes checked
	splits          int            // random multi-splits per message
	checks          int            // chunked scans compared with whole-message scans
	mismatches      int
	firstMismatch   string
}

// evaluate scans every message whole, then at each chunk size and in
// random pieces, and compares.
func evaluate(msgs []message, v detect.Vocabulary, splits int, seed int64) summary {
	opt := detect.DefaultOptions()
	sum := summary{reasons: map[string]int{}, positions: map[string]int{}, sizes: []int{1, 2, 3, 7, 64}, splits: splits}
	sc := detect.NewScanner(v, opt)
	rng := rand.New(rand.NewSource(seed))
	for _, m := range msgs {
		sum.messages++
		sum.bytes += len(m.text)
		whole := append([]detect.Action(nil), detect.Scan(v, opt, m.text)...)
		for i := range whole {
			a := &whole[i]
			sum.candidates++
			if a.Executable {
				sum.executable++
				sum.reasons["(executable)"]++
			} else {
				sum.reasons[a.ReasonText()]++
			}
			pos := "line"
			if a.Inline {
				pos = "inline"
			}
			if a.ExecutablePosition() {
				pos += ", executable position"
				sum.examples = append(sum.examples, fmt.Sprintf("%s line %d: /%s %q → %s", m.id, a.Span.Line, a.Token, a.Args, status(a)))
			}
			sum.positions[pos]++
			sum.all = append(sum.all, fmt.Sprintf("%s line %d col %d: /%s %q → %s", m.id, a.Span.Line, a.Span.Col, a.Token, a.Args, status(a)))
		}
		check := func(how string, got []detect.Action) {
			sum.checks++
			if len(got) == len(whole) && (len(got) == 0 || reflect.DeepEqual(got, whole)) {
				return
			}
			sum.mismatches++
			if sum.firstMismatch == "" {
				sum.firstMismatch = fmt.Sprintf("%s %s: %d actions, whole message %d", m.id, how, len(got), len(whole))
			}
		}
		for _, n := range sum.sizes {
			sc.Reset()
			for i := 0; i < len(m.text); i += n {
				sc.Write(m.text[i:min(i+n, len(m.text))])
			}
			sc.Close()
			check(fmt.Sprintf("%d-byte chunks", n), sc.Actions())
		}
		for k := 0; k < splits; k++ {
			sc.Reset()
			for i := 0; i < len(m.text); {
				j := min(len(m.text), i+1+rng.Intn(96))
				sc.Write(m.text[i:j])
				i = j
			}
			sc.Close()
			check("random pieces", sc.Actions())
		}
	}
	return sum
}

func status(a *detect.Action) string {
	if a.Executable {
		return "EXECUTABLE"
	}
	return a.ReasonText()
}

func (s summary) print(w io.Writer) {
	fmt.Fprintf(w, "messages:             %d (%.1f MB)\n", s.messages, float64(s.bytes)/1e6)
	fmt.Fprintf(w, "candidates detected:  %d\n", s.candidates)
	fmt.Fprintf(w, "executable:           %d\n", s.executable)
	fmt.Fprintln(w, "why not executable:")
	for _, k := range sortedKeys(s.reasons) {
		fmt.Fprintf(w, "  %-32s %d\n", k, s.reasons[k])
	}
	fmt.Fprintln(w, "where:")
	for _, k := range sortedKeys(s.positions) {
		fmt.Fprintf(w, "  %-32s %d\n", k, s.positions[k])
	}
	for _, e := range s.examples {
		fmt.Fprintf(w, "  in executable position: %s\n", e)
	}
	verdict := "identical"
	if s.mismatches > 0 {
		verdict = fmt.Sprintf("%d MISMATCHES, first: %s", s.mismatches, s.firstMismatch)
	}
	fmt.Fprintf(w, "chunk independence:   %s (%d chunked scans: sizes %v and %d random multi-splits per message)\n",
		verdict, s.checks, s.sizes, s.splits)
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// memRow is one line of the streaming memory/time table.
type memRow struct {
	size     int           // message size in bytes
	peakHeap uint64        // peak heap above the baseline, sampled (highest over repeats)
	elapsed  time.Duration // time to stream it, sampling excluded (fastest over repeats)
	actions  int
}

// memTable streams, for each size, one message of that size made by
// repeating corpus (outputs separated by blank lines) through a scanner in
// chunk-byte writes. The message is generated on the fly, so the heap holds
// only the corpus (measured as the baseline) and what the scanner keeps.
func memTable(corpus [][]byte, sizes []int, chunk, repeat int) []memRow {
	var rows []memRow
	for _, size := range sizes {
		best := streamOnce(corpus, size, chunk)
		for k := 1; k < repeat; k++ {
			r := streamOnce(corpus, size, chunk)
			best.peakHeap = max(best.peakHeap, r.peakHeap)
			best.elapsed = min(best.elapsed, r.elapsed)
		}
		rows = append(rows, best)
	}
	return rows
}

// streamOnce streams one message of size bytes and measures it.
func streamOnce(corpus [][]byte, size, chunk int) memRow {
	v := vocabulary()
	{
		sc := detect.NewScanner(v, detect.DefaultOptions())
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		var peak uint64
		sample := func() {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak {
				peak = ms.HeapAlloc - base
			}
		}
		const sampleEvery = 64 << 10
		start := time.Now()
		var sampling time.Duration
		written, nextSample := 0, sampleEvery
		sep := []byte("\n\n")
	outer:
		for {
			for _, text := range corpus {
				for _, part := range [][]byte{text, sep} {
					for i := 0; i < len(part); i += chunk {
						n := min(chunk, len(part)-i, size-written)
						sc.Write(part[i : i+n])
						written += n
						if written >= nextSample {
							t := time.Now()
							sample()
							sampling += time.Since(t)
							nextSample += sampleEvery
						}
						if written == size {
							break outer
						}
					}
				}
			}
		}
		sc.Close()
		elapsed := time.Since(start) - sampling
		sample()
		return memRow{size: size, peakHeap: peak, elapsed: elapsed, actions: len(sc.Actions())}
	}
}

func printMem(w io.Writer, rows []memRow) {
	fmt.Fprintln(w, "streaming one message in 20-byte chunks (peak heap above the baseline, sampled every 64 KiB; fastest time):")
	fmt.Fprintf(w, "  %-10s %-12s %-12s %-10s %s\n", "message", "peak heap", "time", "MB/s", "actions")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-10s %-12s %-12s %-10.0f %d\n", fmt.Sprintf("%d MiB", r.size>>20), fmt.Sprintf("%.1f KiB", float64(r.peakHeap)/1024),
			r.elapsed.Round(time.Millisecond), float64(r.size)/1e6/r.elapsed.Seconds(), r.actions)
	}
}
