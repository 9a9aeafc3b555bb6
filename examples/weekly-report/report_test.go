// Package weeklyreport holds a weekly report job (a script, a crontab line
// and a CI workflow) and the test that runs the script.
package weeklyreport

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWeeklyReportScript builds dialect, logs a few failures with
// `dialect run`, and runs weekly-report.sh against them.
func TestWeeklyReportScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the dialect binary")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "dialect")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/pattern-dialect/dialect/cmd/dialect").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	env := append(os.Environ(), "DIALECT_DB="+filepath.Join(dir, "d.db"), "DIALECT_CONFIG=../../dialect.toml",
		"REPORT_DIR="+filepath.Join(dir, "reports"), "DIALECT="+bin)
	for _, msg := range []string{
		"Let me look.\n/frobnicate the quarterly numbers\n",
		"Checking.\n/frobnicate the old notes\n",
		"Done.\n/recall notes + \"fine\"\n",
	} {
		cmd := exec.Command(bin, "run", "--model", "small-model")
		cmd.Env, cmd.Stdin = env, strings.NewReader(msg)
		cmd.Run() // a failed action exits non-zero; the failure is logged either way
	}
	cmd := exec.Command(sh, "weekly-report.sh")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("script: %v\n%s", err, out)
	}
	path := strings.TrimSpace(string(out))
	if !strings.HasPrefix(filepath.Base(path), "dialect-") || !strings.HasSuffix(path, ".md") {
		t.Fatalf("script printed %q", out)
	}
	report, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "frobnicate") || !strings.HasPrefix(string(report), "#") {
		t.Errorf("report:\n%s", report)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
}
