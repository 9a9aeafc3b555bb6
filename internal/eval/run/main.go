// Command run measures the wall time of `dialect run` for a one-action
// message, SQLite opening included, the way a pipe user pays it: one
// process per message, on an existing database.
//
//	go run ./internal/eval/run [-n 60] [-bin path/to/dialect]
//
// Without -bin it builds the command first. It prints the median, 90th
// percentile and fastest run, and the same for `dialect config check`
// (process start and configuration only) as a floor.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 60, "runs per measurement")
	bin := flag.String("bin", "", "dialect binary (default: go build ./cmd/dialect)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "dialect-eval-run")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if *bin == "" {
		*bin = filepath.Join(dir, "dialect")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/dialect").CombinedOutput(); err != nil {
			log.Fatalf("go build: %v\n%s", err, out)
		}
	}
	db := filepath.Join(dir, "eval.db")
	msg := "Saving that.\n/recall notes + \"deadline is friday\"\n"
	run := func(args ...string) time.Duration {
		cmd := exec.Command(*bin, args...)
		cmd.Env = append(os.Environ(), "DIALECT_DB="+db, "DIALECT_CONFIG=")
		cmd.Stdin = strings.NewReader(msg)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("%v: %v\n%s", args, err, out)
		}
		return time.Since(start)
	}
	run("run") // create the database and apply migrations once
	for _, args := range [][]string{{"run"}, {"config", "check"}} {
		ts := make([]time.Duration, *n)
		for i := range ts {
			ts[i] = run(args...)
		}
		slices.Sort(ts)
		fmt.Printf("dialect %-12s median %6.2f ms  p90 %6.2f ms  fastest %6.2f ms  (%d runs)\n",
			strings.Join(args, " "), ms(ts[len(ts)/2]), ms(ts[len(ts)*9/10]), ms(ts[0]), len(ts))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
