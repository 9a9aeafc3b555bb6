package middleware

import (
	"bytes"
	"encoding/json"
	"testing"
)

// refChunk is readChunk's meaning computed with encoding/json: what the
// one-pass reader must agree with.
func refChunk(t *testing.T, data []byte) (chunk, bool) {
	if !json.Valid(data) {
		return chunk{}, false
	}
	var c chunk
	var top map[string]json.RawMessage
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatalf("valid JSON does not decode: %v", err)
		}
	}
	text := func(raw json.RawMessage) string {
		switch {
		case raw == nil || string(raw) == "null":
			return ""
		case raw[0] == '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			return s
		}
		return string(raw)
	}
	c.head = chunkHead{ID: text(top["id"]), Object: text(top["object"]), Model: text(top["model"])}
	if raw := top["created"]; raw != nil {
		c.head.Created = number(raw)
	}
	if raw := top["error"]; raw != nil && string(raw) != "null" {
		c.errRaw = raw
	}
	var choices []json.RawMessage
	if raw := top["choices"]; len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &choices); err != nil {
			t.Fatal(err)
		}
	}
	for _, raw := range choices {
		if raw[0] != '{' {
			continue
		}
		var ch map[string]json.RawMessage
		if err := json.Unmarshal(raw, &ch); err != nil {
			t.Fatal(err)
		}
		if idx := ch["index"]; idx != nil && idx[0] != '"' && number(idx) != 0 {
			continue
		}
		if d := ch["delta"]; len(d) > 0 && d[0] == '{' {
			var delta map[string]json.RawMessage
			if err := json.Unmarshal(d, &delta); err != nil {
				t.Fatal(err)
			}
			if s := delta["content"]; len(s) > 0 && s[0] == '"' {
				c.content, c.seen = []byte(text(s)), true
			}
		}
		if f := ch["finish_reason"]; len(f) > 0 && f[0] == '"' && text(f) != "" {
			c.finished = true
		}
	}
	return c, true
}

func sameChunk(a, b chunk) bool {
	return a.head == b.head && bytes.Equal(a.errRaw, b.errRaw) && string(a.content) == string(b.content) && a.seen == b.seen && a.finished == b.finished
}

