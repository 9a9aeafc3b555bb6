package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the CLI in-process and returns its exit status and output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runMain(context.Background(), &stdio{in: strings.NewReader(stdin), out: &out, err: &errb}, args)
	return code, out.String(), errb.String()
}

func TestConfigCmd(t *testing.T) {
	t.Setenv("DIALECT_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Chdir(t.TempDir())

	code, out, _ := runCLI(t, "", "config", "check")
	if code != 0 || out != "embedded default: ok\n" {
		t.Errorf("check with no file: %d %q", code, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[detect]\nconfirm_tokenz = 1\n"), 0o644)
	code, _, errs := runCLI(t, "", "config", "--config", bad, "check")
	if code != 2 || !strings.Contains(errs, "bad.toml:2:1") || !strings.Contains(errs, "detect.confirm_tokenz") {
		t.Errorf("broken file: exit %d, stderr %q", code, errs)
	}
	os.WriteFile("dialect.toml", []byte("[detect]\nconfirm_tokens = 9\n"), 0o644)
	code, out, _ = runCLI(t, "", "config", "show")
	if code != 0 || !strings.Contains(out, "confirm_tokens = 9") || !strings.Contains(out, "dialect.toml") {
		t.Errorf("show picked up ./dialect.toml? exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "", "config", "frobnicate"); code != 2 {
		t.Errorf("unknown action: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "", "nosuchcommand"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}
