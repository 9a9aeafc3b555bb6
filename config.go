package dialect

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/executor"
	"github.com/pattern-dialect/dialect/fuzzy"
	"github.com/pattern-dialect/dialect/internal/mcp"
	"github.com/pattern-dialect/dialect/internal/telemetry"
	"github.com/pattern-dialect/dialect/verbs"
)

// DefaultConfigTOML is the bundled dialect.toml, compiled into the binary so
// that dialect runs with no file present.
//
//go:embed dialect.toml
var DefaultConfigTOML []byte

// Config is the whole of dialect.toml. Every field is documented in the
// bundled file; the Go names follow the TOML keys.
type Config struct {
	Detect  DetectConfig    `toml:"detect"`
	Resolve ResolveConfig   `toml:"resolve"`
	Dialect DialectConfig   `toml:"dialect"`
	Store   StoreConfig     `toml:"store"`
	Memory  MemoryConfig    `toml:"memory"`
	Run     RunConfig       `toml:"run"`
	Exec    executor.Config `toml:"exec"`

	Telemetry TelemetryConfig `toml:"telemetry"`

	Permission PermissionConfig       `toml:"permission"`
	Agents     map[string]AgentConfig `toml:"agents"`

	// MCP holds the [mcp.NAME] tables: MCP servers whose tools are the
	// verb /NAME TOOL ARGUMENTS (docs/mcp.md).
	MCP map[string]MCPServerConfig `toml:"mcp"`

	// Source names where the configuration came from: a file path, or
	// "embedded default". It is not read from TOML.
	Source string `toml:"-"`

	raw []byte // the file's text, to place errors found after decoding
}

// DetectConfig configures the scanner (docs/language.md §1–§3).
type DetectConfig struct {
	Reconsideration []string `toml:"reconsideration"`
	PermissionFlags []string `toml:"permission_flags"`
	MaxActionBytes  int      `toml:"max_action_bytes"`
	EarlyExecution  bool     `toml:"early_execution"`
	ConfirmTokens   int      `toml:"confirm_tokens"`
}

// ResolveConfig configures verb resolution (docs/language.md §4).
type ResolveConfig struct {
	Phonetic   bool             `toml:"phonetic"`
	Synonyms   bool             `toml:"synonyms"`
	Edits      EditAllowances   `toml:"edits"`
	Embeddings EmbeddingsConfig `toml:"embeddings"`
}

// EditAllowances gives the edit distance allowed per strictness, for tokens
// of 4–7 letters (Short) and of 8 or more (Long).
type EditAllowances struct {
	Loose  EditAllowance `toml:"loose"`
	Normal EditAllowance `toml:"normal"`
}

// EditAllowance is one strictness's allowance.
type EditAllowance struct {
	Short int `toml:"short"`
	Long  int `toml:"long"`
}

// EmbeddingsConfig points the semantic tier at an OpenAI-compatible
// /v1/embeddings endpoint. An empty URL turns it off.
type EmbeddingsConfig struct {
	URL       string   `toml:"url"`
	Model     string   `toml:"model"`
	APIKeyEnv string   `toml:"api_key_env"`
	Threshold float64  `toml:"threshold"`
	Timeout   Duration `toml:"timeout"`
}

// DialectConfig holds the [dialect] table: custom verbs and alias
// extensions.
type DialectConfig struct {
	Verbs map[string]VerbConfig `toml:"verbs"`
}

// VerbConfig is one [dialect.verbs.NAME] table (docs/language.md §5). For a
// built-in NAME it extends that verb; otherwise it defines a custom verb.
type VerbConfig struct {
	ExtraAliases       []string       `toml:"extra_aliases"`
	Aliases            []string       `toml:"aliases"`
	MapsTo             string         `toml:"maps_to"`
	DefaultTarget      *TargetRef     `toml:"default_target"`
	Description        string         `toml:"description"`
	Examples           []string       `toml:"examples"`
	Template           string         `toml:"template"`
	RequiresPermission bool           `toml:"requires_permission"`
	Strictness         string         `toml:"strictness"`
	Priority           int            `toml:"priority"`
	Grammar            *GrammarConfig `toml:"grammar"`
}

// TargetRef names where a send-like verb delivers by default.
type TargetRef struct {
	Type string `toml:"type"`
	ID   string `toml:"id"`
}

// GrammarConfig names a .agr grammar file and its start rule.
type GrammarConfig struct {
	File  string `toml:"file"`
	Start string `toml:"start"`
}

