package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// client sends OTLP requests of one signal, over HTTP (protobuf bodies) or
// gRPC (unary calls over HTTP/2, framed by hand; h2c for http:// URLs).
type client struct {
	url     string // the HTTP endpoint, or the gRPC method's URL
	grpc    bool
	headers map[string]string
	gzip    bool
	timeout time.Duration
	http    *http.Client

	mu       sync.Mutex
	shutdown bool
}

// signalConfig reads one signal's settings: the endpoint (s.Endpoint, else
// OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT used as it is, else
// OTEL_EXPORTER_OTLP_ENDPOINT with the signal's path), the headers,
// timeout, compression, certificate and, for a gRPC endpoint without a
// scheme, OTEL_EXPORTER_OTLP_INSECURE.
func newClient(s Settings, signal, path, method string, getenv func(string) string) (*client, error) {
	proto, err := protocol(s, signal, getenv)
	if err != nil {
		return nil, err
	}
	env := func(name string) string {
		if v := getenv("OTEL_EXPORTER_OTLP_" + signal + "_" + name); v != "" {
			return v
		}
		return getenv("OTEL_EXPORTER_OTLP_" + name)
	}
	c := &client{grpc: proto == GRPC, headers: map[string]string{}, timeout: 10 * time.Second}
	endpoint, exact := s.Endpoint, false
	if endpoint == "" {
		if endpoint = getenv("OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT"); endpoint != "" {
			exact = true
		} else {
			endpoint = getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
		}
	}
	if c.grpc && !strings.Contains(endpoint, "://") {
		scheme := "https://"
		if strings.EqualFold(env("INSECURE"), "true") {
			scheme = "http://"
		}
		endpoint = scheme + endpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("telemetry endpoint %q: want an http:// or https:// URL", endpoint)
	}
	switch {
	case c.grpc:
		c.url = u.Scheme + "://" + u.Host + method
	case exact:
		c.url = u.String()
	default:
		c.url = strings.TrimSuffix(u.String(), "/") + path
	}
	for _, h := range strings.Split(env("HEADERS"), ",") {
		k, v, ok := strings.Cut(h, "=")
		if !ok {
			continue
		}
		k, _ = url.QueryUnescape(strings.TrimSpace(k))
		v, _ = url.QueryUnescape(strings.TrimSpace(v))
		if k != "" {
			c.headers[k] = v
		}
	}
	if ms, err := strconv.Atoi(env("TIMEOUT")); err == nil && ms > 0 {
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	c.gzip = strings.EqualFold(env("COMPRESSION"), "gzip")
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 2, IdleConnTimeout: 90 * time.Second}
	if ca := env("CERTIFICATE"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("telemetry certificate: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("telemetry certificate %s: no PEM certificate in it", ca)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	if c.grpc {
		tr.Protocols = new(http.Protocols)
		tr.Protocols.SetHTTP2(true)
		tr.Protocols.SetUnencryptedHTTP2(true) // prior knowledge, for http:// endpoints
	}
	c.http = &http.Client{Transport: tr}
	return c, nil
}

// retryable statuses, for HTTP and gRPC (UNAVAILABLE, RESOURCE_EXHAUSTED,
// ABORTED, DEADLINE_EXCEEDED...).
func retryableHTTP(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

func retryableGRPC(code int) bool { return code == 4 || code == 8 || code == 10 || code == 14 }

// send posts one request body, retrying transient failures with backoff
// until ctx or the timeout ends.
func (c *client) send(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	done := c.shutdown
	c.mu.Unlock()
	if done {
		return errors.New("telemetry: exporter is shut down")
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	body := msg
	if c.gzip {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(msg)
		w.Close()
		body = z.Bytes()
	}
	if c.grpc {
		frame := make([]byte, 5, 5+len(body))
		if c.gzip {
			frame[0] = 1
		}
		binary.BigEndian.PutUint32(frame[1:], uint32(len(body)))
		body = append(frame, body...)
	}
	backoff := 100 * time.Millisecond
	for {
		retry, err := c.post(ctx, body)
		if err == nil || !retry {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (%w)", err, ctx.Err())
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// post makes one attempt; retry says whether another may succeed.
func (c *client) post(ctx context.Context, body []byte) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	if c.grpc {
		req.Header.Set("Content-Type", "application/grpc")
		req.Header.Set("TE", "trailers")
		if c.gzip {
			req.Header.Set("Grpc-Encoding", "gzip")
		}
	} else {
		req.Header.Set("Content-Type", "application/x-protobuf")
		if c.gzip {
			req.Header.Set("Content-Encoding", "gzip")
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return true, fmt.Errorf("telemetry: export to %s: %w", c.url, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if !c.grpc {
		if resp.StatusCode/100 == 2 {
			return false, nil
		}
		return retryableHTTP(resp.StatusCode), fmt.Errorf("telemetry: export to %s: %s", c.url, resp.Status)
	}
	if resp.StatusCode != http.StatusOK {
		return retryableHTTP(resp.StatusCode), fmt.Errorf("telemetry: export to %s: %s", c.url, resp.Status)
	}
	status := resp.Trailer.Get("Grpc-Status")
	if status == "" {
		status = resp.Header.Get("Grpc-Status") // a trailers-only answer
	}
	if status == "0" {
		return false, nil
	}
	code, _ := strconv.Atoi(status)
	msg := resp.Trailer.Get("Grpc-Message")
	if msg == "" {
		msg = resp.Header.Get("Grpc-Message")
	}
	if m, err := url.PathUnescape(msg); err == nil {
		msg = m
	}
	return retryableGRPC(code), fmt.Errorf("telemetry: export to %s: gRPC status %q: %s", c.url, status, msg)
}

func (c *client) close() {
	c.mu.Lock()
	c.shutdown = true
	c.mu.Unlock()
	c.http.CloseIdleConnections()
}

// spanExporter is an sdktrace.SpanExporter over OTLP.
type spanExporter struct{ c *client }

func (e spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	return e.c.send(ctx, traceRequest(spans))
}

func (e spanExporter) Shutdown(context.Context) error {
	e.c.close()
	return nil
}

// metricExporter is an sdkmetric.Exporter over OTLP, with the SDK's
// default temporality (cumulative) and aggregations.
type metricExporter struct{ c *client }

func (e metricExporter) Temporality(k metric.InstrumentKind) metricdata.Temporality {
	return metric.DefaultTemporalitySelector(k)
}

func (e metricExporter) Aggregation(k metric.InstrumentKind) metric.Aggregation {
	return metric.DefaultAggregationSelector(k)
}

func (e metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if len(rm.ScopeMetrics) == 0 {
		return nil
	}
	return e.c.send(ctx, metricsRequest(rm))
}

func (e metricExporter) ForceFlush(context.Context) error { return nil }

func (e metricExporter) Shutdown(context.Context) error {
	e.c.close()
	return nil
}
