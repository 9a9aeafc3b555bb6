//go:build linux

package executor

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// alive reports whether pid runs (a zombie waiting to be reaped is dead).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// A timeout kills the command's whole process group, grandchildren too.
func TestCommandTimeoutKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	s, err := NewSender(SendOptions{
		Targets: map[string]TargetConfig{"c": {Type: "command", Command: helperArgv(t, "spawn", pidFile), Timeout: Duration{3 * time.Second}}},
		Routes:  map[string]string{"*": "c"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Send(context.Background(), intent.Send{Domain: "x", Content: "y"})
	if codes.Of(err) != codes.Timeout {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("took %v", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Skipf("the helper did not start its child within the timeout (a loaded machine): %v", err)
	}
	pid, _ := strconv.Atoi(string(b))
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("grandchild %d survived the timeout", pid)
	}
}
