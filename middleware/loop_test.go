package middleware

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/pattern-dialect/dialect/internal/wire"
	"github.com/pattern-dialect/dialect/internal/wire/wiretest"
	"github.com/pattern-dialect/dialect/turn"
)

// actOnce acts in its first turn (a calculation) and answers with the
// result once the results turn came back; "always" acts every turn, and
// "fail" makes the second turn fail with a 503.
func actOnce(s wiretest.Seen) wiretest.Answer {
	last := s.Messages[len(s.Messages)-1].Text
	switch {
	case strings.HasPrefix(last, turn.Header) && s.Model == "fail":
		return wiretest.Answer{Status: 503}
	case strings.HasPrefix(last, turn.Header) && s.Model != "always":
		_, out, _ := strings.Cut(last, "→ ok\n")
		return wiretest.Answer{Text: "The answer is " + strings.TrimSpace(out) + "."}
	}
	return wiretest.Answer{Text: "Let me compute that.\n/calc 6 * 7\n"}
}

// askers run one question through each API's official client and
// return the assistant's text the client assembled.
var askers = map[wire.API]func(ctx context.Context, base string, hc *http.Client, model string, stream bool) (string, error){
	wire.Chat: func(ctx context.Context, base string, hc *http.Client, model string, stream bool) (string, error) {
		c := openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("k"), option.WithHTTPClient(hc), option.WithMaxRetries(0))
		p := openai.ChatCompletionNewParams{Model: model, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is 6 times 7?")}}
		if !stream {
			r, err := c.Chat.Completions.New(ctx, p)
			if err != nil {
				return "", err
			}
			return r.Choices[0].Message.Content, nil
		}
		s := c.Chat.Completions.NewStreaming(ctx, p)
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		if err := s.Err(); err != nil {
			return "", err
		}
		return acc.Choices[0].Message.Content, nil
	},
	wire.Responses: func(ctx context.Context, base string, hc *http.Client, model string, stream bool) (string, error) {
		c := openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("k"), option.WithHTTPClient(hc), option.WithMaxRetries(0))
		p := responses.ResponseNewParams{Model: model, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("What is 6 times 7?")}}
		if !stream {
			r, err := c.Responses.New(ctx, p)
			if err != nil {
				return "", err
			}
			return r.OutputText(), nil
		}
		s := c.Responses.NewStreaming(ctx, p)
		var deltas, final strings.Builder
		for s.Next() {
			ev := s.Current()
			switch ev.Type {
			case "response.output_text.delta":
				deltas.WriteString(ev.Delta)
			case "response.completed":
				final.WriteString(ev.Response.OutputText())
			case "error":
				return "", errors.New("error event: " + ev.Message)
			}
		}
		if err := s.Err(); err != nil {
			return "", err
		}
		if deltas.String() != final.String() {
			return "", errors.New("deltas " + deltas.String() + " differ from the completed response's " + final.String())
		}
		return final.String(), nil
	},
	wire.Messages: func(ctx context.Context, base string, hc *http.Client, model string, stream bool) (string, error) {
		c := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("k"), aoption.WithHTTPClient(hc), aoption.WithMaxRetries(0))
		p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 256,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is 6 times 7?"))}}
		var m *anthropic.Message
		if !stream {
			r, err := c.Messages.New(ctx, p)
			if err != nil {
				return "", err
			}
			m = r
		} else {
			s := c.Messages.NewStreaming(ctx, p)
			m = &anthropic.Message{}
			for s.Next() {
				if err := m.Accumulate(s.Current()); err != nil {
					return "", err
				}
			}
			if err := s.Err(); err != nil {
				return "", err
			}
		}
		var b strings.Builder
		for _, blk := range m.Content {
			b.WriteString(blk.Text)
		}
		return b.String(), nil
	},
}

var apis = []wire.API{wire.Chat, wire.Responses, wire.Messages}

func TestLoopEveryAPI(t *testing.T) {
	for _, api := range apis {
		for _, stream := range []bool{false, true} {
			name := api.String() + map[bool]string{false: "/json", true: "/sse"}[stream]
			t.Run(name, func(t *testing.T) {
				rt := openRuntime(t, "")
				srv := wiretest.New(t, actOnce)
				var col mwCollector
				hc := &http.Client{Transport: Transport(rt, nil, Loop(3), Instructions(), OnCompletion(col.add))}
				got, err := askers[api](context.Background(), srv.URL, hc, "m", stream)
				if err != nil {
					t.Fatal(err)
				}
				reqs := srv.Requests()
				if len(reqs) != 2 {
					t.Fatalf("%d upstream requests", len(reqs))
				}
				results := reqs[1].Messages[len(reqs[1].Messages)-1].Text
				want := "Let me compute that.\n/calc 6 * 7\n" + turn.Carried(results) + "The answer is 42."
				if got != want {
					t.Fatalf("client got\n%q\nwant\n%q", got, want)
				}
				if results != "Results of your actions:\n/calc 6 * 7 → ok\n  42" {
					t.Fatalf("results turn %q", results)
				}
				for i, r := range reqs {
					if !strings.Contains(r.System, "# Actions") || r.Stream != stream {
						t.Fatalf("request %d: instructions %v, stream %v", i, strings.Contains(r.System, "# Actions"), r.Stream)
					}
				}
				if n := len(reqs[1].Messages); n != 3 || reqs[1].Messages[1].Role != "assistant" {
					t.Fatalf("second request: %+v", reqs[1].Messages)
				}
				cs := col.all()
				if len(cs) != 2 || cs[0].Turn != 1 || cs[1].Turn != 2 || len(cs[0].Results) != 1 || len(cs[1].Results) != 0 {
					t.Fatalf("completions %+v", cs)
				}
			})
		}
	}
}