var chunkCases = []struct {
	name string
	data string
}{
	{"token", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`},
	{"role", `{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`},
	{"finish", `{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`},
	{"empty finish", `{"choices":[{"index":0,"delta":{},"finish_reason":""}]}`},
	{"usage chunk", ` {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5}} `},
	{"second choice", `{"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"yes"}}]}`},
	{"no index", `{"choices":[{"delta":{"content":"x"}}]}`},
	{"float index", `{"choices":[{"index":0.0,"delta":{"content":"x"}},{"index":1e0,"delta":{"content":"y"}}]}`},
	{"escapes", `{"choices":[{"index":0,"delta":{"content":"a\"b\\c\/d\n\t\u00e9\ud83d\ude00 \ud800x \udc00"}}]}`},
	{"lone high surrogate at end", `{"choices":[{"delta":{"content":"\ud83d"}}]}`},
	{"raw utf-8 and invalid bytes", "{\"choices\":[{\"delta\":{\"content\":\"é\xff\xc3(\"}}]}"},
	{"escaped key", `{"\u0063hoices":[{"delta":{"c\u006fntent":"k"}}]}`},
	{"duplicate members", `{"model":"a","model":"b","choices":[{"delta":{"content":"1","content":"2"},"delta":{"content":"3"}}]}`},
	{"content null", `{"choices":[{"delta":{"content":null,"tool_calls":[{"id":"t","function":{"arguments":"{}"}}]}}]}`},
	{"content not text", `{"choices":[{"delta":{"content":[{"type":"text"}]}}]}`},
	{"error event", `{"error":{"message":"boom","type":"server_error"}}`},
	{"error null", `{"error":null,"choices":[{"delta":{"content":"ok"}}]}`},
	{"non-string head", `{"id":7,"model":null,"object":["x"],"created":"12"}`},
	{"not an object", `["choices"]`},
	{"bare string", `"x"`},
	{"nested deep", `{"x":[[[[{"a":[1,2,{"b":null}]}]]]],"choices":{"index":0}}`},
	{"numbers", `{"created":-1.5e3,"n":[0,-0,1.25,1E+2,3e-1]}`},
	// Invalid: readChunk must say so, as encoding/json.Valid does.
	{"bad literal", `{"choices": nope}`},
	{"trailing comma", `{"choices":[1,],}`},
	{"trailing text", `{} x`},
	{"two values", `{}{}`},
	{"unclosed", `{"choices":[{"delta":{"content":"x"}}]`},
	{"control char", "{\"a\":\"x\ny\"}"},
	{"bad escape", `{"a":"\x"}`},
	{"short unicode escape", `{"a":"\u12"}`},
	{"leading zero", `{"a":01}`},
	{"bare minus", `{"a":-}`},
	{"dot without digits", `{"a":1.}`},
	{"exponent without digits", `{"a":1e}`},
	{"key not a string", `{a:1}`},
	{"empty", ``},
	{"space only", ` `},
}

func TestReadChunk(t *testing.T) {
	for _, tc := range chunkCases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := readChunk([]byte(tc.data), chunkHead{})
			want, wantOK := refChunk(t, []byte(tc.data))
			if ok != wantOK || ok && !sameChunk(got, want) {
				t.Errorf("readChunk(%s) = %+v, %v; want %+v, %v", tc.data, got, ok, want, wantOK)
			}
		})
	}
	// The cases above mean what they say, not only what the reference says.
	c, _ := readChunk([]byte(chunkCases[0].data), chunkHead{})
	if string(c.content) != "Hel" || !c.seen || c.finished || c.head.Created != 1700000000 || c.head.Model != "m1" {
		t.Errorf("token chunk: %+v", c)
	}
	c, _ = readChunk([]byte(`{"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"yes"}}]}`), chunkHead{})
	if string(c.content) != "yes" {
		t.Errorf("choice 0 is %q", c.content)
	}
	c, _ = readChunk([]byte(`{"choices":[{"delta":{"content":"a\"b\\c\/d\n\u00e9\ud83d\ude00\ud800x"}}]}`), chunkHead{})
	if string(c.content) != "a\"b\\c/d\né😀\uFFFDx" {
		t.Errorf("escapes: %q", c.content)
	}
}

// Nesting beyond encoding/json's limit is invalid there, and here.
func TestReadChunkDepth(t *testing.T) {
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		data := []byte(`{"x":` + string(bytes.Repeat([]byte("["), n)) + string(bytes.Repeat([]byte("]"), n)) + `}`)
		_, ok := readChunk(data, chunkHead{})
		if ok != json.Valid(data) {
			t.Errorf("depth %d: readChunk %v, encoding/json %v", n, ok, json.Valid(data))
		}
	}
}

// FuzzReadChunk: on any bytes, readChunk agrees with encoding/json on
// whether they are JSON and on every field it reads.
func FuzzReadChunk(f *testing.F) {
	for _, tc := range chunkCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := readChunk(data, chunkHead{})
		want, wantOK := refChunk(t, data)
		if ok != wantOK || ok && !sameChunk(got, want) {
			t.Fatalf("readChunk(%q) = %+v, %v; want %+v, %v", data, got, ok, want, wantOK)
		}
	})
}

// BenchmarkReadChunk reads a token-sized chunk.
func BenchmarkReadChunk(b *testing.B) {
	data := []byte(chunkCases[0].data)
	prev, _ := readChunk(data, chunkHead{}) // as in a stream: the chunk before had the same head
	var r chunkReader
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if c, ok := r.read(data, prev.head); !ok || string(c.content) != "Hel" {
			b.Fatal(c, ok)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
