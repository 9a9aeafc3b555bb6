package telemetry

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/pattern-dialect/dialect/internal/otlptest"
)

var (
	tid, _  = trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _  = trace.SpanIDFromHex("00f067aa0ba902b7")
	psid, _ = trace.SpanIDFromHex("1111111111111111")
	t0      = time.Unix(1700000000, 123456789)
)

// TestTraceEncoding decodes a hand-encoded request with the generated
// OTLP types and checks every field the runtime uses.
func TestTraceEncoding(t *testing.T) {
	res := resource.NewSchemaless(attribute.String("service.name", "svc"), attribute.Int("n", 3))
	ts, _ := trace.ParseTraceState("k=v")
	stub := tracetest.SpanStub{
		Name:        "execute_tool calc",
		SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, TraceState: ts}),
		Parent:      trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: psid, Remote: true}),
		SpanKind:    trace.SpanKindServer,
		StartTime:   t0,
		EndTime:     t0.Add(1500 * time.Microsecond),
		Attributes: []attribute.KeyValue{attribute.String("s", "ünï"), attribute.Int64("i", -7), attribute.Bool("b", true),
			attribute.Float64("f", 2.5), attribute.StringSlice("ss", []string{"a", "b"}), attribute.Int64Slice("is", []int64{1, 2})},
		Events:               []sdktrace.Event{{Name: "ev", Time: t0, Attributes: []attribute.KeyValue{attribute.String("e", "1")}}},
		Links:                []sdktrace.Link{{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: psid})}},
		Status:               sdktrace.Status{Code: otelcodes.Error, Description: "UNKNOWN_VERB"},
		Resource:             res,
		InstrumentationScope: instrumentation.Scope{Name: "scope", Version: "v1"},
	}
	ok := stub
	ok.Name, ok.Status, ok.Parent = "ok", sdktrace.Status{Code: otelcodes.Ok}, trace.SpanContext{}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(traceRequest(tracetest.SpanStubs{stub, ok}.Snapshots()), &req); err != nil {
		t.Fatal(err)
	}
	if len(req.ResourceSpans) != 1 || len(req.ResourceSpans[0].ScopeSpans) != 1 {
		t.Fatalf("grouping: %v", &req)
	}
	rs := req.ResourceSpans[0]
	if attrOf(rs.Resource.Attributes, "service.name") != "svc" || attrOf(rs.Resource.Attributes, "n") != "3" {
		t.Errorf("resource %v", rs.Resource)
	}
	ss := rs.ScopeSpans[0]
	if ss.Scope.Name != "scope" || ss.Scope.Version != "v1" || len(ss.Spans) != 2 {
		t.Fatalf("scope spans %v", ss)
	}
	sp := ss.Spans[0]
	checks := []struct {
		what      string
		got, want any
	}{
		{"trace id", hex.EncodeToString(sp.TraceId), tid.String()},
		{"span id", hex.EncodeToString(sp.SpanId), sid.String()},
		{"parent", hex.EncodeToString(sp.ParentSpanId), psid.String()},
		{"trace state", sp.TraceState, "k=v"},
		{"name", sp.Name, "execute_tool calc"},
		{"kind", sp.Kind, tracepb.Span_SPAN_KIND_SERVER},
		{"start", sp.StartTimeUnixNano, uint64(t0.UnixNano())},
		{"end", sp.EndTimeUnixNano, uint64(t0.Add(1500 * time.Microsecond).UnixNano())},
		{"status", sp.Status.Code, tracepb.Status_STATUS_CODE_ERROR},
		{"status message", sp.Status.Message, "UNKNOWN_VERB"},
		{"flags", sp.Flags, uint32(0x301)},
		{"s", attrOf(sp.Attributes, "s"), "ünï"},
		{"i", attrOf(sp.Attributes, "i"), "-7"},
		{"b", attrOf(sp.Attributes, "b"), "true"},
		{"f", attrOf(sp.Attributes, "f"), "2.5"},
		{"ss", attrOf(sp.Attributes, "ss"), "[a b]"},
		{"is", attrOf(sp.Attributes, "is"), "[1 2]"},
		{"event", sp.Events[0].Name + attrOf(sp.Events[0].Attributes, "e"), "ev1"},
		{"event time", sp.Events[0].TimeUnixNano, uint64(t0.UnixNano())},
		{"link", hex.EncodeToString(sp.Links[0].SpanId), psid.String()},
		{"ok status", ss.Spans[1].Status.Code, tracepb.Status_STATUS_CODE_OK},
		{"no parent", len(ss.Spans[1].ParentSpanId), 0},
		{"local flags", ss.Spans[1].Flags, uint32(0x101)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

func attrOf(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key != key {
			continue
		}
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue
		case *commonpb.AnyValue_IntValue:
			return fmtAny(v.IntValue)
		case *commonpb.AnyValue_BoolValue:
			return fmtAny(v.BoolValue)
		case *commonpb.AnyValue_DoubleValue:
			return fmtAny(v.DoubleValue)
		case *commonpb.AnyValue_ArrayValue:
			var out []any
			for _, x := range v.ArrayValue.Values {
				switch y := x.Value.(type) {
				case *commonpb.AnyValue_StringValue:
					out = append(out, y.StringValue)
				case *commonpb.AnyValue_IntValue:
					out = append(out, y.IntValue)
				}
			}
			return fmtAny(out)
		}
	}
	return ""
}

