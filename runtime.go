package dialect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/executor"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/internal/mcp"
	"github.com/pattern-dialect/dialect/internal/memory"
	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// Runtime runs the dialect's pipeline for one configuration: it finds the
// actions in a message, resolves, parses, checks and executes them. It is
// safe for concurrent use; build one per configuration and share it.
type Runtime struct {
	cfg      *Config
	registry *verbs.Registry
	// resolver resolves verb tokens; it is built on the first token a
	// message has (a command that resolves nothing, such as config check,
	// never builds it). Its entries come from the registry, whose names
	// are checked, so building it cannot fail.
	resolver func() *fuzzy.Resolver
	prefixes prefixes
	detect   detect.Options
	exec     *executor.Set
	blocks   memory.Blocks
	tel      *recorder    // nil: telemetry off
	mcp      *mcp.Manager // the [mcp] servers, started on first use

	mu     sync.Mutex
	st     store.Store // opened on first use, or given by WithStore
	ownsSt bool        // Close closes st
}

// Option configures a Runtime beyond its Config.
type Option func(*options)

type options struct {
	out    io.Writer
	verbs  []verbs.Definition
	store  store.Store
	tracer trace.TracerProvider
	meter  metric.MeterProvider
}

// WithOutput sends what stdout delivery targets deliver to w. Without it,
// deliveries to stdout targets are not written anywhere; their text is
// still in each result's data. The runtime never writes to the process's
// own streams.
func WithOutput(w io.Writer) Option { return func(o *options) { o.out = w } }

// WithVerb adds a verb defined by the program: it resolves, parses, is
// gated, appears in the instructions and runs like a built-in verb.
func WithVerb(d verbs.Definition) Option {
	return func(o *options) { o.verbs = append(o.verbs, d) }
}

// WithStore makes the runtime keep its state in s instead of opening the
// store its configuration names. Close leaves s open.
func WithStore(s store.Store) Option { return func(o *options) { o.store = s } }

// ErrHalted is returned by Run after a /halt from an agent with that
// authority: the host should stop. The CLI exits with status 3.
var ErrHalted = errors.New("halted by /halt")

// Open builds a Runtime from cfg. It checks everything `dialect run`
// needs — custom verbs and their grammars, executors, tools — and fails
// with a *ConfigError naming the file, line and key of a mistake. The
// store (cfg.Store.Path, else $DIALECT_DB, else the XDG state directory)
// is opened when an action first needs it. Close the runtime when done.
func Open(ctx context.Context, cfg *Config, opts ...Option) (*Runtime, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	rt := &Runtime{cfg: cfg, st: o.store}
	rt.blocks = memory.Blocks{Store: rt.Store}
	x, err := executor.New(cfg.Exec, o.out, sessions{rt})
	if err != nil {
		var ce *executor.ConfigError
		if errors.As(err, &ce) {
			return nil, cfg.errorAt("exec."+ce.Key, ce.Msg)
		}
		return nil, cfg.errorAt("exec", err.Error())
	}
	rt.exec = x
	if rt.mcp, err = rt.openMCP(); err != nil {
		return nil, err
	}
	reg, err := verbs.NewRegistryWith(cfg.extensions(), rt.registryOptions(append(o.verbs, rt.mcp.Definitions()...)))
	if err != nil {
		rt.mcp.Close()
		var ce *verbs.ConfigError
		if errors.As(err, &ce) {
			if name, ok := strings.CutPrefix(ce.Key, "verb "); ok && slices.Contains(rt.mcp.Names(), name) {
				return nil, cfg.errorAt("mcp."+name, ce.Msg)
			}
			return nil, cfg.errorAt(ce.Key, ce.Msg)
		}
		return nil, err
	}
	for name := range cfg.Exec.Tools {
		if v := reg.Verb(strings.ToLower(name)); v != nil && !v.Custom {
			return nil, cfg.errorAt("exec.tools."+name, fmt.Sprintf("/%s is a verb; a tool needs a name of its own", v.Name))
		}
	}
	entries, fopts := fuzzyEntries(reg), cfg.fuzzyOptions()
	if err := fuzzy.CheckEntries(entries); err != nil {
		return nil, err
	}
	rt.resolver = sync.OnceValue(func() *fuzzy.Resolver {
		res, err := fuzzy.New(entries, fopts)
		if err != nil {
			panic("dialect: entries checked at Open were refused: " + err.Error())
		}
		return res
	})
	rt.registry, rt.prefixes = reg, newPrefixes(reg)
	rt.detect = cfg.detectOptions()
	if rt.tel, err = newRecorder(ctx, cfg.Telemetry, o.tracer, o.meter); err != nil {
		return nil, cfg.errorAt("telemetry", err.Error())
	}
	return rt, nil
}

