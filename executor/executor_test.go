package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/verbs"
)

// The [exec] table decodes onto Config as docs/executors.md shows.
func TestConfigTOML(t *testing.T) {
	src := `
[calc]
max_expr_bytes = 500
timeout = "250ms"

[fetch]
max_bytes = 1048576
chunk_bytes = 8000
timeout = "5s"
max_redirects = 2
allow_private = true

[web]
url = "https://api.search.brave.com/res/v1/web/search?q={query}"
headers = { X-Subscription-Token = "${BRAVE_API_KEY}" }
results = "web.results"
link = "url"
snippet = "description"

[send.targets.log]
type = "file"
path = "/tmp/sent.jsonl"

[send.targets.anchor]
type = "webhook"
url = "https://hooks.example/anchor"
timeout = "3s"

[send.routes]
user = "stdout"
"agent:anchor" = "anchor"
"*" = "log"

[tools.player]
command = ["music-ctl", "play", "{song}"]
env = ["MUSIC_HOST"]
`
	var cfg Config
	dec := toml.NewDecoder(strings.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Calc.Timeout.Milliseconds() != 250 || cfg.Fetch.MaxRedirects != 2 || !cfg.Fetch.AllowPrivate ||
		cfg.Web.Results != "web.results" || cfg.Send.Targets["anchor"].Timeout.Seconds() != 3 ||
		cfg.Send.Routes["agent:anchor"] != "anchor" || cfg.Tools["player"].Command[2] != "{song}" {
		t.Errorf("decoded %+v", cfg)
	}
	if _, err := New(cfg, nil, nil); err != nil {
		t.Errorf("New: %v", err)
	}
}

func TestExecuteDispatch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "tool says hi")
	}))
	defer srv.Close()
	var out bytes.Buffer
	x, err := New(Config{
		Fetch: FetchOptions{AllowPrivate: true},
		Tools: map[string]ToolConfig{"greeter": {URL: srv.URL}},
	}, &out, nil)
	if err != nil {
		t.Fatal(err)
	}
	ex := x.Executors()
	ctx := context.Background()
	tests := []struct {
		name, runs, route string
		in                intent.Intent
		want              string
		code              codes.Code
	}{
		{"calc", "calc", "", intent.Calc{Expr: "20% of 350"}, "70", ""},
		{"fetch", "fetch", "", intent.Fetch{URL: srv.URL}, "tool says hi", ""},
		{"send", "send", "stdout", intent.Send{Domain: "user", Content: "hello"}, "sent to @user (stdout)", ""},
		{"send unrouted", "send", "", intent.Send{Domain: "user", Content: "hello"}, "", codes.NotConfigured},
		{"tool", "greeter", "", intent.Custom{Verb: "greet", MapsTo: "greeter"}, "tool says hi", ""},
		{"web unconfigured", "web", "", intent.Web{Query: "x"}, "", codes.NotConfigured},
		{"calc given a recall", "calc", "", intent.Recall{Op: intent.RecallRead, Block: "x"}, "", codes.UnsupportedIntent},
		{"nil", "calc", "", nil, "", codes.UnsupportedIntent},
	}
	if ex["nothing"] != nil || ex["recall"] != nil {
		t.Error("the executors of the set are calc, fetch, web, send and the tools")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ex[tt.runs].Execute(ctx, verbs.Call{Verb: tt.name, Runs: tt.runs, Route: tt.route, Intent: tt.in})
			if tt.code != "" {
				if codes.Of(err) != tt.code {
					t.Fatalf("err = %v, want %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Text, tt.want) {
				t.Errorf("text = %q, want %q", r.Text, tt.want)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Errorf("result is not JSON-able: %v", err)
			}
		})
	}
	if out.String() != "[@user] hello\n" {
		t.Errorf("stdout = %q", out.String())
	}
}

func ExampleCalc_Eval() {
	c := NewCalc(CalcOptions{})
	for _, e := range []string{"radius = 5; pi * radius^2", "15% off 80", "5 feet to meters", "70 F to C"} {
		r, err := c.Eval(context.Background(), intent.Calc{Expr: e})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(r.Text)
	}
	// Output:
	// 78.5398163397
	// 68
	// 5 ft = 1.524 m
	// 70 °F = 21.11111 °C
}

func ExampleSender_Send() {
	s, _ := NewSender(SendOptions{}, os.Stdout) // by default @user goes to stdout
	r, err := s.Send(context.Background(), intent.Send{Domain: "user", Content: "build \x1b[31mfailed\x1b[0m"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Text)
	_, err = s.Send(context.Background(), intent.Send{Domain: "bluesky", Content: "hi"})
	fmt.Println(codes.Of(err))
	// Output:
	// [@user] build failed
	// sent to @user (stdout)
	// NOT_CONFIGURED
}

func TestConfigRanges(t *testing.T) {
	for key, cfg := range map[string]Config{
		"fetch.max_bytes":              {Fetch: FetchOptions{MaxBytes: math.MaxInt64}},
		"fetch.chunk_bytes":            {Fetch: FetchOptions{ChunkBytes: -1}},
		"calc.max_nodes":               {Calc: CalcOptions{MaxNodes: 1 << 40}},
		"web.max_results":              {Web: WebOptions{MaxResults: -3}},
		"send.targets.hook.max_output": {Send: SendOptions{Targets: map[string]TargetConfig{"hook": {Type: "stdout", MaxOutput: -1}}}},
		"tools.t.timeout":              {Tools: map[string]ToolConfig{"t": {Command: []string{"x"}, Timeout: Duration{-time.Second}}}},
		"tools.a b":                    {Tools: map[string]ToolConfig{"a b": {Command: []string{"x"}}}},
		"fetch.cache_ttl":              {Fetch: FetchOptions{CacheTTL: Duration{-1}}},
	} {
		_, err := New(cfg, nil, nil)
		if got := configKey(err); got != key {
			t.Errorf("%s: error %v at key %q", key, err, got)
		}
	}
	if _, err := New(Config{Fetch: FetchOptions{MaxBytes: 1 << 30}}, nil, nil); err != nil {
		t.Errorf("the largest size allowed: %v", err)
	}
}
