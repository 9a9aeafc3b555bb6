package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/pattern-dialect/dialect"
)

// The assistant messages the tests have the fake upstream answer with.
const (
	// msgActions ends in a trailing run: a block append, a misspelled
	// search, and an inline mention that never runs.
	msgActions = "Saving that for later; I could /recall the old notes but no.\n" +
		"/recall notes + \"deadline friday\"\n" +
		"/serch deadline\n"
	// msgHidden mixes prose, an action line with a content block, and an
	// action that was reconsidered.
	msgHidden = "Here is the plan.\n" +
		"/recall plan\n" +
		"```\nstep one\nstep two\n```\n" +
		"/recall notes\n" +
		"Actually, never mind the notes.\n"
)

// mwCollector gathers the Completions the middleware delivers.
type mwCollector struct {
	mu sync.Mutex
	cs []Completion
}

func (c *mwCollector) add(x Completion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cs = append(c.cs, x)
}

func (c *mwCollector) all() []Completion {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Completion(nil), c.cs...)
}

// one waits for exactly one Completion.
func (c *mwCollector) one(t *testing.T) Completion {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if cs := c.all(); len(cs) > 0 {
			if len(cs) != 1 {
				t.Fatalf("%d completions, want 1: %+v", len(cs), cs)
			}
			return cs[0]
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("no completion delivered")
	return Completion{}
}

// mwSummary is what must not depend on transport or chunking: each result's
// verb, token, line, status and code (outputs may differ with the state
// earlier runs left in the store).
func mwSummary(rs []dialect.Result) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%d:%s/%s:%s:%s:%s;", r.Line, r.Token, r.Verb, r.Status, r.Code, r.Reason)
	}
	return b.String()
}

// mwWant runs text on a fresh runtime: the reference the middleware's
// results are compared with.
func mwWant(t *testing.T, text string) []dialect.Result {
	t.Helper()
	res, err := openRuntime(t, "").Run(context.Background(), dialect.Message{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func mwClient(base string, rt http.RoundTripper, opts ...option.RequestOption) openai.Client {
	opts = append([]option.RequestOption{
		option.WithBaseURL(base), option.WithAPIKey("test-key"), option.WithMaxRetries(0),
		option.WithHTTPClient(&http.Client{Transport: rt}),
	}, opts...)
	return openai.NewClient(opts...)
}

func mwParams(model, text string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)},
	}
}

