package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/verbs"
)

// Config gathers the executors' options: the [exec] table of dialect.toml.
type Config struct {
	Calc  CalcOptions           `toml:"calc"`
	Fetch FetchOptions          `toml:"fetch"`
	Web   WebOptions            `toml:"web"`
	Send  SendOptions           `toml:"send"`
	Tools map[string]ToolConfig `toml:"tools"`
}

// ConfigError is a mistake in the [exec] table: Key is the dotted key
// under [exec] ("send.targets.slack.url") and Msg says what is wrong.
type ConfigError struct {
	Key string
	Msg string
}

func (e *ConfigError) Error() string { return "[exec." + e.Key + "] " + e.Msg }

func configErr(key, format string, a ...any) *ConfigError {
	return &ConfigError{Key: key, Msg: fmt.Sprintf(format, a...)}
}

// Sessions keeps per-session values for an executor: the fetch cursor
// that /fetch continue resumes from. The runtime's store implements it.
type Sessions interface {
	State(ctx context.Context, session, key string) (string, error)
	SetState(ctx context.Context, session, key, value string) error
}

// Set is the executors of one configuration, built and checked together.
type Set struct {
	Calc    *Calc
	Fetcher *Fetcher
	Web     *Web
	Sender  *Sender
	Tools   *Tools

	sessions Sessions
}

// New checks cfg and builds every executor. Deliveries to a stdout target
// are written to out (nil discards them; the delivered text is also in the
// result's SendData). sessions keeps the fetch cursor; nil turns /fetch
// continue off.
func New(cfg Config, out io.Writer, sessions Sessions) (*Set, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	web, err := NewWeb(cfg.Web)
	if err != nil {
		return nil, err
	}
	sender, err := NewSender(cfg.Send, out)
	if err != nil {
		return nil, err
	}
	tools, err := NewTools(cfg.Tools)
	if err != nil {
		return nil, err
	}
	return &Set{
		Calc:     NewCalc(cfg.Calc),
		Fetcher:  NewFetcher(cfg.Fetch),
		Web:      web,
		Sender:   sender,
		Tools:    tools,
		sessions: sessions,
	}, nil
}

// Executors returns the set's executors keyed by what they run
// (verbs.Call.Runs): calc, fetch, web, send, and each configured tool by
// its name.
func (x *Set) Executors() map[string]verbs.Executor {
	m := map[string]verbs.Executor{
		"calc":  verbs.ExecutorFunc(x.calc),
		"fetch": verbs.ExecutorFunc(x.fetch),
		"web":   verbs.ExecutorFunc(x.web),
		"send":  verbs.ExecutorFunc(x.send),
	}
	for name := range x.Tools.tools {
		m[name] = verbs.ExecutorFunc(x.tool)
	}
	return m
}

func output(r Result, err error) (verbs.Output, error) {
	return verbs.Output{Text: r.Text, Data: r.Data}, err
}

func (x *Set) calc(ctx context.Context, c verbs.Call) (verbs.Output, error) {
	in, ok := c.Intent.(intent.Calc)
	if !ok {
		return verbs.Output{}, unsupported(c)
	}
	return output(x.Calc.Eval(ctx, in))
}

func (x *Set) web(ctx context.Context, c verbs.Call) (verbs.Output, error) {
	in, ok := c.Intent.(intent.Web)
	if !ok {
		return verbs.Output{}, unsupported(c)
	}
	return output(x.Web.Search(ctx, in))
}

func (x *Set) send(ctx context.Context, c verbs.Call) (verbs.Output, error) {
	in, ok := c.Intent.(intent.Send)
	if !ok {
		return verbs.Output{}, unsupported(c)
	}
	return output(x.Sender.SendTo(ctx, c.Route, in))
}

func (x *Set) tool(ctx context.Context, c verbs.Call) (verbs.Output, error) {
	in, ok := c.Intent.(intent.Custom)
	if !ok {
		return verbs.Output{}, unsupported(c)
	}
	in.MapsTo = c.Runs
	return output(x.Tools.Run(ctx, in))
}

// fetchCursorKey is where a session's last fetch cursor is kept.
const fetchCursorKey = "fetch.cursor"

