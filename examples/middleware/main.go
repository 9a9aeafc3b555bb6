// Command middleware is an example host: it asks an OpenAI-compatible
// server for a streamed answer with github.com/openai/openai-go, through
// the dialect middleware, prints the answer as it arrives (without the
// action lines) and then the results of the actions the model wrote.
//
//	go run ./examples/middleware -base-url http://127.0.0.1:11434/v1/ -model llama3.2 "Remember that the deadline is Friday."
//	go run ./examples/middleware -demo "anything"   # a built-in local server, no model needed
//
// The base URL comes from -base-url, else $OPENAI_BASE_URL; the key from
// $OPENAI_API_KEY. The runtime reads dialect.toml by the usual lookup
// (-config to name one) and keeps its state in -db (default: the usual
// place, see dialect.toml [store]).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/middleware"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "middleware:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("middleware", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1/ ($OPENAI_BASE_URL)")
	model := fs.String("model", "gpt-4o-mini", "model name")
	config := fs.String("config", "", "dialect.toml (default: the usual lookup)")
	db := fs.String("db", "", "SQLite file of the runtime (default: store.path, $DIALECT_DB, XDG state dir)")
	agent := fs.String("agent", "example", "agent name the runtime records")
	session := fs.String("session", "example", "session name the runtime records")
	demo := fs.Bool("demo", false, "answer from a built-in local server instead of a model")
	show := fs.Bool("show-actions", false, "show the action lines in the streamed text too")
	if err := fs.Parse(args); err != nil {
		return err
	}
	prompt := strings.Join(fs.Args(), " ")
	if prompt == "" {
		return fmt.Errorf("give a prompt")
	}

	cfg, err := dialect.LoadConfig(dialect.DefaultLookup(*config))
	if err != nil {
		return err
	}
	if *db != "" {
		cfg.Store.Path = *db
	}
	rt, err := dialect.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer rt.Close()

	if *demo {
		srv := httptest.NewServer(demoServer())
		defer srv.Close()
		*baseURL = srv.URL + "/v1/"
	}
	if *baseURL == "" {
		return fmt.Errorf("no base URL: set -base-url or $OPENAI_BASE_URL, or use -demo")
	}

	// The results of each call arrive here once its message is complete:
	// by the time the stream below has ended, the callback has run.
	var done middleware.Completion
	opts := []middleware.Option{middleware.OnCompletion(func(c middleware.Completion) { done = c })}
	if !*show {
		opts = append(opts, middleware.HideActions())
	}
	client := openai.NewClient(
		option.WithBaseURL(*baseURL),
		option.WithHTTPClient(&http.Client{Transport: middleware.Transport(rt, nil, opts...)}),
	)
	// Who is calling, for the runtime's records and permission checks.
	ctx = dialect.WithMeta(ctx, dialect.Meta{Agent: *agent, Session: *session})

	stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model: *model,
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(instructions),
			openai.UserMessage(prompt),
		},
	})
	for stream.Next() {
		if ch := stream.Current(); len(ch.Choices) > 0 {
			io.WriteString(stdout, ch.Choices[0].Delta.Content)
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if done.Err != nil {
		return done.Err
	}
	for _, r := range done.Results {
		fmt.Fprintf(stdout, "[%s] /%s → %s", r.Status, r.Token, r.Verb)
		if r.Output != "" {
			fmt.Fprintf(stdout, ": %s", r.Output)
		}
		if r.Reason != "" {
			fmt.Fprintf(stdout, " (%s)", r.Reason)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// instructions is a short system prompt teaching the dialect. A host
// would rather print `dialect verbs --instructions` once and use that.
const instructions = `You can act by ending your answer with slash actions, one per line:
/recall NAME + "text"   append text to the memory block NAME
/recall WORDS           search long-term memory
/search WORDS           search memory and past conversations
Write actions only at the very end of your answer.`

// demoServer answers every chat completion like a model that saves a note,
// streaming it in small pieces.
func demoServer() http.Handler {
	const answer = "Got it, I'll keep that in mind.\n/recall deadlines + \"the report is due on Friday\"\n/search deadline\n"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream bool `json:"stream"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		head := `{"id":"demo","object":"chat.completion.chunk","created":0,"model":"demo",`
		if !req.Stream {
			c, _ := json.Marshal(answer)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"demo","object":"chat.completion","created":0,"model":"demo","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, c)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < len(answer); i += 6 {
			c, _ := json.Marshal(answer[i:min(i+6, len(answer))])
			fmt.Fprintf(w, "data: %s\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", head, c)
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, "data: %s\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", head)
	})
}
