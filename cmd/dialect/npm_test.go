package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// npm holds the official npm MCP packages, installed once per test binary
// into a temporary directory (testdata/npm/package.json), when node is
// present. CI has no node: the tests that need it skip.
var npm struct {
	once sync.Once
	dir  string
	err  string
}

// npmPackages returns the directory whose node_modules holds the packages
// of testdata/npm, or skips the test.
func npmPackages(t testing.TB) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: skipping the tests with the official npm MCP servers and TypeScript SDK", tool)
		}
	}
	npm.once.Do(func() {
		dir, err := os.MkdirTemp("", "dialect-npm-")
		if err != nil {
			npm.err = err.Error()
			return
		}
		npm.dir = dir
		for _, f := range []string{"package.json", "client.mjs"} {
			b, err := os.ReadFile(filepath.Join("testdata", "npm", f))
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, f), b, 0o644)
			}
			if err != nil {
				npm.err = err.Error()
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(dir, ".npm-cache"))
		if out, err := cmd.CombinedOutput(); err != nil {
			npm.err = "npm install failed: " + err.Error() + ": " + string(out)
		}
	})
	if npm.err != "" {
		t.Skipf("the npm packages are not available: %s", npm.err)
	}
	return npm.dir
}

// removeNPM removes what npmPackages installed.
func removeNPM() {
	if npm.dir != "" {
		os.RemoveAll(npm.dir)
	}
}