// The first turn passes as it came: one request, the text unchanged.
func TestLoopOneTurnPassesThrough(t *testing.T) {
	for _, api := range apis {
		for _, stream := range []bool{false, true} {
			rt := openRuntime(t, "")
			srv := wiretest.New(t, actOnce)
			var col mwCollector
			hc := &http.Client{Transport: Transport(rt, nil, OnCompletion(col.add))}
			got, err := askers[api](context.Background(), srv.URL, hc, "m", stream)
			if err != nil {
				t.Fatal(api, stream, err)
			}
			if got != "Let me compute that.\n/calc 6 * 7\n" || len(srv.Requests()) != 1 {
				t.Fatalf("%s stream=%v: %q after %d requests", api, stream, got, len(srv.Requests()))
			}
			if cs := col.all(); len(cs) != 1 || len(cs[0].Results) != 1 || cs[0].Results[0].Output != "42" {
				t.Fatalf("%s stream=%v: completions %+v", api, stream, cs)
			}
			if strings.Contains(srv.Requests()[0].System, "# Actions") {
				t.Fatal("instructions added without the option")
			}
		}
	}
}

func TestLoopTurnLimit(t *testing.T) {
	for _, api := range apis {
		for _, stream := range []bool{false, true} {
			rt := openRuntime(t, "")
			srv := wiretest.New(t, actOnce)
			var col mwCollector
			hc := &http.Client{Transport: Transport(rt, nil, Loop(2), OnCompletion(col.add))}
			got, err := askers[api](context.Background(), srv.URL, hc, "always", stream)
			if err != nil {
				t.Fatal(api, stream, err)
			}
			if len(srv.Requests()) != 2 || !strings.HasSuffix(got, turn.Limit(2)) || strings.Count(got, "<!-- dialect") != 2 {
				t.Fatalf("%s stream=%v: %d requests, answer %q", api, stream, len(srv.Requests()), got)
			}
			if cs := col.all(); len(cs) != 2 || !errors.Is(cs[1].Err, ErrTurnLimit) {
				t.Fatalf("%s stream=%v: completions %+v", api, stream, cs)
			}
		}
	}
}

// An upstream error on a later turn reaches the client, and the first
// turn's results are kept.
func TestLoopUpstreamErrorLaterTurn(t *testing.T) {
	for _, api := range apis {
		for _, stream := range []bool{false, true} {
			rt := openRuntime(t, "")
			srv := wiretest.New(t, actOnce)
			var col mwCollector
			hc := &http.Client{Transport: Transport(rt, nil, Loop(3), OnCompletion(col.add))}
			_, err := askers[api](context.Background(), srv.URL, hc, "fail", stream)
			if err == nil || !strings.Contains(err.Error(), "503") {
				t.Fatalf("%s stream=%v: err %v", api, stream, err)
			}
			cs := col.all()
			var ue *UpstreamError
			if len(cs) != 2 || len(cs[0].Results) != 1 || cs[0].Results[0].Output != "42" || !errors.As(cs[1].Err, &ue) || ue.StatusCode != 503 {
				t.Fatalf("%s stream=%v: completions %+v", api, stream, cs)
			}
		}
	}
}

// Tool calls end the loop: the client must answer them.
func TestLoopToolCallsEnd(t *testing.T) {
	for _, api := range apis {
		for _, stream := range []bool{false, true} {
			rt := openRuntime(t, "")
			srv := wiretest.New(t, func(wiretest.Seen) wiretest.Answer {
				return wiretest.Answer{Text: "Checking.\n/calc 1 + 1\n", ToolCall: true}
			})
			hc := &http.Client{Transport: Transport(rt, nil, Loop(3))}
			got, err := askers[api](context.Background(), srv.URL, hc, "m", stream)
			if err != nil {
				t.Fatal(api, stream, err)
			}
			if len(srv.Requests()) != 1 || !strings.Contains(got, "<!-- dialect") {
				t.Fatalf("%s stream=%v: %d requests, %q", api, stream, len(srv.Requests()), got)
			}
		}
	}
}

func TestLoopHideActions(t *testing.T) {
	for _, api := range apis {
		for _, stream := range []bool{false, true} {
			rt := openRuntime(t, "")
			srv := wiretest.New(t, actOnce)
			hc := &http.Client{Transport: Transport(rt, nil, Loop(3), HideActions())}
			got, err := askers[api](context.Background(), srv.URL, hc, "m", stream)
			if err != nil {
				t.Fatal(api, stream, err)
			}
			before, _, _ := strings.Cut(got, "<!-- dialect")
			if strings.Contains(before, "/calc") || !strings.HasPrefix(got, "Let me compute that.\n") || !strings.HasSuffix(got, "-->\n\nThe answer is 42.") {
				t.Fatalf("%s stream=%v: %q", api, stream, got)
			}
		}
	}
}

// The upstream's error body on a later turn reaches a JSON client byte
// for byte, with the results so far in the header.
func TestLoopUpstreamErrorBodyUnchanged(t *testing.T) {
	for _, api := range apis {
		rt := openRuntime(t, "")
		srv := wiretest.New(t, actOnce)
		hc := &http.Client{Transport: Transport(rt, nil, Loop(3))}
		body := `{"model":"fail","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"input":"hi"}`
		resp, err := hc.Post(srv.URL+"/v1"+api.Path(), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 503 || string(got) != wiretest.ErrorBody(api, 503) || !strings.Contains(resp.Header.Get(HeaderResults), `"output":"42"`) {
			t.Fatalf("%s: %d %q, results %q", api, resp.StatusCode, got, resp.Header.Get(HeaderResults))
		}
	}
}
