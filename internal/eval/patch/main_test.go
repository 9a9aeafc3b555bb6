package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvaluateFixture runs the evaluation on the small fixture in testdata:
// every variant is generated, ours never writes a wrong text, and the
// exact diffs all apply (with GNU patch too when it is installed).
func TestEvaluateFixture(t *testing.T) {
	changes, err := loadChanges(filepath.Join("testdata", "diffs"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{seed: 1}
	if p, err := exec.LookPath("patch"); err == nil {
		cfg.gnu = p
	} else {
		t.Log("GNU patch not installed: its columns are not checked")
	}
	res, err := evaluate(context.Background(), changes, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.rows) != len(generators()) {
		t.Fatalf("%d rows for %d generators", len(res.rows), len(generators()))
	}
	for _, r := range res.rows {
		if r.n == 0 {
			t.Errorf("%s: no change was perturbed", r.name)
		}
		if r.ours[wrong] != 0 {
			t.Errorf("%s: ours silently wrong %d times: %v", r.name, r.ours[wrong], r.misses)
		}
		switch r.name {
		case "exact", "created", "headers":
			if r.ours[right] != r.n || r.strict[right] != r.n || cfg.gnu != "" && r.gnu[right] != r.n {
				t.Errorf("%s: %+v", r.name, r)
			}
		case "drift", "lines", "counts", "bare":
			if r.ours[right] != r.n {
				t.Errorf("%s: ours right %d of %d: %v", r.name, r.ours[right], r.n, r.misses)
			}
			if r.strict[right] == r.n {
				t.Errorf("%s: the variant did not perturb anything a strict apply notices", r.name)
			}
		case "whitespace", "mixed":
			if r.ours[right] != r.n || r.name == "whitespace" && cfg.gnu != "" && r.gnu[right] != r.n {
				t.Errorf("%s with -l: %+v", r.name, r)
			}
		}
	}
	var out bytes.Buffer
	res.print(&out, cfg)
	for _, want := range []string{"exact ", "drift ", "whitespace, -l", "variants:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

// TestVariantsDeterministic: the same seed gives the same variants.
func TestVariantsDeterministic(t *testing.T) {
	changes, err := loadChanges(filepath.Join("testdata", "diffs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range generators() {
		for _, ch := range changes {
			a, okA, errA := g.gen(ch, rngFor(7, g.name, ch.name))
			b, okB, errB := g.gen(ch, rngFor(7, g.name, ch.name))
			if a != b || okA != okB || (errA == nil) != (errB == nil) {
				t.Errorf("%s %s: two runs differ", g.name, ch.name)
			}
		}
	}
}

func TestTimeApplyAll(t *testing.T) {
	changes, err := loadChanges(filepath.Join("testdata", "diffs"))
	if err != nil {
		t.Fatal(err)
	}
	if d, err := timeApplyAll(changes, 2); err != nil || d <= 0 {
		t.Errorf("timeApplyAll = %v, %v", d, err)
	}
	broken := append([]change(nil), changes...)
	broken[0].dif = "not a diff"
	if _, err := timeApplyAll(broken, 1); err == nil {
		t.Error("a change that does not apply was not reported")
	}
}

func TestTwice(t *testing.T) {
	changes, err := loadChanges(filepath.Join("testdata", "diffs"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := twice(context.Background(), changes, config{})
	if err != nil {
		t.Fatal(err)
	}
	if r.n != len(changes) || r.ours[wrong] != 0 {
		t.Errorf("ours changed a text a second time: %+v", r.ours)
	}
}
