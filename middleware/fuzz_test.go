package middleware

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect"
)

// FuzzMiddlewareSSE feeds arbitrary upstream bytes through the SSE reader,
// whole and cut at one point: the client must read exactly the upstream's
// bytes (the middleware neither loses nor adds any without HideActions or
// ResultsEvent), and the Completion must not depend on the cut.
func FuzzMiddlewareSSE(f *testing.F) {
	f.Add([]byte(strings.Join(sseEvents("m1", msgActions), "")), uint16(17))
	f.Add(compactSSE(msgHidden), uint16(3))
	f.Add([]byte("data: {\"choices\": nope}\n\ndata: [DONE]\n\n"), uint16(9))
	f.Add([]byte("event: x\r\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"/recall a\\n\"}}]}\r\n\r\ndata: {\"choi"), uint16(40))
	f.Add([]byte(": keep-alive\n\ndata: {\"error\":{\"message\":\"boom\"}}\n\n"), uint16(2))
	f.Add([]byte("data: [DONE]"), uint16(1))
	rt := openRuntimeF(f)
	f.Fuzz(func(t *testing.T, body []byte, cut uint16) {
		if len(body) > 4096 {
			return
		}
		var cuts []int
		if len(body) > 1 {
			cuts = []int{1 + int(cut)%(len(body)-1)}
		}
		var whole, split mwCollector
		a := roundTripStream(t, Transport(rt, sseUpstream{body: body}, OnCompletion(whole.add)))
		b := roundTripStream(t, Transport(rt, sseUpstream{body: body, cuts: cuts}, OnCompletion(split.add)))
		if !bytes.Equal(a, body) || !bytes.Equal(b, body) {
			t.Fatalf("client read\n%q\n%q\nwant\n%q", a, b, body)
		}
		ca, cb := whole.one(t), split.one(t)
		if ca.Text != cb.Text || (ca.Err == nil) != (cb.Err == nil) || mwSummary(ca.Results) != mwSummary(cb.Results) {
			t.Fatalf("cut at %v: %q %v %s\nwhole: %q %v %s", cuts, cb.Text, cb.Err, mwSummary(cb.Results), ca.Text, ca.Err, mwSummary(ca.Results))
		}
	})
}

func openRuntimeF(f *testing.F) *dialect.Runtime {
	f.Helper()
	cfg, err := dialect.ParseConfig("fuzz.toml", []byte("[store]\nlog_messages = false\n"))
	if err != nil {
		f.Fatal(err)
	}
	cfg.Store.Path = f.TempDir() + "/fuzz.db"
	rt, err := dialect.Open(context.Background(), cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { rt.Close() })
	return rt
}
