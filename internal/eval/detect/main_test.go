package main

import (
	"bytes"
	"strings"
	"testing"
)

// The evaluation's code on a small fixture of the same shape as the real
// outputs (handwritten, so it stays in the repository).
func TestEvaluateFixture(t *testing.T) {
	msgs, err := loadOutputs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	sum := evaluate(msgs, vocabulary(), 5, 1)
	if sum.messages != 4 || sum.executable != 0 || sum.mismatches != 0 {
		t.Fatalf("summary %+v", sum)
	}
	// /f and /ban are mentions, /recall in the code block is reported as
	// inside code; /help is code and no verb, /usr/bin/env and
	// /ɪnˈtɜːprɪt/ paths, /recall/ a path, the URL not at a boundary.
	if sum.candidates != 3 || sum.reasons["mid-message"] != 2 || sum.reasons["inside code"] != 1 {
		t.Errorf("candidates %d, reasons %v", sum.candidates, sum.reasons)
	}
	if want := 4 * (5 + 5); sum.checks != want {
		t.Errorf("%d chunked scans, want %d", sum.checks, want)
	}
	var out bytes.Buffer
	sum.print(&out)
	for _, s := range []string{"messages:             4", "executable:           0", "chunk independence:   identical"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, out.String())
		}
	}
}

func TestEvaluateCountsExecutable(t *testing.T) {
	sum := evaluate([]message{{id: "x", text: []byte("Sure.\n/recall notes\n")}}, vocabulary(), 1, 1)
	if sum.executable != 1 || len(sum.examples) != 1 {
		t.Errorf("an executable action was not counted: %+v", sum)
	}
}

func TestMemTableFixture(t *testing.T) {
	msgs, err := loadOutputs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var corpus [][]byte
	for _, m := range msgs {
		corpus = append(corpus, m.text)
	}
	rows := memTable(corpus, []int{64 << 10, 256 << 10}, 20, 1)
	if len(rows) != 2 || rows[1].size != 256<<10 || rows[1].actions <= rows[0].actions || rows[0].elapsed <= 0 {
		t.Fatalf("rows %+v", rows)
	}
	var out bytes.Buffer
	printMem(&out, rows)
	if !strings.Contains(out.String(), "peak heap") {
		t.Errorf("table:\n%s", out.String())
	}
}

func TestLoadOutputsErrors(t *testing.T) {
	if _, err := loadOutputs(t.TempDir()); err == nil {
		t.Error("no error for a directory without outputs")
	}
}

func TestSpeedFixture(t *testing.T) {
	msgs, err := loadOutputs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var texts [][]byte
	total := 0
	for _, m := range msgs {
		texts = append(texts, m.text)
		total += len(m.text)
	}
	rows := speed(texts, 2)
	if len(rows) != 6 {
		t.Fatalf("rows %+v", rows)
	}
	for _, r := range rows {
		if r.best <= 0 || r.name == "" {
			t.Errorf("row %+v", r)
		}
	}
	var out bytes.Buffer
	printSpeed(&out, rows, total)
	if !strings.Contains(out.String(), "scanner, 4-byte writes") || !strings.Contains(out.String(), "io.Discard") {
		t.Errorf("table:\n%s", out.String())
	}
}
