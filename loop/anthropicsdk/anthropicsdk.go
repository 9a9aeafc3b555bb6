// Package anthropicsdk makes a client of the official Anthropic SDK
// (github.com/anthropics/anthropic-sdk-go/v2) a loop.Model over the
// Messages API, streaming.
//
// It is a package of its own so that a program that does not use the SDK
// (the dialect command among them) does not link it: loop.HTTP speaks the
// same API without one. Use this package when a program already has an
// anthropic.Client, with its options, retries and authentication.
package anthropicsdk

import (
	"context"
	"io"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/pattern-dialect/dialect/loop"
)

// DefaultMaxTokens is the max_tokens of a request whose Params leave it 0.
const DefaultMaxTokens = 4096

// Messages is a loop.Model over the Anthropic SDK's Messages API,
// streaming.
type Messages struct {
	Client anthropic.Client
	Model  string
	// Params holds the rest of every request (max_tokens, temperature,
	// tools...); Reply sets its Model, System and Messages, and MaxTokens
	// to DefaultMaxTokens when it is 0.
	Params anthropic.MessageNewParams
	// Options are added to every request.
	Options []option.RequestOption
}

// Reply implements loop.Model. An error answer of the API, or an error
// event in the stream, is the SDK's error (*anthropic.Error for a status).
func (m *Messages) Reply(ctx context.Context, req loop.Request, text io.Writer) (loop.Reply, error) {
	p := m.Params
	p.Model = anthropic.Model(m.Model)
	if p.MaxTokens == 0 {
		p.MaxTokens = DefaultMaxTokens
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	p.Messages = make([]anthropic.MessageParam, 0, len(req.Messages))
	for _, msg := range req.Messages {
		if msg.Role == loop.Assistant {
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock(msg.Text)))
		} else {
			p.Messages = append(p.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(msg.Text)))
		}
	}
	s := m.Client.Messages.NewStreaming(ctx, p, m.Options...)
	defer s.Close()
	var out loop.Reply
	var b strings.Builder
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "message_start":
			out.Usage.Input = int(ev.Message.Usage.InputTokens)
		case "content_block_start":
			if t := ev.ContentBlock.Type; t == "tool_use" || t == "server_tool_use" {
				out.ToolCalls = true
			}
		case "content_block_delta":
			if ev.Delta.Type == "text_delta" {
				b.WriteString(ev.Delta.Text)
				io.WriteString(text, ev.Delta.Text)
			}
		case "message_delta":
			// Usage counts here are totals for the whole message.
			out.Usage.Output = int(ev.Usage.OutputTokens)
			if ev.Usage.JSON.InputTokens.Valid() {
				out.Usage.Input = int(ev.Usage.InputTokens)
			}
			if ev.Delta.StopReason == anthropic.StopReasonToolUse {
				out.ToolCalls = true
			}
		}
	}
	if err := s.Err(); err != nil {
		return loop.Reply{}, err
	}
	out.Text = b.String()
	return out, nil
}
