package mcp

import (
	"fmt"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/verbs"
)

// Server is one [mcp.NAME] table of dialect.toml: how to reach an MCP
// server, and how its tools are gated.
type Server struct {
	// Name is the verb: /NAME TOOL ARGUMENTS.
	Name string
	// Command starts a stdio server (argv, never a shell). Exactly one of
	// Command and URL is set.
	Command []string
	// Env names environment variables passed to the command besides
	// PATH, HOME, LANG, LC_ALL, TZ and TMPDIR, as for command targets.
	Env []string
	// URL is a streamable HTTP server.
	URL string
	// Headers are sent with every HTTP request; ${NAME} in a value is read
	// from the environment when the server is first reached.
	Headers map[string]string
	// Approve is the server's approval policy: ApproveDestructive (the
	// default), ApproveWrites, ApproveAll or ApproveNone.
	Approve string
	// Tools overrides Approve for single tools, by the tool's name.
	Tools map[string]string
	// StartTimeout bounds starting the server and listing its tools.
	// Default 30s.
	StartTimeout time.Duration
	// MaxOutput bounds the text of one result, in bytes. Default 32 KiB.
	MaxOutput int
	// Description and Aliases are the verb's, for the instructions and
	// resolution.
	Description string
	Aliases     []string
}

// The approval policies of a server or a tool.
const (
	// ApproveDestructive queues a tool that is not read-only and is
	// destructive or does not say (MCP's default is destructive).
	ApproveDestructive = "destructive"
	// ApproveWrites queues every tool that is not read-only.
	ApproveWrites = "writes"
	// ApproveAll queues every tool.
	ApproveAll = "all"
	// ApproveNone queues nothing on annotations alone.
	ApproveNone = "none"
)

// Defaults.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultMaxOutput    = 32 << 10
)

// ConfigError is a mistake in one [mcp.NAME] table: Key is the dotted key
// under [mcp] ("fs.approve").
type ConfigError struct {
	Key string
	Msg string
}

func (e *ConfigError) Error() string { return "mcp." + e.Key + ": " + e.Msg }

// Check validates s, filling in the defaults. A mistake is a
// *ConfigError naming its key.
func (s *Server) Check() error {
	bad := func(key, format string, a ...any) error {
		k := s.Name
		if key != "" {
			k += "." + key
		}
		return &ConfigError{Key: k, Msg: fmt.Sprintf(format, a...)}
	}
	if !verbs.ValidName(s.Name) {
		return bad("", "a server's name is its verb: a letter, then letters, digits, '_' or '-'")
	}
	hasCmd, hasURL := len(s.Command) > 0, s.URL != ""
	switch {
	case hasCmd == hasURL:
		return bad("", "needs exactly one of command (a stdio server) and url (streamable HTTP)")
	case hasCmd && s.Command[0] == "":
		return bad("command", "the program (the first element) is empty")
	case hasURL && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
		return bad("url", "must be http:// or https://")
	case hasCmd && len(s.Headers) > 0:
		return bad("headers", "headers are for a url server")
	case hasURL && len(s.Env) > 0:
		return bad("env", "env is for a command server")
	}
	if s.Approve == "" {
		s.Approve = ApproveDestructive
	}
	if !validPolicy(s.Approve) {
		return bad("approve", "%q is not destructive, writes, all or none", s.Approve)
	}
	for tool, p := range s.Tools {
		if !validPolicy(p) {
			return bad("tools."+tool+".approve", "%q is not destructive, writes, all or none", p)
		}
	}
	switch {
	case s.StartTimeout < 0:
		return bad("start_timeout", "must not be negative")
	case s.StartTimeout == 0:
		s.StartTimeout = DefaultStartTimeout
	}
	switch {
	case s.MaxOutput < 0:
		return bad("max_output", "must not be negative")
	case s.MaxOutput == 0:
		s.MaxOutput = DefaultMaxOutput
	}
	return nil
}

func validPolicy(p string) bool {
	switch p {
	case ApproveDestructive, ApproveWrites, ApproveAll, ApproveNone:
		return true
	}
	return false
}
