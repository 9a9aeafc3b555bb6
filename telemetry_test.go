package dialect

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/pattern-dialect/dialect/internal/otlptest"
)

// clearOTelEnv makes the test independent of the OTEL_* variables of the
// machine running it.
func clearOTelEnv(t *testing.T) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SDK_DISABLED", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"} {
		t.Setenv(k, "")
	}
}

func openWith(t *testing.T, toml string, opts ...Option) *Runtime {
	t.Helper()
	cfg, err := ParseConfig("test.toml", []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store.Path = filepath.Join(t.TempDir(), "d.db")
	rt, err := Open(context.Background(), cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

func TestTelemetryOffByDefault(t *testing.T) {
	clearOTelEnv(t)
	if rt := openWith(t, ""); rt.tel != nil {
		t.Error("telemetry is on with no endpoint configured")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_SDK_DISABLED", "true")
	if rt := openWith(t, ""); rt.tel != nil {
		t.Error("OTEL_SDK_DISABLED=true left telemetry on")
	}
	t.Setenv("OTEL_SDK_DISABLED", "")
	if rt := openWith(t, ""); rt.tel == nil {
		t.Error("OTEL_EXPORTER_OTLP_ENDPOINT did not turn telemetry on")
	}
	cfg, err := ParseConfig("t.toml", []byte("[telemetry]\nprotocol = \"http/json\"\n"))
	if err == nil || !strings.Contains(err.Error(), "telemetry.protocol") {
		t.Errorf("a protocol the exporters do not speak: %v (%v)", err, cfg)
	}
}

const telemetryMsg = "Checking; you could type `/calc 1+1` yourself.\n/calc 6*7\n/zzyzx the plan\n/recall budget\n"

// spansAndMetrics runs telemetryMsg through a runtime recording into
// in-memory providers.
func spansAndMetrics(t *testing.T, toml string, stream bool) ([]sdktrace.ReadOnlySpan, metricdata.ResourceMetrics) {
	t.Helper()
	clearOTelEnv(t)
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	rt := openWith(t, toml, WithTracerProvider(tp), WithMeterProvider(mp))
	msg := Message{Text: telemetryMsg, Agent: "scout", Model: "m1", Session: "s1"}
	var err error
	if stream {
		s := rt.NewStream(context.Background(), Message{Agent: "scout", Model: "m1", Session: "s1"}, nil)
		for _, piece := range strings.SplitAfter(telemetryMsg, " ") {
			s.WriteString(piece)
		}
		_, err = s.Close()
	} else {
		_, err = rt.Run(context.Background(), msg)
	}
	if err != nil {
		t.Fatal(err)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return sr.Ended(), rm
}

func spanAttr(s sdktrace.ReadOnlySpan, key string) string {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

func TestTelemetrySpans(t *testing.T) {
	for _, stream := range []bool{false, true} {
		spans, _ := spansAndMetrics(t, "", stream)
		byName := map[string]sdktrace.ReadOnlySpan{}
		for _, s := range spans {
			byName[s.Name()] = s
		}
		msg := byName["dialect.message"]
		if len(spans) != 4 || msg == nil {
			var names []string
			for _, s := range spans {
				names = append(names, s.Name())
			}
			t.Fatalf("stream %v: spans %v, want a message and three actions", stream, names)
		}
		if spanAttr(msg, "gen_ai.agent.name") != "scout" || spanAttr(msg, "gen_ai.request.model") != "m1" ||
			spanAttr(msg, "gen_ai.conversation.id") != "s1" || spanAttr(msg, "dialect.actions") != "3" || spanAttr(msg, "dialect.failures") != "1" {
			t.Errorf("message span attributes: %v", msg.Attributes())
		}
		calc := byName["execute_tool calc"]
		if calc == nil || calc.Parent().SpanID() != msg.SpanContext().SpanID() || spanAttr(calc, "gen_ai.operation.name") != "execute_tool" ||
			spanAttr(calc, "gen_ai.tool.name") != "calc" || spanAttr(calc, "dialect.status") != "ok" || spanAttr(calc, "dialect.tier") != "exact" ||
			spanAttr(calc, "gen_ai.agent.name") != "scout" || calc.Status().Code == otelcodes.Error {
			t.Errorf("calc span: %v %v", calc.Attributes(), calc.Status())
		}
		bad := byName["execute_tool zzyzx"]
		if bad == nil || spanAttr(bad, "dialect.failure.code") != "UNKNOWN_VERB" || spanAttr(bad, "error.type") != "UNKNOWN_VERB" ||
			spanAttr(bad, "dialect.status") != "error" || bad.Status().Code != otelcodes.Error {
			t.Errorf("unknown verb span: %v", bad)
		}
		for _, s := range spans {
			for _, kv := range s.Attributes() {
				if v := kv.Value.Emit(); strings.Contains(v, "6*7") || strings.Contains(v, "Checking") {
					t.Errorf("span %s carries text without message_text: %s=%s", s.Name(), kv.Key, v)
				}
			}
		}
	}
	spans, _ := spansAndMetrics(t, "[telemetry]\nmessage_text = true\n", false)
	var text, raw bool
	for _, s := range spans {
		text = text || spanAttr(s, "dialect.message.text") == telemetryMsg
		raw = raw || spanAttr(s, "dialect.action.text") == "/calc 6*7"
	}
	if !text || !raw {
		t.Errorf("message_text = true: message text %v, action text %v", text, raw)
	}
}

func TestTelemetryMetrics(t *testing.T) {
	_, rm := spansAndMetrics(t, "", false)
	sum := func(name string, match ...attribute.KeyValue) (n int64) {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name != name {
					continue
				}
				switch d := m.Data.(type) {
				case metricdata.Sum[int64]:
					for _, p := range d.DataPoints {
						if hasAll(p.Attributes, match) {
							n += p.Value
						}
					}
				case metricdata.Histogram[float64]:
					for _, p := range d.DataPoints {
						if hasAll(p.Attributes, match) {
							n += int64(p.Count)
						}
					}
				}
			}
		}
		return n
	}
	model := attribute.String("gen_ai.request.model", "m1")
	for _, c := range []struct {
		name  string
		match []attribute.KeyValue
		want  int64
	}{
		{"dialect.actions", nil, 3},
		{"dialect.actions", []attribute.KeyValue{attribute.String("gen_ai.tool.name", "calc"), attribute.String("dialect.status", "ok"), model}, 1},
		{"dialect.actions", []attribute.KeyValue{attribute.String("gen_ai.tool.name", "_unknown"), attribute.String("dialect.status", "error")}, 1},
		{"dialect.failures", []attribute.KeyValue{attribute.String("dialect.failure.code", "UNKNOWN_VERB"), model}, 1},
		{"dialect.failures", nil, 1},
		{"dialect.action.duration", nil, 3},
		{"dialect.action.duration", []attribute.KeyValue{attribute.String("gen_ai.tool.name", "recall")}, 1},
	} {
		if got := sum(c.name, c.match...); got != c.want {
			t.Errorf("%s %v = %d, want %d", c.name, c.match, got, c.want)
		}
	}
}

func hasAll(set attribute.Set, match []attribute.KeyValue) bool {
	for _, kv := range match {
		if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
			return false
		}
	}
	return true
}

// TestTelemetryExportOnClose: with [telemetry] endpoint set, a runtime
// exports its spans and metrics over OTLP/HTTP by the time Close returns,
// as a short `dialect run` needs.
func TestTelemetryExportOnClose(t *testing.T) {
	clearOTelEnv(t)
	recv := otlptest.Start(t)
	cfg, _ := ParseConfig("t.toml", []byte("[telemetry]\nendpoint = \""+recv.URL+"\"\nservice_name = \"dialect-test\"\n"))
	cfg.Store.Path = filepath.Join(t.TempDir(), "d.db")
	rt, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Run(context.Background(), Message{Text: telemetryMsg, Model: "m1"}); err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	spans := recv.Spans()
	if len(spans) != 4 || spans[0].Service != "dialect-test" {
		t.Fatalf("received %d spans: %s", len(spans), recv.Tree())
	}
	if n := recv.Sum("dialect.actions", map[string]string{"gen_ai.tool.name": "calc"}); n != 1 {
		t.Errorf("received dialect.actions{calc} = %v; requests %v", n, recv.Requests())
	}
}
