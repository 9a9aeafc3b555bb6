package wire

import (
	"bytes"
	"io"
	"testing"
)

// FuzzEvents reads arbitrary bytes as an SSE stream of each API, and as
// whole replies and requests: nothing panics, every event read is a
// prefix-ordered slice of the input, and a request edited keeps parsing.
func FuzzEvents(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"x\"}\n\n"))
	f.Add([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"y\"}}\n\n"))
	f.Add([]byte(`{"model":"m","messages":[{"role":"system","content":[{"type":"text","text":"s"}]}],"input":"i","system":"x"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, api := range []API{Chat, Responses, Messages} {
			er := NewEventReader(bytes.NewReader(in), 1<<16)
			var raw []byte
			for {
				ev, err := er.Next()
				if err != nil {
					if err != io.EOF && len(raw) > len(in) {
						t.Fatal("read past the input")
					}
					break
				}
				raw = append(raw, ev.Raw...)
				Classify(api, ev)
			}
			if !bytes.Contains(in, raw) && len(raw) > 0 && !bytes.HasPrefix(in, raw) {
				// Stray blank lines are skipped, so raw is not always a
				// prefix; but it never holds bytes the input lacks.
				for _, b := range raw {
					if bytes.IndexByte(in, b) < 0 {
						t.Fatalf("event bytes not in the input")
					}
				}
			}
			ReadReply(api, in)
			if r, err := ParseRequest(api, in); err == nil {
				if r.AddSystem("instr") == nil && r.AppendTurn("a", "u") == nil {
					if _, err := ParseRequest(api, r.Body()); err != nil {
						t.Fatalf("edited request does not parse: %v", err)
					}
				}
			}
		}
	})
}