// mwReadStream reads a whole streamed completion, returning the content and
// the last chunk seen.
func mwReadStream(t *testing.T, s interface {
	Next() bool
	Current() openai.ChatCompletionChunk
	Err() error
}) (string, []openai.ChatCompletionChunk) {
	t.Helper()
	var text strings.Builder
	var chunks []openai.ChatCompletionChunk
	for s.Next() {
		ch := s.Current()
		chunks = append(chunks, ch)
		if len(ch.Choices) > 0 {
			text.WriteString(ch.Choices[0].Delta.Content)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return text.String(), chunks
}

func TestMiddlewareJSON(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	var col mwCollector
	client := mwClient(up.URL+"/v1/", Transport(rt, nil, OnCompletion(col.add)))
	ctx := dialect.WithMeta(context.Background(), dialect.Meta{Agent: "scout", Session: "s1"})
	var resp *http.Response
	got, err := client.Chat.Completions.New(ctx, mwParams("m1", msgActions), option.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	if got.Choices[0].Message.Content != msgActions {
		t.Errorf("content changed: %q", got.Choices[0].Message.Content)
	}
	c := col.one(t)
	if c.Err != nil || c.Streamed || c.Text != msgActions {
		t.Fatalf("completion: %+v", c)
	}
	if c.Meta != (dialect.Meta{Agent: "scout", Model: "m1", Session: "s1"}) {
		t.Errorf("meta %+v", c.Meta)
	}
	ref := mwWant(t, msgActions)
	if mwSummary(c.Results) != mwSummary(ref) || len(ref) != 3 {
		t.Errorf("results\n got  %s\n want %s", mwSummary(c.Results), mwSummary(ref))
	}
	if c.Results[1].Status != dialect.StatusOK || c.Results[1].Output != ref[1].Output {
		t.Errorf("the append did not run like Run: %+v", c.Results[1])
	}
	var hdr []dialect.Result
	if err := json.Unmarshal([]byte(resp.Header.Get(HeaderResults)), &hdr); err != nil {
		t.Fatalf("%s: %v", HeaderResults, err)
	}
	if mwSummary(hdr) != mwSummary(c.Results) || hdr[1].Output != c.Results[1].Output {
		t.Errorf("header %s, want %s", mwSummary(hdr), mwSummary(c.Results))
	}
	// The append ran once: the block holds the line.
	res := run(t, rt, "ok\n/recall notes\n")
	if len(res) != 1 || !strings.Contains(res[0].Output, "deadline friday") {
		t.Errorf("block after the call: %+v", res)
	}
}

func TestMiddlewareJSONHeaderIsASCII(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	client := mwClient(up.URL+"/v1/", Transport(rt, nil))
	var resp *http.Response
	text := "Gardé.\n/recall notes + \"échéance vendredi 🎯\"\n"
	if _, err := client.Chat.Completions.New(context.Background(), mwParams("m1", text), option.WithResponseInto(&resp)); err != nil {
		t.Fatal(err)
	}
	h := resp.Header.Get(HeaderResults)
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 || h[i] < 0x20 {
			t.Fatalf("byte %d of the header is %#x: %s", i, h[i], h)
		}
	}
	var rs []dialect.Result
	if err := json.Unmarshal([]byte(h), &rs); err != nil || len(rs) != 1 {
		t.Fatalf("%v %s", err, h)
	}
	res := run(t, rt, "ok\n/recall notes\n")
	if !strings.Contains(res[0].Output, "échéance vendredi 🎯") {
		t.Errorf("stored %q", res[0].Output)
	}
}

func TestMiddlewareSSE(t *testing.T) {
	for _, model := range []string{"words", "bytes"} {
		t.Run(model, func(t *testing.T) {
			up := newFakeUpstream(t)
			rt := openRuntime(t, "")
			var col mwCollector
			client := mwClient(up.URL+"/v1/", Transport(rt, nil, OnCompletion(col.add), DefaultMeta(dialect.Meta{Agent: "scout"})))
			s := client.Chat.Completions.NewStreaming(context.Background(), mwParams(model, msgActions))
			text, chunks := mwReadStream(t, s)
			if text != msgActions {
				t.Errorf("streamed text %q", text)
			}
			// The stream has ended for the client: the completion is
			// already delivered.
			cs := col.all()
			if len(cs) != 1 {
				t.Fatalf("%d completions when the stream ended", len(cs))
			}
			c := cs[0]
			if c.Err != nil || !c.Streamed || c.Text != msgActions || c.Meta.Agent != "scout" || c.Meta.Model != model {
				t.Fatalf("completion %+v", c)
			}
			if mwSummary(c.Results) != mwSummary(mwWant(t, msgActions)) {
				t.Errorf("results %s", mwSummary(c.Results))
			}
			for _, ch := range chunks {
				if _, ok := ch.JSON.ExtraFields["dialect"]; ok {
					t.Error("results event sent without ResultsEvent")
				}
			}
		})
	}
}

func TestMiddlewareSSEResultsEvent(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	var col mwCollector
	client := mwClient(up.URL+"/v1/", Transport(rt, nil, OnCompletion(col.add), ResultsEvent()))
	s := client.Chat.Completions.NewStreaming(context.Background(), mwParams("m1", msgActions))
	acc := openai.ChatCompletionAccumulator{}
	var last openai.ChatCompletionChunk
	for s.Next() {
		last = s.Current()
		acc.AddChunk(last)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if got := acc.Choices[0].Message.Content; got != msgActions {
		t.Errorf("accumulated %q", got)
	}
	if len(last.Choices) != 0 {
		t.Fatalf("last chunk has choices: %s", last.RawJSON())
	}
	var ev struct {
		Dialect struct {
			Results []dialect.Result `json:"results"`
		} `json:"dialect"`
	}
	if err := json.Unmarshal([]byte(last.RawJSON()), &ev); err != nil {
		t.Fatal(err)
	}
	c := col.one(t)
	if len(ev.Dialect.Results) != 3 || mwSummary(ev.Dialect.Results) != mwSummary(c.Results) {
		t.Errorf("event %s, completion %s", mwSummary(ev.Dialect.Results), mwSummary(c.Results))
	}
	if last.ID != "chatcmpl-1" || last.Model != "m1" {
		t.Errorf("results event head: %s", last.RawJSON())
	}
}

// sseUpstream is a RoundTripper answering every request with body, read
// through a reader that cuts it at the given offsets.
type sseUpstream struct {
	body []byte
	cuts []int
}

func (u sseUpstream) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(&cutReader{b: u.body, cuts: u.cuts}),
		Request: req, ContentLength: -1,
	}, nil
}

// cutReader returns b in pieces ending at each cut, then the rest.
type cutReader struct {
	b    []byte
	off  int
	cuts []int
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.off >= len(r.b) {
		return 0, io.EOF
	}
	end := len(r.b)
	for len(r.cuts) > 0 && r.cuts[0] <= r.off {
		r.cuts = r.cuts[1:]
	}
	if len(r.cuts) > 0 {
		end = r.cuts[0]
	}
	n := copy(p, r.b[r.off:end])
	r.off += n
	return n, nil
}

// roundTripStream sends one streaming request through tr and returns the
// body the client read.
func roundTripStream(t *testing.T, tr http.RoundTripper) []byte {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://upstream.invalid/v1/chat/completions", strings.NewReader(`{"stream":true}`))
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMiddlewareSSEEveryCut cuts the upstream's stream at every byte
// boundary (and into single bytes) and checks that the client reads the
// same bytes and the runtime decides the same, with and without hiding.
func TestMiddlewareSSEEveryCut(t *testing.T) {
	text := msgHidden + "/recall notes + \"x\"\n"
	body := compactSSE(text)
	rt := openRuntime(t, "")
	ref := mwSummary(mwWant(t, text))
	for _, hide := range []bool{false, true} {
		var wantBody []byte
		// Every boundary; a sample of them (every 5th, and the first and
		// last 40) under -race or -short.
		stride := 1
		if raceEnabled || testing.Short() {
			stride = 5
		}
		var cutsList [][]int
		for k := 1; k < len(body); k++ {
			if k%stride == 0 || k < 40 || k > len(body)-40 {
				cutsList = append(cutsList, []int{k})
			}
		}
		var every []int
		for k := 1; k < len(body); k++ {
			every = append(every, k)
		}
		cutsList = append(cutsList, every, nil)
		for _, cuts := range cutsList {
			var col mwCollector
			opts := []Option{OnCompletion(col.add)}
			if hide {
				opts = append(opts, HideActions())
			}
			got := roundTripStream(t, Transport(rt, sseUpstream{body, cuts}, opts...))
			if wantBody == nil {
				wantBody = got
				if !hide && !bytes.Equal(got, body) {
					t.Fatalf("body changed without hiding:\n%s", got)
				}
			} else if !bytes.Equal(got, wantBody) {
				t.Fatalf("hide=%v cuts %v: body\n%s\nwant\n%s", hide, cuts[:min(len(cuts), 3)], got, wantBody)
			}
			c := col.one(t)
			if c.Err != nil || c.Text != text || mwSummary(c.Results) != ref {
				t.Fatalf("hide=%v cuts %v: %v %q %s, want %s", hide, cuts[:min(len(cuts), 3)], c.Err, c.Text, mwSummary(c.Results), ref)
			}
		}
		if hide {
			shown := contentOf(t, wantBody)
			var f strings.Builder
			flt := rt.Filter(&f)
			flt.Write([]byte(text))
			flt.Close()
			if shown != f.String() || strings.Contains(shown, "step one") || !strings.Contains(shown, "Here is the plan.") {
				t.Errorf("hidden stream shows %q, want %q", shown, f.String())
			}
		}
	}
}

// compactSSE is a short streamed completion of text: one event per line,
// with only the members the middleware reads, so that cutting it at every
// boundary stays cheap.
func compactSSE(text string) []byte {
	var b bytes.Buffer
	for _, l := range strings.SplitAfter(text, "\n") {
		if l == "" {
			continue
		}
		c, _ := json.Marshal(l)
		fmt.Fprintf(&b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", c)
	}
	b.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	return b.Bytes()
}

// contentOf concatenates the delta contents of an SSE body.
func contentOf(t *testing.T, body []byte) string {
	t.Helper()
	var b strings.Builder
	for _, ev := range strings.Split(string(body), "\n\n") {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ch struct {
			Choices []struct {
				Delta struct {
					Content *string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		for _, c := range ch.Choices {
			if c.Delta.Content != nil {
				b.WriteString(*c.Delta.Content)
			}
		}
	}
	return b.String()
}

func TestMiddlewareHideActionsClient(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	var col mwCollector
	client := mwClient(up.URL+"/v1/", Transport(rt, nil, OnCompletion(col.add), HideActions()))
	s := client.Chat.Completions.NewStreaming(context.Background(), mwParams("bytes", msgHidden))
	text, _ := mwReadStream(t, s)
	if text != "Here is the plan.\nActually, never mind the notes.\n" {
		t.Errorf("client saw %q", text)
	}
	if c := col.one(t); c.Text != msgHidden || mwSummary(c.Results) != mwSummary(mwWant(t, msgHidden)) {
		t.Errorf("completion %q %s", c.Text, mwSummary(c.Results))
	}
	got, err := client.Chat.Completions.New(context.Background(), mwParams("m1", msgHidden))
	if err != nil {
		t.Fatal(err)
	}
	if got.Choices[0].Message.Content != text {
		t.Errorf("JSON content %q, want %q", got.Choices[0].Message.Content, text)
	}
}

func TestMiddlewareClientCancels(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	var col mwCollector
	client := mwClient(up.URL+"/v1/", Transport(rt, nil, OnCompletion(col.add)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The first two words complete an action line: nothing may run.
	s := client.Chat.Completions.NewStreaming(ctx, mwParams("hang", "/recall notes + \"secret\"\nand then more"))
	n := 0
	for s.Next() {
		n++
		if n == 2 {
			cancel()
		}
	}
	if !errors.Is(s.Err(), context.Canceled) {
		t.Errorf("stream error %v, want context.Canceled", s.Err())
	}
	select {
	case <-up.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled")
	}
	c := col.one(t)
	if !errors.Is(c.Err, ErrIncomplete) || len(c.Results) != 0 {
		t.Errorf("completion %v %+v", c.Err, c.Results)
	}
	if res := run(t, rt, "ok\n/recall notes\n"); strings.Contains(res[0].Output, "secret") {
		t.Errorf("the cancelled message ran: %+v", res)
	}
}

func TestMiddlewareUpstreamErrors(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	for _, code := range []int{400, 401, 429, 500, 503} {
		for _, stream := range []bool{false, true} {
			var col mwCollector
			tr := Transport(rt, nil, OnCompletion(col.add), ResultsEvent(), HideActions())
			// The bytes the client reads are the upstream's.
			body := fmt.Sprintf(`{"model":"err-%d","stream":%v,"messages":[{"role":"user","content":"/recall x"}]}`, code, stream)
			req, _ := http.NewRequest("POST", up.URL+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != code || string(got) != errorBody(code) || resp.Header.Get("X-Request-Id") != "req-err" || resp.Header.Get(HeaderResults) != "" {
				t.Errorf("%d: got %d %q %v", code, resp.StatusCode, got, resp.Header)
			}
			var ue *UpstreamError
			if c := col.one(t); !errors.As(c.Err, &ue) || ue.StatusCode != code {
				t.Errorf("%d: completion error %v", code, c.Err)
			}
			// And openai-go reads them as its own errors.
			client := mwClient(up.URL+"/v1/", tr)
			p := mwParams(fmt.Sprintf("err-%d", code), "/recall x")
			if stream {
				s := client.Chat.Completions.NewStreaming(context.Background(), p)
				for s.Next() {
				}
				err = s.Err()
			} else {
				_, err = client.Chat.Completions.New(context.Background(), p)
			}
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != code || apiErr.Message != fmt.Sprintf("fake failure %d", code) || apiErr.Code != fmt.Sprintf("fake_%d", code) {
				t.Errorf("%d stream=%v: openai-go error %v", code, stream, err)
			}
		}
	}
}

func TestMiddlewareOtherRequestsUntouched(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	var col mwCollector
	client := mwClient(up.URL+"/v1/", Transport(rt, nil, OnCompletion(col.add)))
	if _, err := client.Models.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(col.all()); n != 0 {
		t.Errorf("%d completions for a models list", n)
	}
}

func TestMiddlewareOpenAIOption(t *testing.T) {
	up := newFakeUpstream(t)
	rt := openRuntime(t, "")
	var col mwCollector
	client := openai.NewClient(option.WithBaseURL(up.URL+"/v1/"), option.WithAPIKey("k"), option.WithMaxRetries(0),
		option.WithMiddleware(Middleware(rt, OnCompletion(col.add))),
		option.WithHeader(HeaderSession, "from-header"))
	s := client.Chat.Completions.NewStreaming(context.Background(), mwParams("m2", msgActions))
	mwReadStream(t, s)
	c := col.one(t)
	if c.Err != nil || c.Meta.Session != "from-header" || mwSummary(c.Results) != mwSummary(mwWant(t, msgActions)) {
		t.Errorf("completion %v %+v %s", c.Err, c.Meta, mwSummary(c.Results))
	}
}

func TestMiddlewareMalformed(t *testing.T) {
	rt := openRuntime(t, "")
	body := []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"/recall notes + \\\"y\\\"\\n\"}}]}\n\n" +
		"data: {\"choices\": nope}\n\n" +
		"data: [DONE]\n\n")
	var col mwCollector
	got := roundTripStream(t, Transport(rt, sseUpstream{body: body}, OnCompletion(col.add)))
	if !bytes.Equal(got, body) {
		t.Errorf("body changed: %s", got)
	}
	c := col.one(t)
	var re *ResponseError
	if !errors.As(c.Err, &re) || re.Offset < 80 || re.Offset > 100 || len(c.Results) != 0 {
		t.Errorf("completion %v %+v", c.Err, c.Results)
	}
}

// jsonUpstream is a RoundTripper answering every request with body as
// application/json.
type jsonUpstream struct{ body string }

func (u jsonUpstream) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(strings.NewReader(u.body)),
		Request: req, ContentLength: int64(len(u.body)),
	}, nil
}

// A non-streamed answer: choice 0's message.content runs; the body
// reaches the client unchanged; an answer that is not a chat completion
// runs nothing and says where it went wrong.
func TestMiddlewareJSONBodies(t *testing.T) {
	rt := openRuntime(t, "")
	for _, tc := range []struct {
		name, body string
		text       string // the Completion's text
		model      string
		errAt      int64 // the ResponseError's offset, -1 for none
	}{
		{"content", `{"model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":"Sum:\n/calc 6 * 7\n"}}]}`, "Sum:\n/calc 6 * 7\n", "m1", -1},
		{"choice 1 first", `{"choices":[{"index":1,"message":{"content":"/calc 1+1\n"}},{"index":0,"message":{"content":"zero"}}]}`, "zero", "", -1},
		{"escaped", `{"choices":[{"index":0,"message":{"content":"a\u00e9\n\"b\""}}]}`, "aé\n\"b\"", "", -1},
		{"tool call", `{"choices":[{"index":0,"message":{"content":null,"tool_calls":[{"id":"c1"}]},"finish_reason":"tool_calls"}]}`, "", "", -1},
		{"no choices", `{"id":"x","usage":{"total_tokens":3}}`, "", "", -1},
		{"not JSON", `{"choices":[}`, "", "", 13},
		{"not an object", `["choices"]`, "", "", 0},
		{"choices not a list", `{"choices":{"index":0}}`, "", "", 11},
		{"content not text", `{"choices":[{"index":0,"message":{"content":[{"type":"text","text":"/calc 1\n"}]}}]}`, "", "", 44},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var col mwCollector
			tr := Transport(rt, jsonUpstream{tc.body}, OnCompletion(col.add))
			req, _ := http.NewRequest("POST", "http://upstream.invalid/v1/chat/completions", strings.NewReader(`{}`))
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != tc.body {
				t.Errorf("body changed: %s", got)
			}
			c := col.one(t)
			var re *ResponseError
			switch {
			case tc.errAt < 0 && c.Err != nil:
				t.Errorf("error %v", c.Err)
			case tc.errAt >= 0 && (!errors.As(c.Err, &re) || re.Offset != tc.errAt):
				t.Errorf("error %v, want a ResponseError at %d", c.Err, tc.errAt)
			case tc.errAt >= 0 && (resp.Header.Get(HeaderError) == "" || len(c.Results) != 0):
				t.Errorf("header %q, results %v", resp.Header.Get(HeaderError), c.Results)
			}
			if c.Text != tc.text || c.Meta.Model != tc.model {
				t.Errorf("text %q model %q, want %q %q", c.Text, c.Meta.Model, tc.text, tc.model)
			}
			if tc.name == "content" && (len(c.Results) != 1 || c.Results[0].Output != "42") {
				t.Errorf("results %+v", c.Results)
			}
		})
	}
}
