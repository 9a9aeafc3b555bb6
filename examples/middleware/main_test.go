package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestMiddlewareExampleDemo(t *testing.T) {
	var out, errs bytes.Buffer
	db := filepath.Join(t.TempDir(), "ex.db")
	err := run(context.Background(), []string{"-demo", "-config", "../../dialect.toml", "-db", db, "remember", "the", "deadline"}, &out, &errs)
	if err != nil {
		t.Fatalf("%v: %s", err, errs.String())
	}
	got := out.String()
	for _, want := range []string{
		"Got it, I'll keep that in mind.\n\n", // the action lines hidden
		"[ok] /recall → recall: appended to deadlines",
		"[ok] /search → search: ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "+ \"the report") {
		t.Errorf("action line shown:\n%s", got)
	}
}
