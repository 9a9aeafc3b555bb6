package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/internal/otlptest"
)

// TestProxyTrace runs `dialect proxy` with OTEL_EXPORTER_OTLP_ENDPOINT
// pointing at an OTLP receiver and sends it one chat completion request
// (JSON, then streamed) carrying a host's traceparent. The receiver must
// get each completion's message span as a child of the host's span, in the
// host's trace, with an execute_tool span per action under it. Run with -v
// to see the trace as received.
func TestProxyTrace(t *testing.T) {
	recv := otlptest.Start(t)
	for _, k := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SDK_DISABLED", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_SERVICE_NAME"} {
		t.Setenv(k, "")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	up := proxyTestUpstream(t, "Let me check both.\n/calc 6*7\n/zzyzx the plan\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- runMain(ctx, &stdio{in: strings.NewReader(""), out: io.Discard, err: &stderr},
			[]string{"proxy", "--listen", "127.0.0.1:0", "--upstream", up.URL, "--db", filepath.Join(t.TempDir(), "p.db"), "--agent", "scout", "--session", "s-42"})
	}()
	addr := regexp.MustCompile(`listening on (http://\S+),`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; time.Sleep(5 * time.Millisecond) {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("proxy did not start: %s", stderr.String())
		}
	}
	const traceID, hostSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, stream := range []bool{false, true} {
		body := fmt.Sprintf(`{"model":"m1","stream":%v,"messages":[{"role":"user","content":"hi"}]}`, stream)
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("traceparent", "00-"+traceID+"-"+hostSpan+"-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	cancel() // the proxy closes its runtime, which flushes the telemetry
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("proxy did not stop")
	}
	t.Logf("trace as the OTLP receiver got it:\n%s", recv.Tree())
	spans := recv.Spans()
	var messages, calc, unknown int
	msgIDs := map[string]bool{}
	for _, s := range spans {
		if hex.EncodeToString(s.TraceId) != traceID {
			t.Errorf("span %s in trace %x, want the host's %s", s.Name, s.TraceId, traceID)
		}
		if s.Name == "dialect.message" {
			messages++
			msgIDs[hex.EncodeToString(s.SpanId)] = true
			if hex.EncodeToString(s.ParentSpanId) != hostSpan || s.Attr("gen_ai.agent.name") != "scout" || s.Attr("gen_ai.conversation.id") != "s-42" || s.Attr("gen_ai.request.model") != "m1" {
				t.Errorf("message span: parent %x, attributes %v", s.ParentSpanId, s.Attributes)
			}
		}
	}
	for _, s := range spans {
		if s.Name == "dialect.message" {
			continue
		}
		if !msgIDs[hex.EncodeToString(s.ParentSpanId)] {
			t.Errorf("action span %s not under a message span", s.Name)
		}
		switch {
		case s.Name == "execute_tool calc" && s.Attr("dialect.status") == "ok" && s.Attr("gen_ai.tool.name") == "calc":
			calc++
		case s.Name == "execute_tool zzyzx" && s.Attr("dialect.failure.code") == "UNKNOWN_VERB":
			unknown++
		default:
			t.Errorf("unexpected span %s %v", s.Name, s.Attributes)
		}
	}
	if messages != 2 || calc != 2 || unknown != 2 {
		t.Errorf("%d message spans, %d calc, %d unknown: want 2 of each", messages, calc, unknown)
	}
	if n := recv.Sum("dialect.failures", map[string]string{"dialect.failure.code": "UNKNOWN_VERB", "gen_ai.request.model": "m1"}); n != 2 {
		t.Errorf("dialect.failures{UNKNOWN_VERB, m1} = %v", n)
	}
}

// TestRunFlushesTelemetry: a one-shot `dialect run` exports its spans
// before it exits.
func TestRunFlushesTelemetry(t *testing.T) {
	recv := otlptest.Start(t)
	for _, k := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SDK_DISABLED", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_SERVICE_NAME", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		t.Setenv(k, "")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", recv.URL+"/v1/traces")
	code, _, errOut := runCLI(t, "ok.\n/calc 2+2\n", "run", "--db", filepath.Join(t.TempDir(), "r.db"))
	if code != 0 {
		t.Fatal(errOut)
	}
	if s := recv.Spans(); len(s) != 2 || recv.Requests()["http metrics"] != 0 {
		t.Errorf("after run: %d spans, requests %v (traces only were asked for)\n%s", len(s), recv.Requests(), recv.Tree())
	}
}