// StoreConfig locates the store: a SQLite file or a postgres:// URL.
type StoreConfig struct {
	Path        string `toml:"path"`
	LogMessages bool   `toml:"log_messages"`
}

// TelemetryConfig is the [telemetry] table: OpenTelemetry export over
// OTLP (docs/telemetry.md). Empty fields leave the choice to the standard
// OTEL_* environment variables.
type TelemetryConfig struct {
	Endpoint    string `toml:"endpoint"`
	Protocol    string `toml:"protocol"`
	ServiceName string `toml:"service_name"`
	MessageText bool   `toml:"message_text"`
}

// MemoryConfig bounds memory blocks, in characters ([memory]): a write
// that would pass a block's limit is refused with BLOCK_FULL before
// anything is written. 0 means no limit.
type MemoryConfig struct {
	ArchivalLimit int            `toml:"archival_limit"`
	WorkingLimit  int            `toml:"working_limit"`
	Limits        map[string]int `toml:"limits"` // by block name, over its kind's limit
}

// RunConfig configures execution.
type RunConfig struct {
	ActionTimeout Duration `toml:"action_timeout"`
}

// PermissionConfig lists what needs approval besides the verbs marked
// requires_permission.
type PermissionConfig struct {
	// Targets are delivery targets ("bluesky", "agent:anchor") whose
	// actions are queued for approval.
	Targets []string `toml:"targets"`
}

// AgentConfig is one [agents.NAME] table.
type AgentConfig struct {
	// Authority lists the roles the agent holds: approve, deny, escalate,
	// halt.
	Authority []string `toml:"authority"`
}

// MCPServerConfig is one [mcp.NAME] table: an MCP server reached over
// stdio (command) or streamable HTTP (url), and how its tools are gated.
type MCPServerConfig struct {
	// Command starts a stdio server: argv, never a shell.
	Command []string `toml:"command"`
	// Env names the environment variables passed to the command besides
	// PATH, HOME, LANG, LC_ALL, TZ and TMPDIR.
	Env []string `toml:"env"`
	// URL is a streamable HTTP server (http or https).
	URL string `toml:"url"`
	// Headers are sent to a url server; ${NAME} is read from the
	// environment.
	Headers map[string]string `toml:"headers"`
	// Approve is "destructive" (default: queue tools that are not
	// read-only and are destructive or do not say), "writes" (every tool
	// that is not read-only), "all" or "none".
	Approve string `toml:"approve"`
	// Tools overrides approve per tool: [mcp.NAME.tools.TOOL] approve.
	Tools map[string]MCPToolConfig `toml:"tools"`
	// StartTimeout bounds starting the server and listing its tools.
	StartTimeout Duration `toml:"start_timeout"`
	// MaxOutput bounds one result's text, in bytes.
	MaxOutput int `toml:"max_output"`
	// Description and Aliases are the verb's.
	Description string   `toml:"description"`
	Aliases     []string `toml:"aliases"`
}

// MCPToolConfig is one [mcp.NAME.tools.TOOL] table.
type MCPToolConfig struct {
	// Approve overrides the server's approve for this tool.
	Approve string `toml:"approve"`
}

// Duration is a time.Duration written in TOML as a string ("5s",
// "250ms"); the executors' settings use the same type.
type Duration = executor.Duration

