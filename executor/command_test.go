package executor

import (
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
)

func TestExpandArgvOnePass(t *testing.T) {
	vars := map[string]string{"domain": "agent", "target": "bob", "content": "literal {target} and {domain}", "via": ""}
	tmpl := []string{"cap.sh", "--to", "{target}", "--text", "{content}", "{domain}:{target}", "{not a placeholder}", "{", "}{", "x{via}y"}
	want := []string{"cap.sh", "--to", "bob", "--text", "literal {target} and {domain}", "agent:bob", "{not a placeholder}", "{", "}{", "xy"}
	for i := 0; i < 50; i++ { // map order must not matter
		got, err := expandArgv(tmpl, vars, false)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("got %q\nwant %q", got, want)
		}
	}
	// A value that names another placeholder, or itself, is still text.
	got, err := expandArgv([]string{"{a}{b}"}, map[string]string{"a": "{b}", "b": "{a}"}, false)
	if err != nil || got[0] != "{b}{a}" {
		t.Errorf("crossed values: %q %v", got, err)
	}
	if _, err := expandArgv([]string{"play", "{artist}"}, map[string]string{"song": "x"}, false); codes.Of(err) != codes.MissingArg || !strings.Contains(err.Error(), "{artist}") {
		t.Errorf("unfilled placeholder: %v", err)
	}
	if got, err := expandArgv([]string{"rm", "{f}"}, map[string]string{"f": "-rf /"}, false); err != nil || got[1] != "-rf /" {
		t.Errorf("dash allowed: %q %v", got, err)
	}
	if _, err := expandArgv([]string{"rm", "--", "{f}"}, map[string]string{"f": "-rf /"}, true); codes.Of(err) != codes.MalformedSyntax {
		t.Errorf("dash refused: %v", err)
	}
	if got, _ := expandArgv([]string{"{x}"}, map[string]string{"x": "a\x00b"}, false); got[0] != "ab" {
		t.Errorf("NUL: %q", got)
	}
}

func TestTemplateConfig(t *testing.T) {
	for key, cfg := range map[string]Config{
		"send.targets.c.command":     {Send: SendOptions{Targets: map[string]TargetConfig{"c": {Type: "command", Command: []string{"x", "{who}"}}}}},
		"send.targets.c.dash_values": {Send: SendOptions{Targets: map[string]TargetConfig{"c": {Type: "command", Command: []string{"x"}, DashValues: "never"}}}},
		"web.command":                {Web: WebOptions{Command: []string{"search", "{q}"}}},
		"tools.t.dash_values":        {Tools: map[string]ToolConfig{"t": {Command: []string{"x"}, DashValues: "no"}}},
	} {
		_, err := New(cfg, nil, nil)
		if got := configKey(err); got != key {
			t.Errorf("%s: error %v at key %q", key, err, got)
		}
	}
}
