package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/verbs"
)

func init() {
	register(&command{
		name:  "mcp",
		usage: "serve [--listen ADDR] [--agent A] [--model M] [--session S] [--config F] [--db PATH]",
		short: "serve dialect as an MCP server: a tool run and one tool per verb",
		run:   runMCP,
	})
}

func runMCP(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["mcp"], sio).state()
	listen := f.String("listen", "", "serve streamable HTTP at this address (127.0.0.1:8765) instead of stdio")
	agent := f.String("agent", envOr("DIALECT_AGENT", ""), "agent of the messages, unless a call names one ($DIALECT_AGENT)")
	model := f.String("model", envOr("DIALECT_MODEL", ""), "model of the messages ($DIALECT_MODEL)")
	session := f.String("session", envOr("DIALECT_SESSION", ""), "session of the messages, unless a call names one ($DIALECT_SESSION)")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if pos[0] != "serve" {
		return usageError("unknown subcommand %q: the one is serve", pos[0])
	}
	// Standard output is the MCP channel (or unused over HTTP): a
	// delivery to stdout is in its result's text, never on the stream.
	rt, err := f.open(ctx, dialect.WithOutput(io.Discard))
	if err != nil {
		return err
	}
	defer rt.Close()
	srv := newMCPServer(rt, dialect.Meta{Agent: *agent, Model: *model, Session: *session})
	if *listen == "" {
		err := srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(sio.in), Writer: nopCloser{sio.out}})
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return usageErr{err}
	}
	hs := &http.Server{
		Handler:           sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil),
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Fprintf(sio.err, "dialect mcp: serving MCP at http://%s/\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// authorityOnly are the strict authority verbs: an MCP host never gets
// them as tools (a message passed to run is gated as any other).
func authorityOnly(v *verbs.Verb) bool { return v.Authority && v.Strictness == verbs.Strict }

// newMCPServer exposes rt: the tool run takes a whole message; each verb
// in force but the strict authority verbs is a tool taking the text after
// the verb. Everything runs through the runtime's pipeline and its gate.
func newMCPServer(rt *dialect.Runtime, meta dialect.Meta) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "dialect", Version: version()}, &sdk.ServerOptions{
		Instructions: "Each tool but run is a dialect verb: pass the text after /verb as args. " +
			"run takes a whole message whose trailing /actions run as `dialect run` runs them. " +
			"Actions that need approval are queued and say so.",
	})
	who := map[string]any{
		"agent":   map[string]any{"type": "string", "description": "the agent writing (default: the server's)"},
		"session": map[string]any{"type": "string", "description": "the conversation session (default: the server's)"},
	}
	runSchema := map[string]any{"type": "object", "required": []string{"text"}, "properties": map[string]any{
		"text": map[string]any{"type": "string", "description": "a message ending with /actions, one per line"},
	}}
	for k, v := range who {
		runSchema["properties"].(map[string]any)[k] = v
	}
	srv.AddTool(&sdk.Tool{
		Name:        "run",
		Description: "Run the actions of a message as `dialect run` does: the /actions at its end run, each gated for approval.",
		InputSchema: runSchema,
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ Text, Agent, Session string }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return runMessage(ctx, rt, meta, in.Text, in.Agent, in.Session, "")
	})
	for _, v := range rt.Verbs().Verbs() {
		if authorityOnly(v) || v.Name == "run" {
			continue
		}
		schema := map[string]any{"type": "object", "properties": map[string]any{
			"args": map[string]any{"type": "string", "description": "the text after /" + v.Name + ": its arguments, and a content block on the lines after"},
		}}
		for k, x := range who {
			schema["properties"].(map[string]any)[k] = x
		}
		ro, destructive, open := verbHints(rt.Verbs(), v)
		srv.AddTool(&sdk.Tool{
			Name:        v.Name,
			Description: verbDescription(v),
			InputSchema: schema,
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: ro, DestructiveHint: ptr(destructive), OpenWorldHint: ptr(open)},
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Args, Agent, Session string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return runMessage(ctx, rt, meta, "/"+v.Name+" "+in.Args, in.Agent, in.Session, v.Name)
		})
	}
	return srv
}

func ptr[T any](v T) *T { return &v }

// verbHints are a verb's MCP annotations: read-only, destructive, open
// world. A verb that may delete or replace (recall, context), a tool or an
// MCP server of unknown effect is destructive.
func verbHints(reg *verbs.Registry, v *verbs.Verb) (readOnly, destructive, openWorld bool) {
	name := v.Name
	if v.Custom {
		if reg.Verb(v.MapsTo) == nil {
			return false, true, true // a configured tool
		}
		name = v.MapsTo
	}
	switch name {
	case "search", "calc":
		return true, false, false
	case "recall", "context":
		return false, true, false
	case "send", "reply", "post", "dm", "tell", "fetch", "web":
		return false, false, true
	case "escalate", "cancel":
		return false, false, false
	}
	if v.ReadOnly {
		return true, false, false
	}
	return false, true, true
}

// verbDescription is the verb's description, forms and examples.
func verbDescription(v *verbs.Verb) string {
	var b strings.Builder
	b.WriteString(v.Description)
	if v.Form != "" {
		b.WriteString(". Forms: " + v.Form)
	}
	for i, ex := range v.Examples {
		if i == 2 {
			break
		}
		if i == 0 {
			b.WriteString(". E.g. ")
		} else {
			b.WriteString(" | ")
		}
		b.WriteString(ex)
	}
	if v.HasOperations {
		b.WriteString(". args is: TOOL key=value ... (an MCP server's tool)")
	}
	return b.String()
}

// runMessage runs one message through the runtime and reports its results
// as text (as `dialect run` prints them) and as structured content. With
// verb set, the message must be exactly one action of that verb: the args
// of a verb's tool cannot smuggle in another action.
func runMessage(ctx context.Context, rt *dialect.Runtime, meta dialect.Meta, text, agent, session, verb string) (*sdk.CallToolResult, error) {
	m := dialect.Meta{Agent: agent, Session: session}.Or(meta)
	if verb != "" {
		det := rt.Detect(text)
		if len(det) != 1 || det[0].Action.Span.Start != 0 || det[0].Verb != verb {
			return toolError(fmt.Sprintf("args must be the arguments of one /%s action, with no other action", verb)), nil
		}
	}
	results, err := rt.Run(ctx, m.Message(text))
	if err != nil && !errors.Is(err, dialect.ErrHalted) {
		if errors.Is(err, dialect.ErrAgentName) {
			return toolError(err.Error()), nil
		}
		return nil, err
	}
	var b strings.Builder
	failed, ran := 0, 0
	for _, r := range results {
		writeResult(&b, nil, r)
		switch r.Status {
		case dialect.StatusError, dialect.StatusDenied:
			failed++
		case dialect.StatusOK, dialect.StatusPending:
			ran++
		}
	}
	if len(results) == 0 {
		b.WriteString("no actions found: end the message with /verb arguments\n")
	}
	res := &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: b.String()}},
		StructuredContent: map[string]any{"results": results},
		IsError:           failed > 0 && ran == 0 || verb != "" && ran == 0,
	}
	return res, nil
}

func toolError(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: msg}}, IsError: true}
}
