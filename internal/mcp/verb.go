package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/verbs"
)

// Definitions returns one verb per server, for the registry: /NAME TOOL
// ARGUMENTS. Resolving /NAME starts nothing; parsing an action of it
// starts the server (its tools are needed to read the arguments), within
// the action's context and the server's start timeout.
func (m *Manager) Definitions() []verbs.Definition {
	out := make([]verbs.Definition, 0, len(m.names))
	for _, name := range m.names {
		s := m.servers[name]
		desc := s.cfg.Description
		if desc == "" {
			desc = "the tools of the MCP server " + name
		}
		out = append(out, verbs.Definition{
			Name:        name,
			Aliases:     s.cfg.Aliases,
			Description: desc,
			Form:        "/" + name + " TOOL ARGUMENTS",
			ParseCall:   s.parseCall,
			Approval:    s.approval,
			Operations:  s.operations,
			Executor:    verbs.ExecutorFunc(s.execute),
		})
	}
	return out
}

// parseCall reads /NAME TOOL ARGUMENTS: it resolves TOOL among the
// server's tools and maps the arguments onto its schema.
func (s *server) parseCall(ctx context.Context, in verbs.Input) (intent.Custom, error) {
	_, ts, err := s.tools(ctx)
	if err != nil {
		return intent.Custom{}, err
	}
	return s.parseWithTools(ts, in)
}

// parseWithTools is parseCall with the tools known.
func (s *server) parseWithTools(ts *toolSet, in verbs.Input) (intent.Custom, error) {
	args := in.Args
	i := 0
	for i < len(args) && isSpace(args[i]) {
		i++
	}
	n := wordLen(args[i:])
	if n == 0 {
		return intent.Custom{}, &verbs.ParseError{Code: codes.MissingArg, Verb: s.cfg.Name, Expected: []string{"a tool"},
			Message: fmt.Sprintf("/%s needs a tool: /%s TOOL ARGUMENTS. Its tools: %s", s.cfg.Name, s.cfg.Name, ts.names(24))}
	}
	t, err := ts.resolve(args[i : i+n])
	if err != nil {
		return intent.Custom{}, err
	}
	c := &call{server: s.cfg.Name, tool: t, text: args}
	block, hasBlock := "", false
	if in.Kind != verbs.NoContent && in.Kind != verbs.Quoted && strings.TrimSpace(in.Content) != "" {
		block, hasBlock = in.Content, true
	}
	mapped, err := c.mapArgs(args[i+n:], i+n, block, hasBlock)
	if err != nil {
		return intent.Custom{}, err
	}
	return intent.Custom{Tool: t.name, Args: mapped, ReadOnlyHint: t.readOnly, Destructive: t.destructive}, nil
}

// policy is the approval policy for one tool: its override, else the
// server's.
func (s *server) policy(tool string) string {
	if p, ok := s.cfg.Tools[tool]; ok {
		return p
	}
	return s.cfg.Approve
}

// approval says why a call must wait for approval, from the tool's
// annotations as parsed (carried on the intent) and the policy.
func (s *server) approval(it intent.Custom) string {
	what := s.cfg.Name + " " + it.Tool
	switch s.policy(it.Tool) {
	case ApproveAll:
		return what + ": every call is approved first"
	case ApproveWrites:
		if !it.ReadOnlyHint {
			return what + " is not read-only"
		}
	case ApproveDestructive:
		if it.Destructive {
			return what + " may destroy or overwrite"
		}
	}
	return ""
}

// operations lists the tools, starting the server if need be.
func (s *server) operations(ctx context.Context) ([]verbs.Operation, error) {
	_, ts, err := s.tools(ctx)
	if err != nil {
		return nil, err
	}
	return ts.operations(), nil
}

// execute calls the tool a parsed call names, with its arguments, as
// decided: a call approved later runs exactly what was queued.
func (s *server) execute(ctx context.Context, c verbs.Call) (verbs.Output, error) {
	it, ok := c.Intent.(intent.Custom)
	if !ok || it.Tool == "" {
		return verbs.Output{}, codes.Errorf(codes.UnsupportedIntent, "/%s needs a tool", c.Verb)
	}
	conn, err := s.get(ctx)
	if err != nil {
		return verbs.Output{}, err
	}
	args := it.Args
	if args == nil {
		args = map[string]any{}
	}
	res, err := conn.sess.CallTool(ctx, &sdk.CallToolParams{Name: it.Tool, Arguments: args})
	if err != nil {
		return verbs.Output{}, s.callError(ctx, err, "calling "+it.Tool)
	}
	text, data := render(s.cfg.Name, it.Tool, res, s.cfg.MaxOutput)
	if res.IsError {
		if text == "" {
			text = "(no message)"
		}
		return verbs.Output{}, codes.Errorf(codes.ToolFailed, "%s %s failed: %s", s.cfg.Name, it.Tool, text)
	}
	return verbs.Output{Text: text, Data: data}, nil
}
