package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// patchRun runs the CLI in-process.
func patchRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), &stdio{in: strings.NewReader(stdin), out: &out, err: &errb}, args)
	return code, out.String(), errb.String()
}

// patchFiles writes name/content pairs into a temporary directory and
// returns their paths.
func patchFiles(t *testing.T, kv ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := 0; i < len(kv); i += 2 {
		p := filepath.Join(dir, kv[i])
		if err := os.WriteFile(p, []byte(kv[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

const (
	patchOld  = "one\ntwo\nthree\nfour\nfive\nsix\n"
	patchNew  = "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n"
	patchDiff = "--- a/t\n+++ b/t\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n@@ -5,2 +5,3 @@\n five\n six\n+seven\n"
)

func TestPatchCmdApply(t *testing.T) {
	f := patchFiles(t, "old", patchOld, "diff", patchDiff)
	for _, args := range [][]string{
		{"patch", "apply", "--file", f[0], "--patch", f[1]},
		{"patch", "apply", "--patch", f[1], "--file", f[0], "--strict"},
	} {
		code, out, errs := patchRun(t, "", args...)
		if code != 0 || out != patchNew || errs != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	// The diff on stdin, with drift and wrong numbers: careful apply.
	drifted := "zero\n" + patchOld
	code, out, errs := patchRun(t, strings.Replace(patchDiff, "@@ -2,3 +2,3 @@", "@@ -20,3 +20,3 @@", 1), "patch", "apply", "--file", patchFiles(t, "old", drifted)[0], "--patch", "-", "-v")
	if code != 0 || out != "zero\n"+patchNew || !strings.Contains(errs, "hunk #1 applied at line 3 (offset -17") {
		t.Errorf("careful: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestPatchCmdApplyFailsWritingNothing(t *testing.T) {
	// The second hunk fits nowhere: the first must not be applied either.
	f := patchFiles(t, "old", strings.Replace(patchOld, "six", "6", 1), "diff", patchDiff)
	code, out, errs := patchRun(t, "", "patch", "apply", "--file", f[0], "--patch", f[1], "--fuzz", "0")
	if code != 1 || out != "" || !strings.Contains(errs, "hunk #2 (@@ -5,2 +5,3 @@, diff line 8)") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// Ambiguous: named as such.
	f = patchFiles(t, "old", "a\nb\nc\na\nb\nc\n", "diff", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
	code, out, errs = patchRun(t, "", "patch", "apply", "--file", f[0], "--patch", f[1])
	if code != 1 || out != "" || !strings.Contains(errs, "hunk #1") || !strings.Contains(errs, "2 places") || !strings.Contains(errs, "--strict") {
		t.Errorf("ambiguous: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// Whitespace damage needs -l.
	f = patchFiles(t, "old", "a\n\tb\nc\n", "diff", "@@ -1,3 +1,3 @@\n a\n-    b\n+B\n c\n")
	if code, out, _ := patchRun(t, "", "patch", "apply", "--file", f[0], "--patch", f[1], "--fuzz", "0"); code != 1 || out != "" {
		t.Errorf("without -l: exit %d, stdout %q", code, out)
	}
	if code, out, _ := patchRun(t, "", "patch", "apply", "--file", f[0], "--patch", f[1], "-l"); code != 0 || out != "a\nB\nc\n" {
		t.Errorf("with -l: exit %d, stdout %q", code, out)
	}
	// A missing file is a failure of the work.
	if code, out, _ := patchRun(t, "", "patch", "apply", "--file", filepath.Join(t.TempDir(), "nope"), "--patch", f[1]); code != 1 || out != "" {
		t.Errorf("missing file: exit %d, stdout %q", code, out)
	}
}

func TestPatchCmdDiff(t *testing.T) {
	f := patchFiles(t, "old", patchOld, "new", patchNew)
	code, out, errs := patchRun(t, "", "patch", "diff", f[0], f[1], "-U", "1")
	want := "--- " + f[0] + "\n+++ " + f[1] + "\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n@@ -6 +6,2 @@\n six\n+seven\n"
	if code != 0 || out != want || errs != "" {
		t.Errorf("exit %d, stdout %q, stderr %q\nwant %q", code, out, errs, want)
	}
	// What diff writes, apply reads back.
	code, out, _ = patchRun(t, "", "patch", "diff", "-U", "0", f[0], f[1])
	d := patchFiles(t, "diff", out)
	if code2, got, _ := patchRun(t, "", "patch", "apply", "--strict", "--file", f[0], "--patch", d[0]); code != 0 || code2 != 0 || got != patchNew {
		t.Errorf("round trip: %d %d %q", code, code2, got)
	}
	// Equal texts: no output, success; NEW from stdin.
	if code, out, _ := patchRun(t, patchOld, "patch", "diff", f[0], "-"); code != 0 || out != "" {
		t.Errorf("equal: exit %d, stdout %q", code, out)
	}
}

func TestPatchCmdUsage(t *testing.T) {
	for _, args := range [][]string{
		{"patch"},
		{"patch", "frobnicate"},
		{"patch", "apply"},
		{"patch", "apply", "--file", "x"},
		{"patch", "apply", "--file", "-", "--patch", "-"},
		{"patch", "apply", "--file", "x", "--patch", "y", "extra"},
		{"patch", "apply", "--file", "x", "--patch", "y", "--fuzz", "-1"},
		{"patch", "apply", "--bogus"},
		{"patch", "diff", "only-one"},
		{"patch", "diff", "a", "b", "-U", "-2"},
	} {
		if code, out, errs := patchRun(t, "", args...); code != 2 || out != "" || !strings.Contains(errs, "usage: dialect patch") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}
