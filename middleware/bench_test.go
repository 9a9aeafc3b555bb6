package middleware

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect"
)

// benchAnswer is a long assistant answer, with paths and fractions that
// look like actions but are not: what is measured is the middleware and
// the scanner, not the executors (see BenchmarkRun... in the runtime).
var benchAnswer = strings.Repeat("The quarterly numbers look steady; revenue grew in every region but one, "+
	"and the one in /data/eu shrank by 1/2 of a percent.\n", 120)

// BenchmarkMiddlewareSSE reads a streamed answer of about 15 KB, in
// 16-byte events (about 150 KB of SSE), through the middleware from
// memory: what the middleware costs per stream, with the scanner and the
// end-of-message run of a message that holds no action.
func BenchmarkMiddlewareSSE(b *testing.B) {
	events := []byte{}
	for _, e := range sseEventsPieces("m1", benchAnswer, 16) {
		events = append(events, e...)
	}
	for _, bc := range []struct {
		name string
		opts []Option
	}{{"pass", nil}, {"hide", []Option{HideActions()}}, {"event", []Option{ResultsEvent()}}} {
		b.Run(bc.name, func(b *testing.B) {
			rt := openRuntimeB(b)
			tr := Transport(rt, sseUpstream{body: events}, bc.opts...)
			b.SetBytes(int64(len(events)))
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest("POST", "http://upstream.invalid/v1/chat/completions", nil)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}

// sseEventsPieces is sseEvents with the text cut every piece bytes.
func sseEventsPieces(model, text string, piece int) []string {
	head := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"` + model + `",`
	out := []string{"data: " + head + `"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"}
	for i := 0; i < len(text); i += piece {
		c := marshalRaw(text[i:min(i+piece, len(text))])
		out = append(out, "data: "+head+`"choices":[{"index":0,"delta":{"content":`+string(c)+`},"finish_reason":null}]}`+"\n\n")
	}
	return append(out, "data: "+head+`"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n", "data: [DONE]\n\n")
}

func openRuntimeB(b *testing.B) *dialect.Runtime {
	b.Helper()
	cfg, err := dialect.ParseConfig("bench.toml", []byte("[store]\nlog_messages = false\n"))
	if err != nil {
		b.Fatal(err)
	}
	cfg.Store.Path = b.TempDir() + "/bench.db"
	rt, err := dialect.Open(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close() })
	return rt
}

// BenchmarkTTFB measures the time to the first byte of a streamed answer
// from a loopback upstream: directly, through the middleware, through a
// bare httputil.ReverseProxy and through the dialect proxy. The paths take
// turns within each iteration; the metrics are medians, and "added-us" is
// the dialect's part: middleware − direct and proxy − bare proxy.
//
// In "burst" the upstream writes the whole answer at once, so every path
// also pumps 1,150 events through the same cores while the first byte is
// on its way; in "paced" it pauses 2 ms after the first event, as a model
// does between tokens, and the first byte is measured alone.
func BenchmarkTTFB(b *testing.B) {
	b.Run("burst", func(b *testing.B) { benchTTFB(b, 0) })
	b.Run("paced", func(b *testing.B) { benchTTFB(b, 2*time.Millisecond) })
}

func benchTTFB(b *testing.B, pause time.Duration) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range sseEventsPieces("m1", benchAnswer, 16) {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
			if i == 0 {
				time.Sleep(pause)
			}
		}
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	rt := openRuntimeB(b)
	px := httptest.NewServer(NewProxy(rt, u, nil, nil))
	defer px.Close()
	bare := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(u)
		if pr.Out.ContentLength > 0 {
			pr.Out.Body = &sizedBody{rc: pr.Out.Body, left: pr.Out.ContentLength}
		}
	}, FlushInterval: -1})
	defer bare.Close()
	paths := []struct {
		name string
		c    *http.Client
		url  string
	}{
		{"direct", &http.Client{Transport: &http.Transport{}}, up.URL},
		{"middleware", &http.Client{Transport: Transport(rt, &http.Transport{})}, up.URL},
		{"bare-proxy", &http.Client{Transport: &http.Transport{}}, bare.URL},
		{"proxy", &http.Client{Transport: &http.Transport{}}, px.URL},
	}
	first := make([][]time.Duration, len(paths))
	for i := 0; b.Loop(); i++ {
		for k := range paths {
			p := paths[(i+k)%len(paths)]
			req, _ := http.NewRequest("POST", p.url+"/v1/chat/completions", strings.NewReader(`{"model":"m1","stream":true}`))
			t0 := time.Now()
			resp, err := p.c.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var one [1]byte
			if _, err := io.ReadFull(resp.Body, one[:]); err != nil {
				b.Fatal(err)
			}
			first[(i+k)%len(paths)] = append(first[(i+k)%len(paths)], time.Since(t0))
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	med := make([]float64, len(paths))
	for k, ds := range first {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		med[k] = float64(ds[len(ds)/2].Nanoseconds()) / 1e3
		b.ReportMetric(med[k], fmt.Sprintf("%s-us", paths[k].name))
	}
	b.ReportMetric(med[1]-med[0], "mw-added-us")
	b.ReportMetric(med[3]-med[2], "proxy-added-us")
}
