package executor

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// ToolConfig is one tool a custom verb maps to ([exec.tools.NAME]): a
// command or an HTTP endpoint that receives the intent as JSON.
type ToolConfig struct {
	// Command is the argv to run; the intent JSON arrives on stdin. {verb}
	// and {name} for every captured argument are replaced inside
	// elements, in one pass, each staying one argument; a placeholder the
	// action does not fill is MISSING_ARG and nothing runs.
	Command []string `toml:"command"`
	// DashValues says what a substituted value that starts with '-' does:
	// "allow" (the default) passes it as written, "refuse" fails the
	// action so that no value can be read as an option.
	DashValues string `toml:"dash_values"`
	// URL receives the intent JSON as a POST. Exactly one of Command and
	// URL is set.
	URL string `toml:"url"`
	// Headers are sent with the POST; ${NAME} is read from the environment.
	Headers map[string]string `toml:"headers"`
	// Env names environment variables passed to the command besides PATH,
	// HOME, LANG, LC_ALL, TZ and TMPDIR.
	Env []string `toml:"env"`
	// Timeout bounds one call. Default 30s.
	Timeout Duration `toml:"timeout"`
	// MaxOutput bounds the result text taken from the response or the
	// command's standard output. Default 16 KiB.
	MaxOutput int `toml:"max_output"`
}

// Tools runs the configured tools. It is safe for concurrent use.
type Tools struct {
	tools  map[string]ToolConfig
	client *http.Client
}

// ToolData is the Data of a tool Result.
type ToolData struct {
	Tool   string `json:"tool"`
	Status int    `json:"status,omitempty"` // HTTP status for an endpoint
	Output string `json:"output"`
}

// NewTools checks the tools and returns their runner.
func NewTools(tools map[string]ToolConfig) (*Tools, error) {
	for name, t := range tools {
		hasCmd, hasURL := len(t.Command) > 0 && t.Command[0] != "", t.URL != ""
		if hasCmd == hasURL {
			return nil, configErr("tools."+name, "needs exactly one of command and url")
		}
		if hasURL && !strings.HasPrefix(t.URL, "http://") && !strings.HasPrefix(t.URL, "https://") {
			return nil, configErr("tools."+name+".url", "must be http or https")
		}
	}
	return &Tools{tools: tools, client: newHTTPClient()}, nil
}

// Has reports whether a tool is configured under name.
func (t *Tools) Has(name string) bool {
	_, ok := t.tools[name]
	return ok
}

// Run calls the tool in.MapsTo names with intent.Marshal(in) and returns
// its answer as the result text.
func (t *Tools) Run(ctx context.Context, in intent.Custom) (Result, error) {
	tool, ok := t.tools[in.MapsTo]
	if !ok {
		names := make([]string, 0, len(t.tools))
		for n := range t.tools {
			names = append(names, n)
		}
		sort.Strings(names)
		return Result{}, codes.Wrap(codes.NotConfigured, nil, "/%s maps to %q, which is not a configured tool (tools: %s)", in.Verb, in.MapsTo, strings.Join(names, ", "))
	}
	payload, err := intent.Marshal(in)
	if err != nil {
		return Result{}, codes.Wrap(codes.MalformedSyntax, err, "the intent could not be encoded")
	}
	timeout, maxOut := tool.Timeout.or(30*time.Second), orInt(tool.MaxOutput, 16<<10)
	data := ToolData{Tool: in.MapsTo}
	if tool.URL != "" {
		spec := httpSpec{headers: tool.Headers, timeout: timeout, maxOutput: maxOut}
		data.Output, data.Status, err = spec.do(ctx, t.client, tool.URL, payload)
	} else {
		vars := map[string]string{}
		for k, v := range in.Args {
			vars[k] = fmt.Sprint(v)
		}
		vars["verb"] = in.Verb // the runtime's, not an argument's
		var argv []string
		if argv, err = expandArgv(tool.Command, vars, tool.DashValues == "refuse"); err == nil {
			spec := commandSpec{env: tool.Env, timeout: timeout, maxOutput: maxOut}
			data.Output, err = spec.run(ctx, argv, payload)
		}
	}
	if err != nil {
		if e, ok := err.(*codes.Error); ok {
			return Result{}, &codes.Error{Code: e.Code, Msg: "the tool " + in.MapsTo + ": " + e.Msg, Err: e.Err}
		}
		return Result{}, err
	}
	data.Output = strings.TrimSpace(Clean(data.Output))
	text := data.Output
	if text == "" {
		text = "(" + in.MapsTo + " returned nothing)"
	}
	return Result{Text: text, Data: data}, nil
}
