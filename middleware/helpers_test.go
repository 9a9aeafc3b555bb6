package middleware

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect"
)

// openRuntime opens a runtime over a configuration's text, with a store of
// its own in a temporary directory.
func openRuntime(t testing.TB, toml string) *dialect.Runtime {
	t.Helper()
	cfg, err := dialect.ParseConfig("test.toml", []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "run.db")
	rt, err := dialect.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// run runs one message as agent scout with model m1 in session s1.
func run(t testing.TB, rt *dialect.Runtime, text string) []dialect.Result {
	t.Helper()
	res, err := rt.Run(context.Background(), dialect.Message{Text: text, Agent: "scout", Model: "m1", Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// cpuTime is the CPU time the process has used (user and system): on a
// shared machine a steadier measure of work than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