func TestMetricsEncoding(t *testing.T) {
	set := attribute.NewSet(attribute.String("gen_ai.tool.name", "calc"))
	rm := &metricdata.ResourceMetrics{
		Resource: resource.NewSchemaless(attribute.String("service.name", "svc")),
		ScopeMetrics: []metricdata.ScopeMetrics{{
			Scope: instrumentation.Scope{Name: "scope"},
			Metrics: []metricdata.Metrics{
				{Name: "dialect.actions", Unit: "{action}", Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true,
					DataPoints: []metricdata.DataPoint[int64]{{Attributes: set, StartTime: t0, Time: t0.Add(time.Second), Value: 5}}}},
				{Name: "f.sum", Data: metricdata.Sum[float64]{Temporality: metricdata.DeltaTemporality,
					DataPoints: []metricdata.DataPoint[float64]{{Value: 1.5}}}},
				{Name: "g", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Value: -3}}}},
				{Name: "dialect.action.duration", Unit: "s", Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality,
					DataPoints: []metricdata.HistogramDataPoint[float64]{{Attributes: set, Count: 3, Sum: 0.7, Bounds: []float64{0.1, 1},
						BucketCounts: []uint64{1, 2, 0}, Min: metricdata.NewExtrema(0.05), Max: metricdata.NewExtrema(0.5)}}}},
			},
		}},
	}
	var req colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(metricsRequest(rm), &req); err != nil {
		t.Fatal(err)
	}
	ms := req.ResourceMetrics[0].ScopeMetrics[0].Metrics
	if len(ms) != 4 {
		t.Fatalf("%d metrics", len(ms))
	}
	s := ms[0].GetSum()
	if ms[0].Name != "dialect.actions" || ms[0].Unit != "{action}" || !s.IsMonotonic || s.AggregationTemporality != 2 ||
		s.DataPoints[0].GetAsInt() != 5 || attrOf(s.DataPoints[0].Attributes, "gen_ai.tool.name") != "calc" ||
		s.DataPoints[0].StartTimeUnixNano != uint64(t0.UnixNano()) {
		t.Errorf("sum: %v", ms[0])
	}
	if f := ms[1].GetSum(); f.DataPoints[0].GetAsDouble() != 1.5 || f.AggregationTemporality != 1 || f.IsMonotonic {
		t.Errorf("float sum: %v", ms[1])
	}
	if g := ms[2].GetGauge(); g == nil || g.DataPoints[0].GetAsInt() != -3 {
		t.Errorf("gauge: %v", ms[2])
	}
	h := ms[3].GetHistogram()
	p := h.DataPoints[0]
	if h.AggregationTemporality != 2 || p.Count != 3 || p.GetSum() != 0.7 || len(p.BucketCounts) != 3 || p.BucketCounts[1] != 2 ||
		len(p.ExplicitBounds) != 2 || p.ExplicitBounds[1] != 1 || p.GetMin() != 0.05 || p.GetMax() != 0.5 {
		t.Errorf("histogram: %v", ms[3])
	}
}

// TestExportRetriesAndHeaders: a receiver that answers 503 once gets the
// request again; headers and gzip from the environment are sent.
func TestExportRetriesAndHeaders(t *testing.T) {
	var calls atomic.Int32
	var gotAuth, gotEnc atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		gotAuth.Store(r.Header.Get("Authorization"))
		gotEnc.Store(r.Header.Get("Content-Encoding"))
	}))
	defer srv.Close()
	getenv := env(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": srv.URL + "/custom/path",
		"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20abc,x=y", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"})
	c, err := newClient(Settings{}, "TRACES", "/v1/traces", "", getenv)
	if err != nil {
		t.Fatal(err)
	}
	if c.url != srv.URL+"/custom/path" {
		t.Errorf("signal endpoint used as written: %s", c.url)
	}
	if err := c.send(context.Background(), []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 || gotAuth.Load() != "Bearer abc" || gotEnc.Load() != "gzip" {
		t.Errorf("calls %d, auth %v, encoding %v", calls.Load(), gotAuth.Load(), gotEnc.Load())
	}
	// A receiver that refuses for good is not retried.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1); w.WriteHeader(http.StatusBadRequest) }))
	defer bad.Close()
	c, _ = newClient(Settings{Endpoint: bad.URL}, "TRACES", "/v1/traces", "", env(nil))
	calls.Store(0)
	if err := c.send(context.Background(), []byte{1}); err == nil || calls.Load() != 1 {
		t.Errorf("400: %v after %d calls", err, calls.Load())
	}
}

// TestShutdownBounded: with nothing listening, Shutdown returns when its
// context ends, with an error.
func TestShutdownBounded(t *testing.T) {
	p, err := Setup(context.Background(), Settings{Endpoint: "http://127.0.0.1:1"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	_, sp := p.Tracer.Tracer("t").Start(context.Background(), "x")
	sp.End()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = p.Shutdown(ctx)
	if err == nil || time.Since(start) > 3*time.Second {
		t.Errorf("Shutdown with no receiver: %v after %s", err, time.Since(start))
	}
}

// TestGzipOverGRPC sends compressed gRPC requests to a grpc-go server.
func TestGzipOverGRPC(t *testing.T) {
	recv := otlptest.Start(t)
	p, err := Setup(context.Background(), Settings{Endpoint: recv.GRPC, Protocol: GRPC}, env(map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"}))
	if err != nil {
		t.Fatal(err)
	}
	_, sp := p.Tracer.Tracer("t").Start(context.Background(), "zipped")
	sp.End()
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := recv.Spans(); len(s) != 1 || s[0].Name != "zipped" {
		t.Errorf("spans %v", s)
	}
}

func fmtAny(v any) string { return fmt.Sprint(v) }
