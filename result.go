package dialect

import (
	"context"
	"encoding/json"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/intent"
)

// Message is one model message with the metadata the runtime keeps: who
// wrote it, with which model, in which session.
type Message struct {
	Text    string `json:"text"`
	Agent   string `json:"agent,omitempty"`
	Model   string `json:"model,omitempty"`
	Session string `json:"session,omitempty"`
}

// Meta is what the runtime keeps about who made a model call: the agent,
// the model and the conversation session. Hosts attach it to a request's
// context with WithMeta; middleware copies it into every Message it runs.
type Meta struct {
	Agent   string `json:"agent,omitempty"`
	Model   string `json:"model,omitempty"`
	Session string `json:"session,omitempty"`
}

type metaKey struct{}

// WithMeta returns a context carrying m.
func WithMeta(ctx context.Context, m Meta) context.Context {
	return context.WithValue(ctx, metaKey{}, m)
}

// MetaFrom returns the Meta carried by ctx, if any.
func MetaFrom(ctx context.Context) (Meta, bool) {
	m, ok := ctx.Value(metaKey{}).(Meta)
	return m, ok
}

// Message returns a Message with text and m's metadata.
func (m Meta) Message(text string) Message {
	return Message{Text: text, Agent: m.Agent, Model: m.Model, Session: m.Session}
}

// Or fills m's empty fields from d.
func (m Meta) Or(d Meta) Meta {
	if m.Agent == "" {
		m.Agent = d.Agent
	}
	if m.Model == "" {
		m.Model = d.Model
	}
	if m.Session == "" {
		m.Session = d.Session
	}
	return m
}

// Status is what became of one action.
type Status string

// The statuses of the `dialect run --json` contract.
const (
	StatusOK      Status = "ok"      // executed
	StatusError   Status = "error"   // meant to run, but could not (a typed failure)
	StatusPending Status = "pending" // queued for approval
	StatusDenied  Status = "denied"  // refused by permission or a standing rule
	StatusSkipped Status = "skipped" // not meant to run: a mention, reconsidered, cancelled
)

// Result is what the pipeline made of one detected action. Run fills every
// field it reached; Detect and Parse, which stop before the gate, leave
// Status empty.
type Result struct {
	Index  int           `json:"index"`          // position among the message's actions
	Line   int           `json:"line"`           // 1-based line of the action
	Token  string        `json:"token"`          // the verb as written
	Verb   string        `json:"verb"`           // the verb it resolved to, "" when none
	Tier   string        `json:"tier,omitempty"` // how the token resolved: exact, case, morph, spelling, edit, phonetic, semantic
	Intent intent.Intent `json:"-"`              // what it means; nil when parsing failed or was not reached
	Status Status        `json:"status"`         // what happened
	Output string        `json:"output"`         // text for the model
	Data   any           `json:"data,omitempty"` // the executor's data, for programs
	Code   codes.Code    `json:"code,omitempty"` // the failure code, for error, pending and denied
	// Stage is the pipeline stage that stopped the action: "detect",
	// "resolve", "parse", "references", "bind", "gate" or "execute"; empty
	// when it ran.
	Stage  string `json:"stage,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Pos is the 1-based column in the arguments a parse failure is at.
	Pos int `json:"pos,omitempty"`
	// Candidates are the verbs an unknown or ambiguous token may mean, or
	// the blocks ambiguous arguments name.
	Candidates []string `json:"candidates,omitempty"`
	Pending    int64    `json:"pending,omitempty"` // the queue id, for pending
	Chain      string   `json:"chain,omitempty"`   // the rest of a chain, for the agent to re-issue

	// Action is the action as the scanner found it: where it is, its
	// arguments, and whether its position makes it executable.
	Action detect.Action `json:"-"`
}

// MarshalJSON writes the result with its intent encoded by intent.Marshal.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	var in json.RawMessage
	if r.Intent != nil {
		b, err := intent.Marshal(r.Intent)
		if err != nil {
			return nil, err
		}
		in = b
	}
	return json.Marshal(struct {
		plain
		Intent json.RawMessage `json:"intent"`
	}{plain(r), in})
}
