package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestHelpEverywhere: -h and --help print a command's usage to stdout and
// exit 0, for every command and subcommand.
func TestHelpEverywhere(t *testing.T) {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	subs := map[string][]string{
		"grammar": {"check", "match"}, "patch": {"apply", "diff"}, "exec": {"calc", "fetch"},
		"config": {"check"}, "failures": {"prune", "list"},
	}
	for _, n := range names {
		forms := [][]string{{n, "-h"}, {n, "--help"}, {"help", n}}
		for _, s := range subs[n] {
			forms = append(forms, []string{n, s, "-h"}, []string{n, s, "--help"})
		}
		for _, args := range forms {
			code, out, errs := runCmd(t, args...)
			if code != 0 || !strings.HasPrefix(out, "usage: dialect "+n) || errs != "" {
				t.Errorf("%v: exit %d, stdout %.60q, stderr %q", args, code, out, errs)
			}
		}
	}
	if code, out, _ := runCmd(t, "--help"); code != 0 || !strings.Contains(out, "commands:") {
		t.Errorf("dialect --help: %d %q", code, out)
	}
}

// TestVersion: dialect version and dialect --version print the build.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := runCmd(t, args...)
		if code != 0 || !regexp.MustCompile(`^dialect \S+.* go1\.\d+`).MatchString(out) {
			t.Errorf("%v: %d %q", args, code, out)
		}
	}
	if code, _, _ := runCmd(t, "version", "extra"); code != 2 {
		t.Errorf("version with an argument: exit %d, want 2", code)
	}
}

// TestFlagsAfterArguments: flags may come before or after arguments, and
// --config means the configuration file for every command that reads one.
func TestFlagsAfterArguments(t *testing.T) {
	e := newRunEnv(t, "[dialect.verbs.recall]\nextra_aliases = [\"memorize\"]\n")
	for _, args := range [][]string{
		{"resolve", "memorize", "--json", "--config", e.config},
		{"resolve", "--config", e.config, "memorize", "--json"},
		{"parse", "/memorize x", "--json", "--config", e.config},
		{"parse", "--json", "--config", e.config, "/memorize", "x"},
	} {
		code, out, errs := runCmd(t, args...)
		if code != 0 || !strings.Contains(out, `"verb":"recall"`) {
			t.Errorf("%v: exit %d %s %s", args, code, out, errs)
		}
	}
	code, out, _ := runCmd(t, "verbs", "--json", "--config", e.config)
	if code != 0 || !strings.Contains(out, `"memorize"`) {
		t.Errorf("verbs --config: %d", code)
	}
	if code, _, errs := runCmd(t, "parse", "--", "/recall", "-x"); code != 0 {
		t.Errorf("parse -- /recall -x: %d %s", code, errs)
	}
}

// TestConfigCheckAsRun: config check makes the checks dialect run makes,
// each at its file, line, column and key.
func TestConfigCheckAsRun(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ toml, where string }{
		{"[exec.send.targets.hook]\ntype = \"webhook\"\nurl = \"ftp://x\"\n", ":3:1: key \"exec.send.targets.hook.url\""},
		{"[exec.fetch]\nmax_bytes = 9223372036854775807\n", ":2:1: key \"exec.fetch.max_bytes\""},
		{"[exec.web]\nurl = \"https://x.test/search\"\n", ":2:1: key \"exec.web.url\""},
		{"[exec.tools.calc]\ncommand = [\"x\"]\n", ":1:1: key \"exec.tools.calc\""},
		{"[dialect.verbs.notify]\nmaps_to = \"teleport\"\n", ":2:1: key \"dialect.verbs.notify.maps_to\""},
		{"[exec.send.targets.c]\ntype = \"command\"\ncommand = [\"x\", \"{who}\"]\n", ":3:1: key \"exec.send.targets.c.command\""},
	} {
		path := filepath.Join(dir, "c.toml")
		if err := os.WriteFile(path, []byte(c.toml), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCmd(t, "config", "check", "--config", path)
		if code != 2 || !strings.Contains(errs, path+c.where) {
			t.Errorf("%q: exit %d, %s; want %s", c.toml, code, errs, c.where)
		}
		rcode, _, rerrs := runCLI(t, "/calc 1\n", "run", "--config", path, "--db", filepath.Join(dir, "d.db"))
		if rcode != 2 || !strings.Contains(rerrs, path+c.where) {
			t.Errorf("run with %q: exit %d, %s", c.toml, rcode, rerrs)
		}
	}
}

// TestMaxActionBytesReachesTheParser: one setting bounds the scanner and
// the parser alike.
func TestMaxActionBytesReachesTheParser(t *testing.T) {
	e := newRunEnv(t, "[detect]\nmax_action_bytes = 200000\n")
	big := "/recall + \"" + strings.Repeat("x", 40<<10) + "\"\n" // over the parser's old fixed 64 KiB, arguments and content together
	_, out, errs := e.cli(big, "run", "--json")
	if rs := results(t, out); len(rs) != 1 || rs[0]["status"] != "ok" {
		t.Errorf("a 40 KiB quoted action under a 200 KB limit: %s %s", out[:min(len(out), 300)], errs)
	}
	e2 := newRunEnv(t, "[detect]\nmax_action_bytes = 1000\n")
	_, out, _ = e2.cli("/recall + \""+strings.Repeat("y", 2000)+"\"\n", "run", "--json")
	if rs := results(t, out); len(rs) != 1 || rs[0]["code"] != "INPUT_TOO_LARGE" {
		t.Errorf("2 KB under a 1000-byte limit: %s", out[:min(len(out), 300)])
	}
}
