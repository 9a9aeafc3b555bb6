package intent

import (
	"encoding/json"
	"fmt"
)

// Intent is what one action means.
type Intent interface {
	// Kind names the intent's type as it appears in JSON: "recall",
	// "context", "search", "send", "fetch", "web", "calc", "authority" or
	// "custom".
	Kind() string
	// ReadOnly reports whether carrying out the intent leaves every store
	// and every outside party untouched (docs/language.md §2: recall read or
	// search, search, calc).
	ReadOnly() bool
}

// RecallOp is an operation on long-term (archival) memory.
type RecallOp string

// The recall operations.
const (
	RecallRead   RecallOp = "read"
	RecallSearch RecallOp = "search"
	RecallInsert RecallOp = "insert"
	RecallAppend RecallOp = "append"
	RecallDelete RecallOp = "delete"
	RecallPatch  RecallOp = "patch"
	// RecallHistory lists a block's versions; RecallRestore makes a new
	// version equal to an earlier one.
	RecallHistory RecallOp = "history"
	RecallRestore RecallOp = "restore"
)

// Recall reads or changes archival memory. Block names the block for read,
// append, delete, patch, history and restore; Version picks an earlier
// version for read (0: the current one) and restore; Query is set for
// search; Content for insert and append; Patch holds the unified diff for
// patch. Tags and Project label what insert and append store, so that the
// filters #tag and *project find it.
type Recall struct {
	Op      RecallOp `json:"op"`
	Block   string   `json:"block,omitempty"`
	Version int      `json:"version,omitempty"`
	Query   string   `json:"query,omitempty"`
	Content string   `json:"content,omitempty"`
	Patch   string   `json:"patch,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Project string   `json:"project,omitempty"`
	Filters Filters  `json:"filters,omitzero"`
	Refs    []Ref    `json:"refs,omitempty"`
}

// Kind returns "recall".
func (Recall) Kind() string { return "recall" }

// ReadOnly is true for read, search and history.
func (r Recall) ReadOnly() bool {
	return r.Op == RecallRead || r.Op == RecallSearch || r.Op == RecallHistory
}

// ContextOp is an operation on working memory.
type ContextOp string

// The context operations.
const (
	ContextAppend  ContextOp = "append"
	ContextReplace ContextOp = "replace"
	ContextArchive ContextOp = "archive"
	ContextLoad    ContextOp = "load"
	ContextSwap    ContextOp = "swap"
)

// Context changes working memory, the blocks always in the prompt. Block is
// the working block; Content is appended; Old is replaced by New; Label
// names the archival block that load brings in and swap exchanges.
type Context struct {
	Op      ContextOp `json:"op"`
	Block   string    `json:"block,omitempty"`
	Content string    `json:"content,omitempty"`
	Old     string    `json:"old,omitempty"`
	New     string    `json:"new,omitempty"`
	Label   string    `json:"label,omitempty"`
	Refs    []Ref     `json:"refs,omitempty"`
}

// Kind returns "context".
func (Context) Kind() string { return "context" }

// ReadOnly is false: every context operation changes working memory.
func (Context) ReadOnly() bool { return false }

// Search looks through memory and logged conversations. An empty Domains
// means every domain.
type Search struct {
	Terms   string    `json:"terms"`
	Domains []string  `json:"domains,omitempty"`
	Time    TimeRange `json:"time,omitzero"`
	Role    string    `json:"role,omitempty"`
	Filters Filters   `json:"filters,omitzero"`
	Refs    []Ref     `json:"refs,omitempty"`
}

// The search domains of docs/language.md §5.
const (
	DomainArchival      = "archival"
	DomainConversations = "conversations"
	DomainConstellation = "constellation"
)

// Kind returns "search".
func (Search) Kind() string { return "search" }

// ReadOnly is true.
func (Search) ReadOnly() bool { return true }

// Send delivers Content to Target on Domain ("user", "agent", "channel",
// "bluesky", "discord", or a configured one; "thread" for a reply in the
// current thread). Via names the shorthand written (reply, post, dm, tell)
// when it shaped the defaults; it is empty for send itself.
type Send struct {
	Domain  string `json:"domain"`
	Target  string `json:"target,omitempty"`
	Content string `json:"content"`
	Via     string `json:"via,omitempty"`
	Refs    []Ref  `json:"refs,omitempty"`
}

// Kind returns "send".
func (Send) Kind() string { return "send" }

// ReadOnly is false.
func (Send) ReadOnly() bool { return false }

// Fetch retrieves URL; Format is "text" (readable text, the default) or
// "html". Continue asks for the next part of the previous fetch. URL may
// be a reference (@last.output) listed in Refs, for the runtime to resolve.
type Fetch struct {
	URL      string `json:"url,omitempty"`
	Format   string `json:"format,omitempty"`
	Continue bool   `json:"continue,omitempty"`
	Refs     []Ref  `json:"refs,omitempty"`
}

// Kind returns "fetch".
func (Fetch) Kind() string { return "fetch" }

// ReadOnly is false: a fetch reaches outside the runtime, so it is not run
// early while streaming.
func (Fetch) ReadOnly() bool { return false }

// Web searches the web through the configured provider.
type Web struct {
	Query string `json:"query"`
	Refs  []Ref  `json:"refs,omitempty"`
}

// Kind returns "web".
func (Web) Kind() string { return "web" }

// ReadOnly is false: the query leaves the runtime.
func (Web) ReadOnly() bool { return false }

// Calc evaluates an expression: arithmetic, percentages, unit conversions.
type Calc struct {
	Expr string `json:"expr"`
	Refs []Ref  `json:"refs,omitempty"`
}

// Kind returns "calc".
func (Calc) Kind() string { return "calc" }

// ReadOnly is true.
func (Calc) ReadOnly() bool { return true }

// AuthorityOp is an act of authority over pending actions or the runtime.
type AuthorityOp string

// The authority operations.
const (
	Approve  AuthorityOp = "approve"
	Deny     AuthorityOp = "deny"
	Escalate AuthorityOp = "escalate"
	Cancel   AuthorityOp = "cancel"
	Halt     AuthorityOp = "halt"
)

// Authority approves, denies, escalates or cancels a pending action (ID),
// or halts the runtime. A cancel with no ID cancels the message's earlier
// actions. Always makes an approval or denial a standing rule.
type Authority struct {
	Op     AuthorityOp `json:"op"`
	ID     string      `json:"id,omitempty"`
	Always bool        `json:"always,omitempty"`
	Reason string      `json:"reason,omitempty"`
}

// Kind returns "authority".
func (Authority) Kind() string { return "authority" }

// ReadOnly is false.
func (Authority) ReadOnly() bool { return false }

// Custom is a verb configured in dialect.toml. MapsTo names the built-in
// verb or tool it runs as; Args holds what its grammar captured; Template is
// the configured template after {field} substitution ("" when none).
type Custom struct {
	Verb            string         `json:"verb"`
	MapsTo          string         `json:"maps_to"`
	Args            map[string]any `json:"args,omitempty"`
	TemplateApplied string         `json:"template_applied,omitempty"`
	Target          *Target        `json:"target,omitempty"`
	// ReadOnlyHint is set for a verb whose definition says it changes
	// nothing (a Go verb, an MCP tool annotated read-only).
	ReadOnlyHint bool `json:"read_only,omitempty"`
	// Tool is the MCP tool the call runs, for a verb that is an MCP server
	// (Verb and MapsTo are then the server's name); "" otherwise.
	Tool string `json:"tool,omitempty"`
	// Destructive is set for an MCP tool that is not read-only and may
	// destroy or overwrite: its destructiveHint is true or absent (MCP's
	// default). The approval gate reads it.
	Destructive bool   `json:"destructive,omitempty"`
	Inner       Intent `json:"-"`
}

// Target is a delivery target named in configuration.
type Target struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// Kind returns "custom".
func (Custom) Kind() string { return "custom" }

// ReadOnly is the read-only flag of the built-in intent the verb maps to,
// when there is one, else ReadOnlyHint: a configured tool is never
// read-only.
func (c Custom) ReadOnly() bool {
	if c.Inner != nil {
		return c.Inner.ReadOnly()
	}
	return c.ReadOnlyHint
}

// MarshalJSON encodes the intent with its inner built-in intent, if any.
func (c Custom) MarshalJSON() ([]byte, error) {
	type plain Custom
	var inner json.RawMessage
	if c.Inner != nil {
		b, err := Marshal(c.Inner)
		if err != nil {
			return nil, err
		}
		inner = b
	}
	return json.Marshal(struct {
		plain
		Inner json.RawMessage `json:"inner,omitempty"`
	}{plain(c), inner})
}

// Marshal encodes an intent as a JSON object whose first field is "kind".
func Marshal(in Intent) ([]byte, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("intent: %s did not encode as an object", in.Kind())
	}
	out := make([]byte, 0, len(body)+len(in.Kind())+12)
	out = append(out, `{"kind":`...)
	out, _ = appendJSONString(out, in.Kind())
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

func appendJSONString(dst []byte, s string) ([]byte, error) {
	b, err := json.Marshal(s)
	return append(dst, b...), err
}

// DecodeError says why JSON could not be decoded into an intent.
type DecodeError struct {
	Kind string // the "kind" read, if any
	Err  error
}

func (e *DecodeError) Error() string {
	if e.Kind == "" {
		return "intent: " + e.Err.Error()
	}
	return fmt.Sprintf("intent %q: %v", e.Kind, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Decode turns JSON written by Marshal back into the intent it encoded.
func Decode(data []byte) (Intent, error) {
	var head struct {
		Kind  string          `json:"kind"`
		Op    string          `json:"op"`
		Inner json.RawMessage `json:"inner"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, &DecodeError{Err: err}
	}
	var in Intent
	var err error
	switch head.Kind {
	case "recall":
		var v Recall
		err = json.Unmarshal(data, &v)
		if err == nil && !oneOf(string(v.Op), RecallRead, RecallSearch, RecallInsert, RecallAppend, RecallDelete, RecallPatch, RecallHistory, RecallRestore) {
			err = fmt.Errorf("unknown op %q", v.Op)
		}
		in = v
	case "context":
		var v Context
		err = json.Unmarshal(data, &v)
		if err == nil && !oneOf(string(v.Op), ContextAppend, ContextReplace, ContextArchive, ContextLoad, ContextSwap) {
			err = fmt.Errorf("unknown op %q", v.Op)
		}
		in = v
	case "search":
		var v Search
		err = json.Unmarshal(data, &v)
		in = v
	case "send":
		var v Send
		err = json.Unmarshal(data, &v)
		in = v
	case "fetch":
		var v Fetch
		err = json.Unmarshal(data, &v)
		in = v
	case "web":
		var v Web
		err = json.Unmarshal(data, &v)
		in = v
	case "calc":
		var v Calc
		err = json.Unmarshal(data, &v)
		in = v
	case "authority":
		var v Authority
		err = json.Unmarshal(data, &v)
		if err == nil && !oneOf(string(v.Op), Approve, Deny, Escalate, Cancel, Halt) {
			err = fmt.Errorf("unknown op %q", v.Op)
		}
		in = v
	case "custom":
		var v Custom
		err = json.Unmarshal(data, &v)
		if err == nil && len(head.Inner) > 0 && string(head.Inner) != "null" {
			var inner Intent
			inner, err = Decode(head.Inner)
			if _, nested := inner.(Custom); err == nil && nested {
				err = fmt.Errorf("a custom intent cannot wrap another")
			}
			v.Inner = inner
		}
		in = v
	case "":
		return nil, &DecodeError{Err: fmt.Errorf("no kind")}
	default:
		return nil, &DecodeError{Kind: head.Kind, Err: fmt.Errorf("unknown kind")}
	}
	if err != nil {
		return nil, &DecodeError{Kind: head.Kind, Err: err}
	}
	return in, nil
}

func oneOf[T ~string](s string, opts ...T) bool {
	for _, o := range opts {
		if s == string(o) {
			return true
		}
	}
	return false
}