// openMCP builds the manager of the [mcp] servers; none starts yet. A
// server may not take the name of a built-in verb or a tool: its name is
// its verb, and what runs it.
func (rt *Runtime) openMCP() (*mcp.Manager, error) {
	c := rt.cfg
	builtin := map[string]bool{}
	for _, s := range verbs.Builtin() {
		builtin[s.Name] = true
	}
	for name := range c.MCP {
		switch {
		case builtin[name]:
			return nil, c.errorAt("mcp."+name, fmt.Sprintf("/%s is a built-in verb; give the server another name", name))
		case c.Exec.Tools[name].Command != nil || c.Exec.Tools[name].URL != "":
			return nil, c.errorAt("mcp."+name, fmt.Sprintf("%s is also a tool under [exec.tools]; give the server another name", name))
		}
	}
	m, err := mcp.New(c.mcpServers(), mcp.Options{Fuzzy: c.fuzzyOptions()})
	var ce *mcp.ConfigError
	if errors.As(err, &ce) {
		return nil, c.errorAt("mcp."+ce.Key, ce.Msg)
	}
	return m, err
}

// registryOptions tells the registry what the rest of the configuration
// defines — the tools custom verbs may map to, the send domains routed,
// the directory grammar files are relative to, the size limit — and what
// executes each verb.
func (rt *Runtime) registryOptions(defs []verbs.Definition) verbs.Options {
	c := rt.cfg
	o := verbs.Options{MaxInput: c.Detect.MaxActionBytes, Verbs: defs, Executors: rt.exec.Executors()}
	for name := range c.Exec.Tools {
		o.Tools = append(o.Tools, name)
	}
	slices.Sort(o.Tools)
	for route := range c.Exec.Send.Routes {
		d := strings.TrimPrefix(strings.ToLower(route), "@")
		d, _, _ = strings.Cut(d, ":")
		if d != "*" && d != "" && !slices.Contains(o.Domains, d) {
			o.Domains = append(o.Domains, d)
		}
	}
	slices.Sort(o.Domains)
	if st, err := os.Stat(c.Source); err == nil && !st.IsDir() {
		o.GrammarDir = filepath.Dir(c.Source)
	}
	mem := memory.Executor{Store: rt.Store, Limits: memory.Limits{
		Archival: c.Memory.ArchivalLimit, Working: c.Memory.WorkingLimit, Blocks: c.Memory.Limits,
	}}
	auth := verbs.ExecutorFunc(rt.authority)
	for _, k := range []string{"recall", "context", "search"} {
		o.Executors[k] = mem
	}
	for _, k := range []string{"approve", "deny", "escalate", "cancel", "halt"} {
		o.Executors[k] = auth
	}
	return o
}

func fuzzyEntries(reg *verbs.Registry) []fuzzy.Entry {
	vs := reg.Verbs()
	out := make([]fuzzy.Entry, 0, len(vs))
	for _, v := range vs {
		out = append(out, fuzzy.Entry{Verb: v.Name, Names: append(slices.Clone(v.Aliases), v.Compounds...), Strictness: v.Strictness, Priority: v.Priority})
	}
	return out
}

