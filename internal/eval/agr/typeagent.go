package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// driverJS is the Node script that times TypeAgent's matcher.
//
//go:embed typeagent.mjs
var driverJS []byte

// typeAgent times TypeAgent's own matcher on this machine, in the same
// run as grammarbridge's (-typeagent): timings.tsv was measured on this
// kind of machine, but this one's speed swings by two times and more
// between minutes, and a ratio is only sound between timings taken
// together.
type typeAgent struct {
	node   string // the node executable
	script string // driverJS, written to a temporary directory
	pkg    string // TypeAgent's actionGrammar package, built
}

// newTypeAgent checks that pkg is a built actionGrammar package and that
// node can be found, and writes the driver to a temporary directory,
// which cleanup removes.
func newTypeAgent(pkg string) (ta *typeAgent, cleanup func(), err error) {
	if _, err := os.Stat(filepath.Join(pkg, "dist", "index.js")); err != nil {
		return nil, nil, fmt.Errorf("-typeagent %s: not a built actionGrammar package (want dist/index.js): %w", pkg, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, nil, fmt.Errorf("-typeagent needs node: %w", err)
	}
	dir, err := os.MkdirTemp("", "agr-typeagent-")
	if err != nil {
		return nil, nil, err
	}
	script := filepath.Join(dir, "typeagent.mjs")
	if err := os.WriteFile(script, driverJS, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	abs, err := filepath.Abs(pkg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return &typeAgent{node: node, script: script, pkg: abs}, func() { os.RemoveAll(dir) }, nil
}

// time returns TypeAgent's mean wall-clock microseconds per input over
// rounds warm rounds of inputs on grammar (a file).
func (t *typeAgent) time(grammar string, inputs []string, rounds int) (float64, error) {
	var in bytes.Buffer
	for _, s := range inputs {
		b, err := json.Marshal(s)
		if err != nil {
			return 0, err
		}
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command(t.node, t.script, t.pkg, grammar, strconv.Itoa(rounds))
	cmd.Stdin = &in
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("TypeAgent on %s: %w: %s", filepath.Base(grammar), err, strings.TrimSpace(errb.String()))
	}
	us, err := strconv.ParseFloat(strings.TrimSpace(out.String()), 64)
	if err != nil || us <= 0 {
		return 0, fmt.Errorf("TypeAgent on %s printed %q, want the µs per input", filepath.Base(grammar), out.String())
	}
	return us, nil
}