// fetch runs /fetch, keeping the session's cursor for /fetch continue.
func (x *Set) fetch(ctx context.Context, c verbs.Call) (verbs.Output, error) {
	in, ok := c.Intent.(intent.Fetch)
	if !ok {
		return verbs.Output{}, unsupported(c)
	}
	var prev *Cursor
	if in.Continue && x.sessions != nil {
		js, err := x.sessions.State(ctx, c.Session, fetchCursorKey)
		if err != nil {
			return verbs.Output{}, err
		}
		if js != "" {
			prev = new(Cursor)
			if json.Unmarshal([]byte(js), prev) != nil {
				prev = nil
			}
		}
	}
	res, err := x.Fetcher.Fetch(ctx, in, prev)
	if err != nil || x.sessions == nil {
		return output(res, err)
	}
	next := ""
	if cur := NextCursor(res); cur != nil {
		b, _ := json.Marshal(cur)
		next = string(b)
	}
	return output(res, x.sessions.SetState(ctx, c.Session, fetchCursorKey, next))
}

func unsupported(c verbs.Call) error {
	kind := "no"
	if c.Intent != nil {
		kind = "a " + c.Intent.Kind()
	}
	return codes.Errorf(codes.UnsupportedIntent, "/%s gave %s intent, which the %s executor does not carry out", c.Verb, kind, c.Runs)
}

// check refuses values outside what the executors can honour, naming the
// key: sizes that would overflow, negative limits.
func (c Config) check() error {
	const maxBytes = 1 << 30
	sizes := []struct {
		key string
		v   int64
	}{
		{"calc.max_expr_bytes", int64(c.Calc.MaxExprBytes)},
		{"calc.max_nodes", int64(c.Calc.MaxNodes)},
		{"fetch.max_bytes", c.Fetch.MaxBytes},
		{"fetch.chunk_bytes", int64(c.Fetch.ChunkBytes)},
		{"fetch.max_redirects", int64(c.Fetch.MaxRedirects)},
		{"fetch.cache_pages", int64(c.Fetch.CachePages)},
		{"web.max_results", int64(c.Web.MaxResults)},
		{"web.max_bytes", int64(c.Web.MaxBytes)},
	}
	for name, t := range c.Send.Targets {
		sizes = append(sizes, struct {
			key string
			v   int64
		}{"send.targets." + name + ".max_output", int64(t.MaxOutput)})
	}
	for name, t := range c.Tools {
		sizes = append(sizes, struct {
			key string
			v   int64
		}{"tools." + name + ".max_output", int64(t.MaxOutput)})
	}
	for _, s := range sizes {
		if s.v < 0 || s.v > maxBytes {
			return configErr(s.key, "must be between 0 (the default) and %d, not %d", int64(maxBytes), s.v)
		}
	}
	durations := map[string]Duration{"calc.timeout": c.Calc.Timeout, "fetch.timeout": c.Fetch.Timeout, "fetch.cache_ttl": c.Fetch.CacheTTL, "web.timeout": c.Web.Timeout}
	for name, t := range c.Send.Targets {
		durations["send.targets."+name+".timeout"] = t.Timeout
	}
	for name, t := range c.Tools {
		durations["tools."+name+".timeout"] = t.Timeout
	}
	for key, d := range durations {
		if d.Duration < 0 {
			return configErr(key, "must not be negative")
		}
	}
	for name, t := range c.Send.Targets {
		if err := checkTemplate("send.targets."+name, t.Command, t.DashValues, "domain", "target", "via", "content"); err != nil {
			return err
		}
	}
	if err := checkTemplate("web", c.Web.Command, "", "query"); err != nil {
		return err
	}
	for name, t := range c.Tools {
		if err := checkTemplate("tools."+name, nil, t.DashValues); err != nil {
			return err
		}
	}
	for name := range c.Tools {
		if !validToolName(name) {
			return configErr("tools."+name, "a tool name is a letter, then letters, digits, '_' or '-'")
		}
	}
	return nil
}

func validToolName(s string) bool {
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '_' || c == '-')) {
			return false
		}
	}
	return s != "" && !strings.ContainsAny(s, " .")
}

// lazyRE compiles a regular expression on first use: a process that never
// calculates or converts never pays for compiling the calculator's.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// checkTemplate checks a command template's placeholders against the
// names it may use (none given: any name, filled from the action's
// arguments) and its dash_values setting.
func checkTemplate(key string, argv []string, dash string, names ...string) error {
	switch dash {
	case "", "allow", "refuse":
	default:
		return configErr(key+".dash_values", "%q is not allow or refuse", dash)
	}
	if len(names) == 0 {
		return nil
	}
	vars := map[string]string{}
	for _, n := range names {
		vars[n] = ""
	}
	if _, err := expandArgv(argv, vars, false); err != nil {
		return configErr(key+".command", "%s; it may use %s", strings.TrimPrefix(err.Error(), "the command needs "), "{"+strings.Join(names, "}, {")+"}")
	}
	return nil
}