// Instructions writes the instructions for agent's system prompt: how to
// write actions, and the verbs, forms, destinations and references that
// work here for that agent — its authority roles, the send routes in
// force, /web only with a provider, the references this runtime resolves.
func (rt *Runtime) Instructions(ctx context.Context, w io.Writer, agent string) error {
	if err := checkAgent(agent); err != nil {
		return err
	}
	return rt.registry.WriteInstructions(ctx, w, rt.scope(agent))
}

// scope is what works here for agent, as the instructions teach it.
func (rt *Runtime) scope(agent string) verbs.Scope {
	sc := verbs.Scope{Web: rt.exec.Web.Configured(), Refs: rt.Refs(), Conversations: rt.cfg.Store.LogMessages,
		Routes: rt.exec.Sender.Routes()}
	if a, ok := rt.cfg.Agents[agentName(agent)]; ok {
		sc.Roles = a.Authority
	}
	return sc
}

// Config returns the configuration the runtime was built from.
func (rt *Runtime) Config() *Config { return rt.cfg }

// Verbs returns the verbs in force.
func (rt *Runtime) Verbs() *verbs.Registry { return rt.registry }

// Resolve resolves one verb token through the tiers, as the pipeline does.
func (rt *Runtime) Resolve(token string) fuzzy.Result { return rt.resolver().Resolve(token) }

// Filter returns a writer that passes a message's text on to w with its
// action lines left out, for showing a streamed answer to a person. A line
// that starts with "/" is held back only until it is known not to be an
// action. Close it at the end of the message.
func (rt *Runtime) Filter(w io.Writer) *detect.Filter {
	return detect.NewFilter(w, rt.newVocab(), rt.detect)
}

// Store returns the runtime's store, opening it on first use.
func (rt *Runtime) Store(ctx context.Context) (store.Store, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.st != nil {
		return rt.st, nil
	}
	st, err := store.Open(ctx, rt.cfg.Store.Path)
	if err != nil {
		return nil, err
	}
	rt.st, rt.ownsSt = st, true
	return st, nil
}

// Failures returns the failure log in the runtime's store.
func (rt *Runtime) Failures(ctx context.Context) (*failures.Log, error) {
	st, err := rt.Store(ctx)
	if err != nil {
		return nil, err
	}
	return st.Failures(), nil
}

// Close stops the MCP servers the runtime started, closes the store, if
// the runtime opened one, and exports the telemetry still buffered
// (waiting at most telemetryFlush for the receiver), if the runtime set it
// up.
func (rt *Runtime) Close() error {
	rt.mcp.Close()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), telemetryFlush)
	defer cancel()
	tel := rt.tel.shutdown(ctx)
	if rt.st == nil || !rt.ownsSt {
		return tel
	}
	err := rt.st.Close()
	rt.st = nil
	return errors.Join(err, tel)
}

// telemetryFlush bounds how long Close waits for an OTLP receiver.
const telemetryFlush = 3 * time.Second

// sessions gives the executors the store's per-session state, opening the
// store only when they ask.
type sessions struct{ rt *Runtime }

func (s sessions) State(ctx context.Context, session, key string) (string, error) {
	st, err := s.rt.Store(ctx)
	if err != nil {
		return "", err
	}
	return st.State(ctx, session, key)
}

func (s sessions) SetState(ctx context.Context, session, key, value string) error {
	st, err := s.rt.Store(ctx)
	if err != nil {
		return err
	}
	return st.SetState(ctx, session, key, value)
}

// ErrAgentName is wrapped by the error Run and Stream return for a
// message whose agent is not a plain name.
var ErrAgentName = errors.New("not an agent name")

// checkAgent refuses agent names that are not plain names: an agent name
// is matched exactly by standing rules, and no name may be a pattern
// ("*" would make a rule for every agent).
func checkAgent(name string) error {
	if name == "" {
		return nil
	}
	for i, r := range name {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && (i == 0 || r != '_' && r != '-' && r != '.') || i >= 64 {
			return fmt.Errorf("%w: %q (letters, digits, '_', '-' and '.', starting with a letter or digit, at most 64)", ErrAgentName, name)
		}
	}
	return nil
}
