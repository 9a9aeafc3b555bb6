// Package openaisdk makes a client of the official OpenAI SDK
// (github.com/openai/openai-go/v3) a loop.Model: Chat over Chat
// Completions, Responses over the Responses API, both streaming.
//
// It is a package of its own so that a program that does not use the SDK
// (the dialect command among them) does not link it: loop.HTTP speaks the
// same APIs without one. Use this package when a program already has an
// openai.Client, with its options, retries, middleware and
// authentication.
package openaisdk

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/pattern-dialect/dialect/loop"
)

// Chat is a loop.Model over openai-go's Chat Completions, streaming.
type Chat struct {
	Client openai.Client
	Model  string
	// Params holds the rest of every request (temperature, tools...);
	// Reply sets its Model, Messages (the system prompt first) and, when
	// unset, StreamOptions.IncludeUsage.
	Params openai.ChatCompletionNewParams
	// Options are added to every request.
	Options []option.RequestOption
}

// Reply implements loop.Model. An error answer of the API is the SDK's
// *openai.Error.
func (c *Chat) Reply(ctx context.Context, req loop.Request, text io.Writer) (loop.Reply, error) {
	p := c.Params
	p.Model = c.Model
	p.Messages = make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)+1)
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		if m.Role == loop.Assistant {
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Text))
		} else {
			p.Messages = append(p.Messages, openai.UserMessage(m.Text))
		}
	}
	if !p.StreamOptions.IncludeUsage.Valid() {
		p.StreamOptions.IncludeUsage = openai.Bool(true)
	}
	s := c.Client.Chat.Completions.NewStreaming(ctx, p, c.Options...)
	defer s.Close()
	var out loop.Reply
	var b strings.Builder
	for s.Next() {
		ch := s.Current()
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			if d := choice.Delta.Content; d != "" {
				b.WriteString(d)
				io.WriteString(text, d)
			}
			if len(choice.Delta.ToolCalls) > 0 || choice.FinishReason == "tool_calls" || choice.FinishReason == "function_call" {
				out.ToolCalls = true
			}
		}
		if ch.JSON.Usage.Valid() {
			out.Usage = loop.Usage{Input: int(ch.Usage.PromptTokens), Output: int(ch.Usage.CompletionTokens)}
		}
	}
	if err := s.Err(); err != nil {
		return loop.Reply{}, err
	}
	out.Text = b.String()
	return out, nil
}

// Responses is a loop.Model over openai-go's Responses API, streaming.
// Each request carries the whole conversation (it does not continue a
// stored response).
type Responses struct {
	Client openai.Client
	Model  string
	// Params holds the rest of every request (reasoning, tools,
	// store...); Reply sets its Model, Instructions (the system prompt)
	// and Input.
	Params responses.ResponseNewParams
	// Options are added to every request.
	Options []option.RequestOption
}

// ErrFailed is the error of a Responses stream that ended with an error
// event or a failed response; the text is the API's message.
var ErrFailed = errors.New("openaisdk: the response failed")

// Reply implements loop.Model. An error answer of the API is the SDK's
// *openai.Error; an error event in the stream wraps ErrFailed.
func (r *Responses) Reply(ctx context.Context, req loop.Request, text io.Writer) (loop.Reply, error) {
	p := r.Params
	p.Model = r.Model
	if req.System != "" {
		p.Instructions = openai.String(req.System)
	}
	items := make(responses.ResponseInputParam, 0, len(req.Messages))
	for _, m := range req.Messages {
		role := responses.EasyInputMessageRoleUser
		if m.Role == loop.Assistant {
			role = responses.EasyInputMessageRoleAssistant
		}
		items = append(items, responses.ResponseInputItemParamOfMessage(m.Text, role))
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	s := r.Client.Responses.NewStreaming(ctx, p, r.Options...)
	defer s.Close()
	var out loop.Reply
	var b strings.Builder
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_text.delta":
			b.WriteString(ev.Delta)
			io.WriteString(text, ev.Delta)
		case "response.output_item.added":
			if t := ev.Item.Type; t != "message" && t != "reasoning" {
				out.ToolCalls = true
			}
		case "response.completed", "response.incomplete":
			u := ev.Response.Usage
			out.Usage = loop.Usage{Input: int(u.InputTokens), Output: int(u.OutputTokens)}
		case "response.failed":
			return loop.Reply{}, errorf(ev.Response.Error.Message)
		case "error":
			return loop.Reply{}, errorf(ev.Message)
		}
	}
	if err := s.Err(); err != nil {
		return loop.Reply{}, err
	}
	out.Text = b.String()
	return out, nil
}

func errorf(msg string) error {
	if msg == "" {
		return ErrFailed
	}
	return &failedError{msg}
}

type failedError struct{ msg string }

func (e *failedError) Error() string { return ErrFailed.Error() + ": " + e.msg }
func (e *failedError) Unwrap() error { return ErrFailed }
