package main

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestChild runs the smallest case of each kind in this process and reads
// its report: the outcome each must have, and figures that parse.
func TestChild(t *testing.T) {
	want := map[string]string{
		"patch/sameline/15000":   "ambiguous",
		"patch/sections/15000":   "ambiguous",
		"patch/manyhunks/2500":   "applied",
		"patch/chain/2000":       "applied",
		"grammar/wildcards/8":    "work_limit",
		"patch/chain/2000 +1ms ": "timeout",
	}
	names := map[string]bool{}
	for _, m := range cases() {
		if names[m.name] {
			t.Errorf("two cases named %s", m.name)
		}
		names[m.name] = true
	}
	for name, outcome := range want {
		deadline := time.Duration(0)
		if strings.HasSuffix(name, " +1ms ") {
			name, deadline = strings.TrimSuffix(name, " +1ms "), time.Millisecond
		}
		if !names[name] {
			t.Fatalf("no case %s", name)
		}
		var out strings.Builder
		if err := child(&out, name, false, deadline); err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(out.String())
		if len(f) != 3 || f[0] != outcome {
			t.Errorf("%s: %q, want %s", name, out.String(), outcome)
			continue
		}
		for _, x := range f[1:] {
			if v, err := strconv.ParseFloat(x, 64); err != nil || v < 0 {
				t.Errorf("%s: figure %q", name, x)
			}
		}
	}
	if err := child(&strings.Builder{}, "no/such", false, 0); err == nil {
		t.Error("no error for an unknown case")
	}
}
