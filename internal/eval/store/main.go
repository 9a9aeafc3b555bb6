// Command store measures `dialect run` on the SQLite store against the
// PostgreSQL store, on this machine, in one run with the commands
// alternated so that the machine's swings hit them alike:
//
//	go run ./internal/eval/store -pg postgres://... [-n 100] [-batch 2000] [-base BIN]
//
// It builds cmd/dialect and a hello-world program into a temporary
// directory and reports, for each store, the median wall and CPU time of a
// one-action `dialect run` (one /calc; the process starts, opens the
// store, runs, records, exits), and the throughput of `dialect run
// --jsonl` over -batch messages of one action each (a mix of /calc,
// /recall appends and searches, and an unknown verb that is logged as a
// failure), repeated -rounds times. -pg defaults to $DIALECT_TEST_POSTGRES;
// each measurement gets a schema of its own there. -base, a dialect
// binary built from another tree, adds its one-action run on SQLite for a
// before/after comparison.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

const hello = `package main

import "fmt"

func main() { fmt.Println("hello, world") }
`

type job struct {
	dir   string // the working directory: one without a dialect.toml
	fails bool   // exit status 1 is expected: some actions fail on purpose
	name  string
	argv  []string
	stdin string
	env   []string
	cpu   []time.Duration
	wall  []time.Duration
}

