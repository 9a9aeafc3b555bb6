package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/codes"
)

// httpSpec is how a webhook target, a tool or a web provider is called.
// Its URL is the owner's configuration, so it is not subject to fetch's
// address guard (a webhook on localhost is normal).
type httpSpec struct {
	url       string
	headers   map[string]string
	timeout   time.Duration
	maxOutput int
}

func newHTTPClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  http.ProxyFromEnvironment,
			TLSHandshakeTimeout:    10 * time.Second,
			MaxResponseHeaderBytes: 64 << 10,
			MaxIdleConns:           8,
			IdleConnTimeout:        30 * time.Second,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return codes.Wrap(codes.TooManyRedirects, nil, "%s redirected more than 5 times", via[0].URL)
			}
			return nil
		},
	}
}

// bodyExcerpt is the start of an error response's body, where services say
// what went wrong: cleaned, on one line, at most max bytes ("…" marks a
// cut).
func bodyExcerpt(s string, max int) string {
	s = strings.Join(strings.Fields(Clean(s)), " ")
	if cut, ok := truncate(s, max); ok {
		return cut + "…"
	}
	return s
}

// expandHeader fills ${NAME} in a header value from the environment, so
// that secrets stay out of dialect.toml.
func expandHeader(v string) string {
	if !strings.Contains(v, "$") {
		return v
	}
	return os.Expand(v, os.Getenv)
}

// do sends one request (POST with a JSON body, or GET when body is nil) and
// returns the response body, bounded. A non-2xx status is an HTTP_STATUS
// error whose cause is a *StatusError.
func (h httpSpec) do(ctx context.Context, client *http.Client, rawURL string, body []byte) (string, int, error) {
	if rawURL == "" {
		return "", 0, codes.Wrap(codes.NotConfigured, nil, "no URL is configured")
	}
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	method, reader := http.MethodGet, io.Reader(nil)
	if body != nil {
		method, reader = http.MethodPost, bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, reader)
	if err != nil {
		return "", 0, codes.Wrap(codes.NotConfigured, err, "the configured URL is not valid")
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", "dialect/1")
	for k, v := range h.headers {
		req.Header.Set(k, expandHeader(v))
	}
	resp, err := client.Do(req)
	if err != nil {
		var e *codes.Error
		switch {
		case errors.As(err, &e):
			return "", 0, e
		case ctx.Err() != nil:
			return "", 0, ctxError(ctx.Err(), "the request to "+req.URL.Host)
		}
		return "", 0, codes.Wrap(codes.FetchFailed, err, "could not reach %s", req.URL.Host)
	}
	defer resp.Body.Close()
	lb := &limitedBuffer{max: h.maxOutput}
	if _, err := io.Copy(lb, resp.Body); err != nil {
		if ctx.Err() != nil {
			return "", resp.StatusCode, ctxError(ctx.Err(), "the request to "+req.URL.Host)
		}
		return "", resp.StatusCode, codes.Wrap(codes.FetchFailed, err, "reading the answer of %s", req.URL.Host)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		se := &StatusError{Status: resp.StatusCode, Body: bodyExcerpt(lb.String(), 300)}
		return "", resp.StatusCode, &codes.Error{Code: codes.HTTPStatus, Msg: fmt.Sprintf("%s answered %s", req.URL.Host, resp.Status), Err: se}
	}
	out := lb.String()
	if lb.dropped > 0 {
		out += "\n[truncated]"
	}
	return out, resp.StatusCode, nil
}
