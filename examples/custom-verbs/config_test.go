// Package customverbs holds an example dialect.toml with custom verbs and
// the test that keeps it loading and behaving as its comments say.
package customverbs

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pattern-dialect/dialect"
)

func TestCustomVerbsConfig(t *testing.T) {
	cfg, err := dialect.LoadConfig(dialect.DefaultLookup("dialect.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != "dialect.toml" {
		t.Errorf("loaded %q", cfg.Source)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "cv.db")
	rt, err := dialect.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	msg := "Noted.\n" +
		"/jot down + \"buy milk\"\n" +
		"/heads up partner seems stressed\n" +
		"/announce the beta opens on Monday\n" +
		"/retrie the old billing service\n" +
		"/decommission old billing\n"
	res, err := rt.Run(context.Background(), dialect.Message{Text: msg, Agent: "worker"})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		token, verb string
		status      dialect.Status
		code        string
	}{
		{"jot down", "recall", dialect.StatusOK, ""},
		{"heads up", "notify", dialect.StatusOK, ""},
		{"announce", "announce", dialect.StatusPending, "PENDING_APPROVAL"},
		{"retrie", "", dialect.StatusError, "UNKNOWN_VERB"},
		{"decommission", "retire", dialect.StatusPending, "PENDING_APPROVAL"},
	}
	if len(res) != len(want) {
		t.Fatalf("%d results: %+v", len(res), res)
	}
	for i, w := range want {
		r := res[i]
		if r.Token != w.token || r.Verb != w.verb || (w.status != "" && (r.Status != w.status || string(r.Code) != w.code)) {
			t.Errorf("result %d: %s → %q %s %s (%s), want %s → %q %s %s", i, r.Token, r.Verb, r.Status, r.Code, r.Output, w.token, w.verb, w.status, w.code)
		}
	}
	if got := res[0].Output; got == "" {
		t.Error("the insert said nothing")
	}
}