// ConfigError is a problem in a configuration file: where it is and what is
// wrong. A file with several unknown keys yields an error wrapping one
// ConfigError each (see errors.Join).
type ConfigError struct {
	File   string // path, or "embedded default"
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based; 0 when unknown
	Key    string // dotted key, when known
	Msg    string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Key != "" {
		fmt.Fprintf(&b, "key %q: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ParseConfig reads TOML data over the embedded defaults: keys present in
// data replace the defaults' values, keys absent keep them. An unknown key
// or a value of the wrong type is a *ConfigError naming file, line, column
// and key. name labels errors.
func ParseConfig(name string, data []byte) (*Config, error) {
	cfg := new(Config)
	if err := decodeStrict("embedded default", DefaultConfigTOML, cfg); err != nil {
		return nil, fmt.Errorf("the embedded dialect.toml is broken: %w", err)
	}
	if data != nil {
		if err := decodeStrict(name, data, cfg); err != nil {
			return nil, err
		}
	}
	cfg.Source, cfg.raw = name, data
	if err := cfg.validate(name, data); err != nil {
		return nil, err
	}
	return cfg, nil
}

func decodeStrict(name string, data []byte, v any) error {
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		errs := make([]error, 0, len(strict.Errors))
		for i := range strict.Errors {
			errs = append(errs, configErr(name, &strict.Errors[i], "unknown key"))
		}
		return errors.Join(errs...)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		return configErr(name, de, strings.TrimPrefix(de.Error(), "toml: "))
	}
	return &ConfigError{File: name, Msg: err.Error()}
}

func configErr(name string, de *toml.DecodeError, msg string) *ConfigError {
	line, col := de.Position()
	return &ConfigError{File: name, Line: line, Column: col, Key: strings.Join(de.Key(), "."), Msg: msg}
}

// validate checks what TOML types cannot: enumerations and ranges. data is
// the user's file, used to find the line of a bad key.
func (c *Config) validate(name string, data []byte) error {
	var errs []error
	bad := func(key, msg string) {
		line, col := findKey(data, key)
		errs = append(errs, &ConfigError{File: name, Line: line, Column: col, Key: key, Msg: msg})
	}
	for verb, v := range c.Dialect.Verbs {
		switch v.Strictness {
		case "", "loose", "normal", "strict":
		default:
			bad("dialect.verbs."+verb+".strictness", fmt.Sprintf("%q is not loose, normal or strict", v.Strictness))
		}
		if v.Grammar != nil && (v.Grammar.File == "" || v.Grammar.Start == "") {
			bad("dialect.verbs."+verb+".grammar", "needs both file and start")
		}
	}
	for name, a := range c.Agents {
		for _, role := range a.Authority {
			switch role {
			case "approve", "deny", "escalate", "halt":
			default:
				bad("agents."+name+".authority", fmt.Sprintf("%q is not a role (approve, deny, escalate, halt)", role))
			}
		}
	}
	for name, m := range c.MCP {
		var ce *mcp.ConfigError
		if s := m.server(name); errors.As(s.Check(), &ce) {
			bad("mcp."+ce.Key, ce.Msg)
		}
	}
	if err := telemetry.CheckProtocol(c.Telemetry.Protocol); err != nil {
		bad("telemetry.protocol", err.Error())
	}
	if c.Memory.ArchivalLimit < 0 {
		bad("memory.archival_limit", "must not be negative")
	}
	if c.Memory.WorkingLimit < 0 {
		bad("memory.working_limit", "must not be negative")
	}
	for name, n := range c.Memory.Limits {
		if n < 0 {
			bad("memory.limits", fmt.Sprintf("%q: a limit must not be negative", name))
		}
	}
	if c.Run.ActionTimeout.Duration <= 0 {
		bad("run.action_timeout", "must be a positive duration")
	}
	if c.Detect.MaxActionBytes <= 0 {
		bad("detect.max_action_bytes", "must be positive")
	}
	if c.Detect.ConfirmTokens < 0 {
		bad("detect.confirm_tokens", "must not be negative")
	}
	for _, a := range []struct {
		key string
		v   EditAllowance
	}{{"resolve.edits.loose", c.Resolve.Edits.Loose}, {"resolve.edits.normal", c.Resolve.Edits.Normal}} {
		if a.v.Short < 0 || a.v.Long < a.v.Short || a.v.Long > 4 {
			bad(a.key, "needs 0 <= short <= long <= 4")
		}
	}
	return errors.Join(errs...)
}

// findKey returns the position of a dotted key in TOML data: the line
// "last = ..." inside the table that holds it, or the table's header when
// key names a table. It is a best effort for errors found after decoding
// (dotted keys and inline tables are matched only as written in the bundled
// file's style); 0, 0 when not found.
func findKey(data []byte, key string) (line, col int) {
	table, last := "", key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		table, last = key[:i], key[i+1:]
	}
	current := ""
	headerLine, headerCol := 0, 0
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimLeft(l, " \t")
		indent := len(l) - len(t) + 1
		if strings.HasPrefix(t, "[") {
			current = strings.Trim(strings.TrimSpace(strings.SplitN(t, "#", 2)[0]), "[]")
			current = strings.ReplaceAll(current, " ", "")
			if current == key {
				headerLine, headerCol = i+1, indent
			}
			continue
		}
		if current == table && strings.HasPrefix(t, last) && strings.HasPrefix(strings.TrimLeft(t[len(last):], " \t"), "=") {
			return i + 1, indent
		}
	}
	return headerLine, headerCol
}

// ConfigLookup is where LoadConfig looks, in order, after an explicit path.
type ConfigLookup struct {
	Explicit string // --config; an error if it does not exist
	Env      string // $DIALECT_CONFIG; an error if set and missing
	WorkDir  string // the directory searched for dialect.toml
	XDG      string // $XDG_CONFIG_HOME, or ~/.config when empty
}

