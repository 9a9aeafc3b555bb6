package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/internal/pgtest"
	"github.com/pattern-dialect/dialect/store"
)

func TestStoreCopy(t *testing.T) {
	src := reportCmdDB(t) // 20 failures, successes
	dsts := []string{filepath.Join(t.TempDir(), "copy.db")}
	if pgtest.Available() {
		dsts = append(dsts, pgtest.Location(t))
	}
	for _, dst := range dsts {
		for round := range 2 { // a second copy changes nothing
			code, out, errOut := runCmd(t, "store", "copy", "--from", src, "--to", dst, "--json")
			if code != 0 {
				t.Fatalf("round %d: exit %d: %s", round, code, errOut)
			}
			var got struct {
				Tables []store.TableCount `json:"tables"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			n := map[string]int64{}
			for _, c := range got.Tables {
				if c.From != c.To {
					t.Errorf("%+v", c)
				}
				n[c.Table] = c.To
			}
			if n["failures"] != 20 || n["action_counts"] != 1 || len(got.Tables) < 10 {
				t.Errorf("round %d: counts %v", round, n)
			}
		}
		// The copy answers the report as the source does.
		_, want, _ := runCmd(t, "failures", "--db", src, "--json")
		_, have, _ := runCmd(t, "failures", "--db", dst, "--json")
		if want != have || want == "" {
			t.Errorf("failures differ after the copy:\n%s\n%s", want, have)
		}
	}
	code, out, _ := runCmd(t, "store", "copy", "--from", src, "--to", dsts[0])
	if code != 0 || !strings.Contains(out, "failures") || !strings.Contains(out, "20") {
		t.Errorf("table output: %d %q", code, out)
	}
	// A destination with other rows is refused, and left alone.
	other := filepath.Join(t.TempDir(), "other.db")
	if code, _, errOut := runCLI(t, "ok.\n/calc 1+1\n", "run", "--db", other); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runCmd(t, "store", "copy", "--from", src, "--to", other); code != 1 || !strings.Contains(errOut, "nothing was written") {
		t.Errorf("copy into a store with other rows: exit %d, %s", code, errOut)
	}
	for _, args := range [][]string{
		{"store", "copy", "--to", dsts[0]},
		{"store", "copy", "--from", filepath.Join(t.TempDir(), "missing.db"), "--to", dsts[0]},
		{"store", "move"},
		{"store"},
	} {
		if code, _, _ := runCmd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