func (j *job) once() {
	cmd := exec.Command(j.argv[0], j.argv[1:]...)
	cmd.Env, cmd.Dir = j.env, j.dir
	cmd.Stdin = strings.NewReader(j.stdin)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil && !(j.fails && cmd.ProcessState.ExitCode() == 1) {
		log.Fatalf("%s: %v\n%s", j.name, err, errb.String())
	}
	j.wall = append(j.wall, time.Since(start))
	j.cpu = append(j.cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func main() {
	n := flag.Int("n", 100, "runs of each one-action command")
	batch := flag.Int("batch", 2000, "messages in the batch run")
	rounds := flag.Int("rounds", 3, "batch runs per store")
	pg := flag.String("pg", os.Getenv("DIALECT_TEST_POSTGRES"), "postgres:// URL of a server to measure on")
	base := flag.String("base", "", "a dialect binary from another tree, for a before/after of the one-action run on SQLite")
	flag.Parse()
	log.SetFlags(0)
	if *pg == "" {
		log.Fatal("no PostgreSQL: pass -pg or set DIALECT_TEST_POSTGRES")
	}
	dir, err := os.MkdirTemp("", "dialect-storebench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin, helloBin := filepath.Join(dir, "bin", "dialect"), filepath.Join(dir, "bin", "hello")
	build(bin, "./cmd/dialect")
	os.WriteFile(filepath.Join(dir, "hello.go"), []byte(hello), 0o644)
	build(helloBin, filepath.Join(dir, "hello.go"))

	env := func(db string) []string {
		return append(os.Environ(), "DIALECT_DB="+db, "DIALECT_CONFIG=", "XDG_CONFIG_HOME="+dir, "OTEL_EXPORTER_OTLP_ENDPOINT=",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=")
	}
	schemas := &schemaSet{base: *pg}
	defer schemas.drop()
	sqliteDB := filepath.Join(dir, "run.db")
	pgDB := schemas.new()
	jobs := []*job{
		{name: "hello-world", argv: []string{helloBin}},
		{name: "dialect run, SQLite", argv: []string{bin, "run"}, stdin: "/calc 2 + 2\n", env: env(sqliteDB)},
		{name: "dialect run, PostgreSQL", argv: []string{bin, "run"}, stdin: "/calc 2 + 2\n", env: env(pgDB)},
	}
	if *base != "" {
		jobs = append(jobs, &job{name: "base binary run, SQLite", argv: []string{*base, "run"}, stdin: "/calc 2 + 2\n", env: env(filepath.Join(dir, "base.db"))})
	}
	for _, j := range jobs {
		if j.env == nil {
			j.env = env(sqliteDB)
		}
		j.dir = dir
		j.once() // create the store, warm the page cache
	}
	for range *n {
		for _, j := range jobs {
			j.once()
		}
	}
	fmt.Printf("one-action dialect run (/calc 2 + 2), %d runs each, alternated\n", *n)
	fmt.Printf("%-28s %10s %10s %8s\n", "command", "wall p50", "cpu p50", "wall ×")
	for _, j := range jobs {
		fmt.Printf("%-28s %10s %10s %8.2f\n", j.name, median(j.wall).Round(time.Microsecond), median(j.cpu).Round(time.Microsecond),
			float64(median(j.wall))/float64(median(jobs[0].wall)))
	}

	input := batchInput(*batch)
	var tSQLite, tPG, cSQLite, cPG []time.Duration
	for r := range *rounds {
		for _, pgRound := range []bool{false, true} {
			db := filepath.Join(dir, fmt.Sprintf("batch-%d.db", r))
			if pgRound {
				db = schemas.new()
			}
			j := &job{dir: dir, fails: true, name: "batch", argv: []string{bin, "run", "--jsonl", "--json"}, stdin: input, env: env(db)}
			j.once()
			if pgRound {
				tPG, cPG = append(tPG, j.wall[0]), append(cPG, j.cpu[0])
			} else {
				tSQLite, cSQLite = append(tSQLite, j.wall[0]), append(cSQLite, j.cpu[0])
			}
		}
	}
	fmt.Printf("\nbatch: dialect run --jsonl, %d messages of one action each, %d rounds each, alternated, fresh store each\n", *batch, *rounds)
	for _, s := range []struct {
		name string
		t, c []time.Duration
	}{{"SQLite", tSQLite, cSQLite}, {"PostgreSQL", tPG, cPG}} {
		m := median(s.t)
		var each []string
		for _, d := range s.t {
			each = append(each, d.Round(time.Millisecond).String())
		}
		fmt.Printf("%-12s %10s p50  %8.0f messages/s  dialect's cpu p50 %s  (rounds: %s)\n", s.name, m.Round(time.Millisecond),
			float64(*batch)/m.Seconds(), median(s.c).Round(time.Millisecond), strings.Join(each, " "))
	}
	fmt.Printf("PostgreSQL/SQLite time: %.2f× (the server's own CPU is not in dialect's)\n", float64(median(tPG))/float64(median(tSQLite)))
}

// batchInput is n JSON Lines messages of one action each.
func batchInput(n int) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for i := range n {
		var text string
		switch i % 4 {
		case 0:
			text = fmt.Sprintf("Computing.\n/calc %d * 3\n", i)
		case 1:
			text = fmt.Sprintf("Saving.\n/recall notes + \"item %d of the budget review\"\n", i)
		case 2:
			text = "Looking.\n/recall budget review\n"
		case 3:
			text = "Trying.\n/zzyzx the plan\n"
		}
		enc.Encode(map[string]string{"text": text, "agent": "bench", "model": "m", "session": fmt.Sprint("s", i%10)})
	}
	return b.String()
}

// schemaSet makes schemas on the server, each a fresh store.
type schemaSet struct {
	base  string
	names []string
}

func (s *schemaSet) new() string {
	db, err := sql.Open("pgx", s.base)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	name := fmt.Sprintf("bench_%016x", rand.Uint64())
	if _, err := db.ExecContext(context.Background(), "CREATE SCHEMA "+name); err != nil {
		log.Fatal(err)
	}
	s.names = append(s.names, name)
	u, err := url.Parse(s.base)
	if err != nil {
		log.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

func (s *schemaSet) drop() {
	db, err := sql.Open("pgx", s.base)
	if err != nil {
		return
	}
	defer db.Close()
	for _, n := range s.names {
		db.Exec("DROP SCHEMA " + n + " CASCADE")
	}
}

func build(out, pkg string) {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("go build %s: %v", pkg, err)
	}
}
