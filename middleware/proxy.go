package middleware

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/internal/wire"
)

// NewProxy returns a handler that forwards every request to upstream — the
// request path appended to upstream's path, method, headers and body as
// they came — and streams the response back as it arrives, through the
// same handling as Transport (opts apply alike). base, when not nil,
// carries the upstream requests (http.DefaultTransport otherwise);
// errorLog, when not nil, receives the proxy's own errors.
//
// The changes made to requests: a request of one of the three APIs loses
// its Accept-Encoding header, so that the upstream answers in plain text
// the middleware can read (the client then receives it uncompressed); with
// Instructions and Loop, its body gets the instructions and later turns.
func NewProxy(rt *dialect.Runtime, upstream *url.URL, base http.RoundTripper, errorLog *log.Logger, opts ...Option) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			if pr.Out.Body != nil && pr.Out.ContentLength > 0 {
				pr.Out.Body = &sizedBody{rc: pr.Out.Body, left: pr.Out.ContentLength}
			}
			if _, ok := wire.FromPath(pr.Out.URL.Path); ok && pr.Out.Method == http.MethodPost {
				pr.Out.Header.Del("Accept-Encoding")
			}
		},
		Transport:     Transport(rt, base, opts...),
		FlushInterval: -1,
		ErrorLog:      errorLog,
	}
}

// sizedBody ends a request body of known length at that length. Without
// it, the transport reads the inbound body once more after the declared
// length to check for excess; when the upstream has already answered, the
// proxy's own server has closed that body by then (net/http does not
// allow reading a request body after the response has begun), the read
// fails, and the transport drops the upstream connection in the middle of
// the streamed answer (golang/go#40747).
type sizedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *sizedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left <= 0 && err == nil {
		err = io.EOF
	}
	return n, err
}

func (b *sizedBody) Close() error { return b.rc.Close() }

// LogCompletions returns an OnCompletion callback that writes one JSON line
// per result to w — {"time","path","agent","model","session","streamed",
// "result":{...}} — and one line with "error" for a completion that ran
// nothing or stopped (an upstream error, a cancelled stream, a halt).
// Lines from concurrent completions never interleave.
func LogCompletions(w io.Writer) func(Completion) {
	var mu sync.Mutex
	type line struct {
		Time     string          `json:"time"`
		Path     string          `json:"path"`
		Agent    string          `json:"agent,omitempty"`
		Model    string          `json:"model,omitempty"`
		Session  string          `json:"session,omitempty"`
		Streamed bool            `json:"streamed"`
		Result   *dialect.Result `json:"result,omitempty"`
		Error    string          `json:"error,omitempty"`
	}
	return func(c Completion) {
		base := line{Time: time.Now().UTC().Format(time.RFC3339Nano), Path: c.Path,
			Agent: c.Meta.Agent, Model: c.Meta.Model, Session: c.Meta.Session, Streamed: c.Streamed}
		var buf []byte
		for i := range c.Results {
			l := base
			l.Result = &c.Results[i]
			buf = appendJSONLine(buf, l)
		}
		if c.Err != nil {
			l := base
			l.Error = c.Err.Error()
			buf = appendJSONLine(buf, l)
		}
		if len(buf) == 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		w.Write(buf)
	}
}

func appendJSONLine(buf []byte, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return buf
	}
	return append(append(buf, b...), '\n')
}
