// Package mcptest is a real MCP server, built with the official Go SDK,
// for tests: a test binary runs it as a stdio server by re-executing
// itself (Main in TestMain), or serves it over HTTP in-process (Server).
//
// Its tools keep notes as files in a directory: read_note (read-only),
// write_note (no annotations: destructive by MCP's default), append_note
// (additive: destructiveHint false), add (read-only, structured output),
// tag (an array, a boolean, an enum), fail (an isError result), picture
// (an image), sleep (for timeouts) and pid (its process id).
package mcptest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Flag is the first argument that makes a test binary an MCP server.
const Flag = "-mcp-test-server"

// Command is the argv that starts the server in mode with notes kept in
// dir: mode "notes" serves; "spawn" serves after starting a child process
// that never ends by itself (its pid in dir/child), "spawn-hang" starts it
// and never answers; "hang" never answers;
// "crash" writes to stderr and exits 1. Each start appends the process id
// to dir/starts.
func Command(mode, dir string) []string {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return []string{exe, Flag, mode, dir}
}

// Main runs the server and exits when the process was started by Command;
// otherwise it returns at once. Call it first in TestMain.
func Main() {
	if len(os.Args) < 4 || os.Args[1] != Flag {
		return
	}
	// Every start is recorded, so tests can count starts and check that
	// a closed server's process is gone.
	if f, err := os.OpenFile(filepath.Join(os.Args[3], "starts"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
	switch os.Args[2] {
	case "hang":
		time.Sleep(time.Hour)
	case "spawn", "spawn-hang":
		// A child of its own in the same process group, as npx starts
		// node: it outlives the server unless the group is killed.
		child := exec.Command("sleep", "3600")
		if child.Start() == nil {
			os.WriteFile(filepath.Join(os.Args[3], "child"), []byte(fmt.Sprint(child.Process.Pid)), 0o644)
		}
		if os.Args[2] == "spawn-hang" {
			time.Sleep(time.Hour)
		}
	case "crash":
		fmt.Fprintln(os.Stderr, "mcptest: cannot open the database: permission denied")
		os.Exit(1)
	}
	err := Server(os.Args[3]).Run(context.Background(), &sdk.StdioTransport{})
	if err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

type noteArgs struct {
	Name string `json:"name" jsonschema:"the note's name"`
}

type writeArgs struct {
	Name    string `json:"name" jsonschema:"the note's name"`
	Content string `json:"content" jsonschema:"the text to store"`
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type sum struct {
	Sum float64 `json:"sum"`
}

type tagArgs struct {
	Name  string   `json:"name" jsonschema:"the note's name"`
	Tags  []string `json:"tags" jsonschema:"labels to add"`
	Pin   bool     `json:"pin,omitempty" jsonschema:"keep it on top"`
	Color string   `json:"color,omitempty" jsonschema:"one of red, green, blue"`
}

type sleepArgs struct {
	MS int `json:"ms" jsonschema:"milliseconds"`
}

// Server returns the server, keeping notes in dir.
func Server(dir string) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, nil)
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if r, ok := req.(*sdk.CallToolRequest); ok && r.Params != nil {
				if f, err := os.OpenFile(filepath.Join(dir, "calls"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
					fmt.Fprintln(f, r.Params.Name)
					f.Close()
				}
			}
			return next(ctx, method, req)
		}
	})
	path := func(name string) string { return filepath.Join(dir, filepath.Base(name)+".txt") }
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "read_note", Description: "Read a note by its name. Returns the whole text.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, a noteArgs) (*sdk.CallToolResult, any, error) {
			b, err := os.ReadFile(path(a.Name))
			if err != nil {
				return nil, nil, fmt.Errorf("no note %q", a.Name)
			}
			return text(string(b)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "write_note", Description: "Create or overwrite a note."},
		func(_ context.Context, _ *sdk.CallToolRequest, a writeArgs) (*sdk.CallToolResult, any, error) {
			if err := os.WriteFile(path(a.Name), []byte(a.Content), 0o644); err != nil {
				return nil, nil, err
			}
			return text(fmt.Sprintf("wrote %s (%d bytes)", a.Name, len(a.Content))), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "append_note", Description: "Add a line to a note.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: no()}},
		func(_ context.Context, _ *sdk.CallToolRequest, a writeArgs) (*sdk.CallToolResult, any, error) {
			f, err := os.OpenFile(path(a.Name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return nil, nil, err
			}
			defer f.Close()
			fmt.Fprintln(f, a.Content)
			return text("appended to " + a.Name), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, a addArgs) (*sdk.CallToolResult, sum, error) {
			return &sdk.CallToolResult{}, sum{a.A + a.B}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "tag", Description: "Tag a note.", Annotations: &sdk.ToolAnnotations{DestructiveHint: yes()},
		InputSchema: map[string]any{
			"type": "object", "required": []string{"name", "tags"}, "additionalProperties": false,
			"properties": map[string]any{
				"name":  map[string]any{"type": "string", "description": "the note's name"},
				"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "labels to add"},
				"pin":   map[string]any{"type": "boolean", "description": "keep it on top"},
				"color": map[string]any{"type": "string", "enum": []string{"red", "green", "blue"}},
			},
		}},
		func(_ context.Context, _ *sdk.CallToolRequest, a tagArgs) (*sdk.CallToolResult, any, error) {
			return text(fmt.Sprintf("%s: tags=%s pin=%v color=%s", a.Name, strings.Join(a.Tags, "|"), a.Pin, a.Color)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the disk is on fire")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "picture", Description: "A small picture.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here it is"},
				&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "sleep", Description: "Wait.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *sdk.CallToolRequest, a sleepArgs) (*sdk.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(a.MS) * time.Millisecond):
			case <-ctx.Done():
			}
			return text("slept"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "The server's process id.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return text(fmt.Sprint(os.Getpid())), nil, nil
		})
	return s
}

// Starts returns the process ids of the servers started with dir, in
// order.
func Starts(dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "starts"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		var pid int
		fmt.Sscan(f, &pid)
		out = append(out, pid)
	}
	return out
}

// Child returns the process id of the child a "spawn" server started, or 0.
func Child(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "child"))
	var pid int
	fmt.Sscan(string(b), &pid)
	return pid
}

// Calls returns the names of the tools called on the servers of dir, in
// order.
func Calls(dir string) []string {
	b, _ := os.ReadFile(filepath.Join(dir, "calls"))
	return strings.Fields(string(b))
}
