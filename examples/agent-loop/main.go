// Command agent-loop is a complete agent loop with package loop: it asks a
// model, runs the actions its reply ends with, gives the results back and
// asks again until a reply runs nothing.
//
//	go run ./examples/agent-loop -demo                    # a built-in scripted model
//	go run ./examples/agent-loop -api chat -base-url http://127.0.0.1:11434/v1 -model llama3.2 "What is 17% of 2,340?"
//
// -api is chat (OpenAI Chat Completions), responses (OpenAI Responses) or
// messages (Anthropic Messages); the key comes from $OPENAI_API_KEY or
// $ANTHROPIC_API_KEY. The runtime reads dialect.toml by the usual lookup
// and keeps its state in -db (default: a temporary file).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/loop"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agent-loop:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("agent-loop", flag.ContinueOnError)
	demo := fs.Bool("demo", false, "answer from a built-in scripted model")
	api := fs.String("api", "chat", "chat, responses or messages")
	base := fs.String("base-url", "http://127.0.0.1:11434/v1", "API base URL")
	model := fs.String("model", "llama3.2", "model name")
	db := fs.String("db", "", "SQLite file of the runtime (default: a temporary file)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	prompt := strings.Join(fs.Args(), " ")
	if prompt == "" {
		prompt = "What is 17% of 2,340?"
	}

	cfg, err := dialect.LoadConfig(dialect.DefaultLookup(""))
	if err != nil {
		return err
	}
	if *db == "" {
		dir, err := os.MkdirTemp("", "agent-loop")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*db = filepath.Join(dir, "state.db")
	}
	cfg.Store.Path = *db
	rt, err := dialect.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer rt.Close()

	var m loop.Model = &loop.HTTP{API: loop.API(*api), BaseURL: *base, Model: *model, APIKey: key(*api)}
	if *demo {
		m = scripted{}
	}
	out, err := loop.Run(ctx, rt, m, []loop.Message{{Role: loop.User, Text: prompt}}, loop.Options{
		System:      "You are a careful assistant.",
		HideActions: true,
		OnText:      func(s string) { io.WriteString(stdout, s) },
		OnResult: func(r dialect.Result) {
			fmt.Fprintf(stdout, "  [/%s %s: %s]\n", r.Token, r.Status, strings.TrimSpace(r.Output))
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n(%d turns, stopped: %s, %d tokens)\n", len(out.Turns), out.Stop, out.Usage.Total())
	return nil
}

func key(api string) string {
	if api == string(loop.Messages) {
		return os.Getenv("ANTHROPIC_API_KEY")
	}
	return os.Getenv("OPENAI_API_KEY")
}

// scripted is a model that acts in its first turn and answers from the
// results in its second, streaming word by word.
type scripted struct{}

func (scripted) Reply(ctx context.Context, req loop.Request, text io.Writer) (loop.Reply, error) {
	last := req.Messages[len(req.Messages)-1].Text
	answer := "Let me compute that.\n/calc 17% of 2340\n"
	if _, out, ok := strings.Cut(last, "→ ok\n"); ok {
		answer = "It is " + strings.TrimSpace(out) + "."
	}
	for _, w := range strings.SplitAfter(answer, " ") {
		if err := ctx.Err(); err != nil {
			return loop.Reply{}, err
		}
		io.WriteString(text, w)
	}
	return loop.Reply{Text: answer, Usage: loop.Usage{Input: len(last) / 4, Output: len(answer) / 4}}, nil
}
