package failures

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
)

// Each writer process records this many rows: batches, then single rows.
const (
	writerProcs   = 8
	writerBatches = 8
	writerBatch   = 50
	writerSingles = 30
	writerOK      = 25
)

// TestConcurrentWriterProcesses starts 8 processes (this test binary, re-run
// as TestWriterProcessHelper) that open the same fresh database at the same
// moment — so they race on creating it and on its migrations — and write
// batches, single rows and success counts. Not one row may be lost. It runs
// on each backend: a SQLite file, and a PostgreSQL schema.
func TestConcurrentWriterProcesses(t *testing.T) {
	if os.Getenv("DIALECT_TEST_WRITER_DB") != "" {
		t.Skip("inside a writer process")
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { concurrentWriters(t, b.location(t)) })
	}
}

func concurrentWriters(t *testing.T, path string) {
	startAt := time.Now().Add(500 * time.Millisecond).UnixNano()
	var cmds []*exec.Cmd
	for i := 0; i < writerProcs; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcessHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), "DIALECT_TEST_WRITER_DB="+path, "DIALECT_TEST_WRITER_ID="+strconv.Itoa(i),
			"DIALECT_TEST_WRITER_START="+strconv.FormatInt(startAt, 10))
		out, err := os.CreateTemp(t.TempDir(), "writer")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			out, _ := os.ReadFile(cmd.Stdout.(*os.File).Name())
			t.Errorf("writer %d: %v\n%s", i, err, out)
		}
	}
	if t.Failed() {
		return
	}
	l, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	per := int64(writerBatches*writerBatch + writerSingles)
	total, err := l.Count(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if total != writerProcs*per {
		t.Errorf("rows: got %d, want %d (%d lost)", total, writerProcs*per, writerProcs*per-total)
	}
	for i := 0; i < writerProcs; i++ {
		n, _ := l.Count(ctx, Filter{Agent: fmt.Sprintf("writer-%d", i)})
		if n != per {
			t.Errorf("writer %d: %d rows, want %d", i, n, per)
		}
	}
	var distinct int64
	l.DB().QueryRow(`SELECT count(DISTINCT id) FROM failures`).Scan(&distinct)
	if distinct != total {
		t.Errorf("%d distinct ids for %d rows", distinct, total)
	}
	ms, err := l.ModelStats(ctx, time.Now().Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || int64(ms[0].Failures) != total || ms[0].Successes != writerProcs*writerOK {
		t.Errorf("roll-up and counters: %+v, want %d failures and %d successes", ms, total, writerProcs*writerOK)
	}
	var migrations int
	l.DB().QueryRow(`SELECT count(*) FROM dialect_migrations`).Scan(&migrations)
	if migrations != len(Schema()) {
		t.Errorf("dialect_migrations has %d rows, want %d", migrations, len(Schema()))
	}
}

// TestWriterProcessHelper is one writer of TestConcurrentWriterProcesses;
// run alone it skips.
func TestWriterProcessHelper(t *testing.T) {
	path := os.Getenv("DIALECT_TEST_WRITER_DB")
	if path == "" {
		t.Skip("helper process for TestConcurrentWriterProcesses")
	}
	id := os.Getenv("DIALECT_TEST_WRITER_ID")
	start, _ := strconv.ParseInt(os.Getenv("DIALECT_TEST_WRITER_START"), 10, 64)
	time.Sleep(time.Until(time.Unix(0, start)))
	ctx := context.Background()
	l, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	agent := "writer-" + id
	mk := func(i int) Failure {
		tok := fmt.Sprintf("tok%d", i%7)
		return Failure{Code: codes.UnknownVerb, Token: tok, Raw: "/" + tok + " " + agent, Agent: agent, Model: "m",
			Detail: UnknownVerbDetail{Attempted: tok}}
	}
	for b := 0; b < writerBatches; b++ {
		batch := make([]Failure, writerBatch)
		for i := range batch {
			batch[i] = mk(b*writerBatch + i)
		}
		if err := l.RecordBatch(ctx, batch); err != nil {
			t.Fatal(err)
		}
		if err := l.RecordSuccess(ctx, "m", 1); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < writerSingles; i++ {
		if _, err := l.Record(ctx, mk(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := writerBatches; i < writerOK; i++ {
		if err := l.RecordSuccess(ctx, "m", 1); err != nil {
			t.Fatal(err)
		}
	}
}
