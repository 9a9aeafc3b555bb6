// Command proxy measures what the dialect middleware and proxy add to an
// OpenAI-compatible call (issue 9), on loopback only:
//
//	go run ./internal/eval/proxy [-data ../shared/data] [-n 2000] [-c 8] [-rounds 3] [-kinds sse,json]
//	    [-ttfb 300] [-pause 2ms] [-no-log] [-cpuprofile FILE]
//
// It starts a local upstream that streams answers with no delay, puts the
// middleware (middleware.Transport) and the proxy (middleware.NewProxy) in front
// of it, and prints (a) the time to first byte of a streamed answer
// directly, through the middleware and through the proxy, the paths taking
// turns; (b) throughput, CPU time per request and latency of a bounded
// load (n requests from c workers, at most -max per run) directly, through
// a bare reverse proxy and through the dialect proxy (its logs batched, as
// `dialect proxy` runs it, and written on the response path), streaming and
// not, each path in turn, -rounds times; (c) what became of the actions in
// the answers. The answers are
// the real model outputs in <data>/llm_outputs (none of whose slash words
// should run); without the data it uses testdata/messages.jsonl. The data
// directory defaults to $DIALECT_DATA, else ../shared/data.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"
)

func main() {
	def := os.Getenv("DIALECT_DATA")
	if def == "" {
		def = filepath.Join("..", "shared", "data")
	}
	data := flag.String("data", def, "shared data directory")
	n := flag.Int("n", 2000, "requests per load run")
	c := flag.Int("c", 8, "concurrent workers in a load run")
	samples := flag.Int("ttfb", 300, "time-to-first-byte samples per path")
	maxDur := flag.Duration("max", 20*time.Second, "time limit of one load run")
	msgs := flag.Int("messages", 400, "answers read from the data")
	piece := flag.Int("piece", 16, "bytes of answer per SSE event")
	pause := flag.Duration("pause", 2*time.Millisecond, "for TTFB, also measure with the upstream pausing this long after the first event (0: not)")
	noLog := flag.Bool("no-log", false, "run with [store] log_messages = false (no message written to SQLite)")
	rounds := flag.Int("rounds", 3, "load runs per path and kind, the paths taking turns")
	kinds := flag.String("kinds", "sse,json", "load runs to make: sse, json or both")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file (each server's goroutines labelled server=NAME)")
	flag.Parse()

	src := filepath.Join(*data, "llm_outputs")
	messages, err := readMessages(src, *msgs)
	if err != nil {
		src = filepath.Join("internal", "eval", "proxy", "testdata")
		if messages, err = readMessages(src, *msgs); err != nil {
			fmt.Fprintln(os.Stderr, "proxy eval:", err)
			os.Exit(2)
		}
	}
	dir, err := os.MkdirTemp("", "dialect-proxy-eval")
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy eval:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	fmt.Printf("answers from %s\n", src)
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "proxy eval:", err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "proxy eval:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := run(context.Background(), config{
		Messages: messages, TTFBSamples: *samples, Requests: *n, Concurrency: *c,
		MaxDuration: *maxDur, Piece: *piece, DB: filepath.Join(dir, "eval.db"), NoLog: *noLog, Pause: *pause,
		Rounds: *rounds, Kinds: strings.Split(*kinds, ","),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy eval:", err)
		os.Exit(1)
	}
	rep.print(os.Stdout)
}