// DefaultLookup fills a ConfigLookup from the process environment.
func DefaultLookup(explicit string) ConfigLookup {
	wd, _ := os.Getwd()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		if home, err := os.UserHomeDir(); err == nil {
			xdg = filepath.Join(home, ".config")
		}
	}
	return ConfigLookup{Explicit: explicit, Env: os.Getenv("DIALECT_CONFIG"), WorkDir: wd, XDG: xdg}
}

// LoadConfig finds and reads the configuration: the explicit path, then
// $DIALECT_CONFIG, then ./dialect.toml, then the XDG config directory's
// dialect/dialect.toml, and otherwise the embedded default.
func LoadConfig(l ConfigLookup) (*Config, error) {
	for _, p := range []string{l.Explicit, l.Env} {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, &ConfigError{File: p, Msg: err.Error()}
		}
		return ParseConfig(p, data)
	}
	var candidates []string
	if l.WorkDir != "" {
		candidates = append(candidates, filepath.Join(l.WorkDir, "dialect.toml"))
	}
	if l.XDG != "" {
		candidates = append(candidates, filepath.Join(l.XDG, "dialect", "dialect.toml"))
	}
	for _, p := range candidates {
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &ConfigError{File: p, Msg: err.Error()}
		}
		return ParseConfig(p, data)
	}
	return ParseConfig("embedded default", nil)
}

// extensions are the [dialect.verbs] tables as the registry takes them.
func (c *Config) extensions() []verbs.Extension {
	exts := make([]verbs.Extension, 0, len(c.Dialect.Verbs))
	for name, v := range c.Dialect.Verbs {
		e := verbs.Extension{
			Name: name, ExtraAliases: v.ExtraAliases, Aliases: v.Aliases, MapsTo: v.MapsTo,
			Description: v.Description, Examples: v.Examples, Template: v.Template,
			RequiresPermission: v.RequiresPermission, Strictness: v.Strictness, Priority: v.Priority,
		}
		if v.DefaultTarget != nil {
			e.DefaultTarget = &verbs.Target{Type: v.DefaultTarget.Type, ID: v.DefaultTarget.ID}
		}
		if v.Grammar != nil {
			e.Grammar = &verbs.GrammarRef{File: v.Grammar.File, Start: v.Grammar.Start}
		}
		exts = append(exts, e)
	}
	return exts
}

// detectOptions are the scanner options [detect] sets.
func (c *Config) detectOptions() detect.Options {
	o := detect.DefaultOptions()
	d := c.Detect
	o.Reconsideration = d.Reconsideration
	o.PermissionFlags = d.PermissionFlags
	o.MaxActionSize = d.MaxActionBytes
	o.EarlyExecution = d.EarlyExecution
	if d.ConfirmTokens > 0 {
		o.EarlyWindow = d.ConfirmTokens
	}
	return o
}

func (c *Config) fuzzyOptions() fuzzy.Options {
	r := c.Resolve
	return fuzzy.Options{
		Loose:      fuzzy.Allowance{Short: r.Edits.Loose.Short, Long: r.Edits.Loose.Long},
		Normal:     fuzzy.Allowance{Short: r.Edits.Normal.Short, Long: r.Edits.Normal.Long},
		NoPhonetic: !r.Phonetic,
		NoLexicon:  !r.Synonyms,
		// The embedder is attached by hosts that do I/O; the threshold is
		// carried so that it applies when they do.
		SemanticThreshold: r.Embeddings.Threshold,
	}
}

// errorAt turns a problem found after decoding into a *ConfigError at the
// key's position in the file the configuration came from.
func (c *Config) errorAt(key, msg string) *ConfigError {
	line, col := findKey(c.raw, key)
	return &ConfigError{File: c.Source, Line: line, Column: col, Key: key, Msg: msg}
}

// mcpServers are the [mcp] tables as the MCP manager takes them.
func (c *Config) mcpServers() []mcp.Server {
	out := make([]mcp.Server, 0, len(c.MCP))
	for name, m := range c.MCP {
		out = append(out, m.server(name))
	}
	return out
}

func (m MCPServerConfig) server(name string) mcp.Server {
	s := mcp.Server{
		Name: name, Command: m.Command, Env: m.Env, URL: m.URL, Headers: m.Headers, Approve: m.Approve,
		StartTimeout: m.StartTimeout.Duration, MaxOutput: m.MaxOutput, Description: m.Description, Aliases: m.Aliases,
	}
	for tool, t := range m.Tools {
		if s.Tools == nil {
			s.Tools = map[string]string{}
		}
		s.Tools[tool] = t.Approve
	}
	return s
}
