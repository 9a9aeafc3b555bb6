package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSmall runs the evaluation on 8,000 rows: the same code as the
// 1M-row run, with checks on what it finds rather than on timings.
func TestRunSmall(t *testing.T) {
	cfg := config{rows: 8000, batch: 1000, days: 7, seed: 3, db: filepath.Join(t.TempDir(), "eval.db")}
	res, err := run(context.Background(), cfg, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if res.report.Failures != cfg.rows {
		t.Errorf("report counts %d failures, generated %d", res.report.Failures, cfg.rows)
	}
	if len(res.report.Models) != 8 {
		t.Errorf("%d models, want 8", len(res.report.Models))
	}
	// The planted frequent near-verbs (2% of rows each) must rank near the
	// top of the alias list.
	if res.plantedRecalled != len(planted()) {
		t.Errorf("planted aliases in the top %d: %d; aliases: %+v", topPlanted, res.plantedRecalled, res.report.Aliases[:min(topPlanted, len(res.report.Aliases))])
	}
	var out bytes.Buffer
	res.print(&out)
	for _, want := range []string{"rows/s", "report --since 7d, cold"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	if _, err := run(context.Background(), config{rows: 0, batch: 1, days: 1, db: filepath.Join(t.TempDir(), "x.db")}, nil); err == nil {
		t.Error("rows=0 accepted")
	}
}
