package middleware_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/middleware"
)

// A host using openai-go with the dialect middleware: the streamed answer
// reaches the program without its action lines, and the actions run when
// the message is complete.
func ExampleTransport() {
	// A stand-in for a model server: it streams one answer.
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, piece := range []string{`"Noted, the review moved.\n/rec"`, `"all reviews + \"Friday 3pm\"\n"`} {
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", piece)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer model.Close()

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	cfg, _ := dialect.ParseConfig("example.toml", nil)
	cfg.Store.Path = filepath.Join(dir, "state.db")
	rt, err := dialect.Open(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()

	var done middleware.Completion
	client := openai.NewClient(
		option.WithBaseURL(model.URL+"/v1/"),
		option.WithAPIKey("unused"),
		option.WithHTTPClient(&http.Client{Transport: middleware.Transport(rt, nil,
			middleware.HideActions(),
			middleware.OnCompletion(func(c middleware.Completion) { done = c }))}),
	)
	ctx := dialect.WithMeta(context.Background(), dialect.Meta{Agent: "scout", Session: "s1"})
	stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("The review moved to Friday 3pm.")},
	})
	for stream.Next() {
		if ch := stream.Current(); len(ch.Choices) > 0 {
			fmt.Print(ch.Choices[0].Delta.Content)
		}
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
	// The stream has ended: the message's actions have run.
	for _, r := range done.Results {
		fmt.Printf("[%s] /%s: %s\n", r.Status, r.Verb, r.Output)
	}
	// Output:
	// Noted, the review moved.
	// [ok] /recall: appended to reviews (now v1)
}
