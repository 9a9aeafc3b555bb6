package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/failures"
)

// envInt reads a positive number from $name, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// TestConcurrentProcesses runs STORE_PROCS processes (default 8; this test
// binary re-executed as TestChildWriter) against one fresh store at once,
// on each backend. Each process opens the store at the same moment (racing
// on its migrations), then, STORE_APPENDS times (default 25): appends a line
// to one shared block, inserts an archival entry, logs a failure, and tries
// to approve every one of a set of pending actions. Nothing may be lost
// and every pending action must be decided by exactly one process.
func TestConcurrentProcesses(t *testing.T) {
	if os.Getenv("STORE_CHILD") != "" {
		t.Skip("inside a child")
	}
	procs, each := envInt("STORE_PROCS", 8), envInt("STORE_APPENDS", 25)
	const items = 20
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			loc := b.location(t)
			ctx := context.Background()
			s := openAt(t, loc)
			var ids []string
			for i := range items {
				id, err := s.Enqueue(ctx, Pending{Verb: "post", Intent: "{}", Raw: fmt.Sprint("/post ", i)})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, strconv.FormatInt(id, 10))
			}
			start := time.Now().Add(300 * time.Millisecond)
			cmds := make([]*exec.Cmd, procs)
			outs := make([]*bytes.Buffer, procs)
			for i := range cmds {
				cmds[i] = exec.Command(os.Args[0], "-test.run=^TestChildWriter$", "-test.count=1", "-test.v")
				cmds[i].Env = append(os.Environ(), "STORE_CHILD="+loc, "STORE_CHILD_ID="+strconv.Itoa(i),
					"STORE_CHILD_N="+strconv.Itoa(each), "STORE_CHILD_PENDING="+strings.Join(ids, ","),
					"STORE_CHILD_START="+strconv.FormatInt(start.UnixNano(), 10))
				outs[i] = new(bytes.Buffer)
				cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
				if err := cmds[i].Start(); err != nil {
					t.Fatal(err)
				}
			}
			for i, c := range cmds {
				if err := c.Wait(); err != nil {
					t.Fatalf("child %d: %v\n%s", i, err, outs[i])
				}
			}
			took := time.Since(start)
			wins := map[string][]string{}
			for i, out := range outs {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					if id, ok := strings.CutPrefix(sc.Text(), "won "); ok {
						wins[id] = append(wins[id], strconv.Itoa(i))
					}
				}
			}
			total := procs * each
			blk, err := s.Get(ctx, Archival, "log")
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(blk.Content, "\n")
			seen := map[string]bool{}
			for _, l := range lines {
				seen[l] = true
			}
			names, _ := s.Names(ctx, Archival)
			nfail, err := s.Failures().Count(ctx, failures.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			lost := total - len(seen)
			if len(lines) != total || lost != 0 || blk.Version != total {
				t.Errorf("log: %d lines (%d distinct) at version %d, want %d", len(lines), len(seen), blk.Version, total)
			}
			if len(names) != 1+total {
				t.Errorf("%d archival blocks, want %d", len(names), 1+total)
			}
			if nfail != int64(total) {
				t.Errorf("%d failures logged, want %d", nfail, total)
			}
			dup := 0
			for _, id := range ids {
				n, _ := strconv.ParseInt(id, 10, 64)
				p, err := s.GetPending(ctx, n)
				if err != nil {
					t.Fatal(err)
				}
				w := wins[id]
				if len(w) > 1 {
					dup += len(w) - 1
				}
				if len(w) != 1 || p.Status != StatusApproved || p.DecidedBy != "child-"+w[0] {
					t.Errorf("pending #%s: won by %v, stored as %s by %q", id, w, p.Status, p.DecidedBy)
				}
			}
			t.Logf("%s: %d processes × %d: appends %d/%d (lost %d), inserts %d/%d, failures %d/%d; %d pending decided by %d processes each: %d duplicate decisions; %.2fs",
				b.name, procs, each, len(seen), total, lost, len(names)-1, total, nfail, total, items, procs, dup, took.Seconds())
		})
	}
}

// TestChildWriter is one process of TestConcurrentProcesses; run alone it
// skips. It prints "won ID" for each pending action it decided.
func TestChildWriter(t *testing.T) {
	loc := os.Getenv("STORE_CHILD")
	if loc == "" {
		t.Skip("run by TestConcurrentProcesses")
	}
	id := os.Getenv("STORE_CHILD_ID")
	n, _ := strconv.Atoi(os.Getenv("STORE_CHILD_N"))
	start, _ := strconv.ParseInt(os.Getenv("STORE_CHILD_START"), 10, 64)
	var pending []int64
	for _, f := range strings.Split(os.Getenv("STORE_CHILD_PENDING"), ",") {
		p, _ := strconv.ParseInt(f, 10, 64)
		pending = append(pending, p)
	}
	time.Sleep(time.Until(time.Unix(0, start)))
	ctx := context.Background()
	s, err := Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		if _, err := Append(ctx, s, Archival, "log", fmt.Sprintf("%s-%d", id, i)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Insert(ctx, Archival, fmt.Sprintf("entry %s-%d", id, i)); err != nil {
			t.Fatal(err)
		}
		f := failures.Failure{Code: codes.UnknownVerb, Token: "serch", Raw: "/serch " + id, Agent: "child-" + id, Model: "m"}
		if _, err := s.Failures().Record(ctx, f); err != nil {
			t.Fatal(err)
		}
		if i < len(pending) {
			// Every process tries every pending action, in the same order.
			_, err := s.Decide(ctx, pending[i], StatusApproved, "child-"+id, "")
			switch {
			case err == nil:
				fmt.Printf("won %d\n", pending[i])
			case !isDecided(err):
				t.Fatal(err)
			}
		}
	}
	for _, p := range pending[min(n, len(pending)):] {
		_, err := s.Decide(ctx, p, StatusApproved, "child-"+id, "")
		switch {
		case err == nil:
			fmt.Printf("won %d\n", p)
		case !isDecided(err):
			t.Fatal(err)
		}
	}
}

func isDecided(err error) bool { return errors.Is(err, ErrDecided) }
