package executor

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

func TestToolsCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rec.json")
	tools, err := NewTools(map[string]ToolConfig{
		"record": {Command: helperArgv(t, "record", out, "--verb={verb}", "{song}")},
		"spam":   {Command: helperArgv(t, "spam"), MaxOutput: 1000},
		"quiet":  {Command: helperArgv(t, "print")},
		"fail":   {Command: helperArgv(t, "fail")},
	})
	if err != nil {
		t.Fatal(err)
	}
	in := intent.Custom{Verb: "play", MapsTo: "record", Args: map[string]any{"song": "Hey Jude; rm -rf ~"}, TemplateApplied: "play Hey Jude"}
	r, err := tools.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "recorded" {
		t.Errorf("text = %q", r.Text)
	}
	rec := readRecord(t, out)
	want, _ := intent.Marshal(in)
	if rec.Stdin != string(want) {
		t.Errorf("stdin = %q, want %q", rec.Stdin, want)
	}
	if !slices.Equal(rec.Argv, []string{"--verb=play", "Hey Jude; rm -rf ~"}) {
		t.Errorf("argv = %q", rec.Argv)
	}

	r, err = tools.Run(context.Background(), intent.Custom{Verb: "s", MapsTo: "spam"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Text) > 1100 || !strings.HasSuffix(r.Text, "sss") {
		t.Errorf("spam output %d bytes: not bounded", len(r.Text))
	}
	r, err = tools.Run(context.Background(), intent.Custom{Verb: "q", MapsTo: "quiet"})
	if err != nil || r.Text != "(quiet returned nothing)" {
		t.Errorf("quiet: %q %v", r.Text, err)
	}
	if _, err := tools.Run(context.Background(), intent.Custom{Verb: "f", MapsTo: "fail"}); codes.Of(err) != codes.CommandFailed || !strings.Contains(err.Error(), "the tool fail") {
		t.Errorf("fail: %v", err)
	}
	if _, err := tools.Run(context.Background(), intent.Custom{Verb: "x", MapsTo: "nope"}); codes.Of(err) != codes.NotConfigured || !strings.Contains(err.Error(), "tools: fail, quiet, record, spam") {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestToolsHTTP(t *testing.T) {
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		if r.URL.Path == "/err" {
			http.Error(w, "tool broke", 500)
			return
		}
		w.Write([]byte("Now playing \x1b[1mHey Jude\x1b[0m\n"))
	}))
	defer srv.Close()
	tools, err := NewTools(map[string]ToolConfig{"player": {URL: srv.URL + "/play"}, "broken": {URL: srv.URL + "/err"}})
	if err != nil {
		t.Fatal(err)
	}
	in := intent.Custom{Verb: "play", MapsTo: "player", Args: map[string]any{"song": "Hey Jude"}}
	r, err := tools.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := intent.Marshal(in)
	if string(body) != string(want) {
		t.Errorf("body = %q", body)
	}
	if r.Text != "Now playing Hey Jude" {
		t.Errorf("text = %q", r.Text)
	}
	if d := r.Data.(ToolData); d.Status != 200 || d.Tool != "player" {
		t.Errorf("data = %+v", d)
	}
	if _, err := tools.Run(context.Background(), intent.Custom{Verb: "b", MapsTo: "broken"}); codes.Of(err) != codes.HTTPStatus || !strings.Contains(err.Error(), "tool broke") {
		t.Errorf("broken: %v", err)
	}
}

func TestToolsConfigErrors(t *testing.T) {
	for key, cfg := range map[string]ToolConfig{
		"tools.neither":    {},
		"tools.both":       {Command: []string{"x"}, URL: "http://x"},
		"tools.badurl.url": {URL: "file:///x"},
	} {
		name := strings.Split(key, ".")[1]
		_, err := NewTools(map[string]ToolConfig{name: cfg})
		if got := configKey(err); got != key {
			t.Errorf("%s: error %v at key %q", key, err, got)
		}
	}
}
