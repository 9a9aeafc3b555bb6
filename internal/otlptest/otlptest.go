// Package otlptest is an OTLP receiver for tests: an HTTP server (and a
// gRPC one) that decodes what exporters send with the OpenTelemetry
// protocol's own protobuf types and keeps it, so that a test sees a trace
// as a collector would receive it.
package otlptest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // the receiver takes gzip, as collectors do
	"google.golang.org/protobuf/proto"
)

// Receiver keeps every span and metric it was sent.
type Receiver struct {
	// URL is the HTTP receiver's base URL (POST /v1/traces, /v1/metrics).
	URL string
	// GRPC is the gRPC receiver's address, as http://host:port.
	GRPC string

	mu      sync.Mutex
	spans   []Span
	metrics []*metricpb.Metric
	resAttr map[string]string
	byProto map[string]int // requests received per protocol

	coltracepb.UnimplementedTraceServiceServer
}

// Span is one received span with its service's name.
type Span struct {
	*tracepb.Span
	Service string
}

// Attr returns the span's attribute key as a string ("" when absent).
func (s Span) Attr(key string) string { return attr(s.Attributes, key) }

func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key != key {
			continue
		}
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue
		case *commonpb.AnyValue_IntValue:
			return fmt.Sprint(v.IntValue)
		case *commonpb.AnyValue_BoolValue:
			return fmt.Sprint(v.BoolValue)
		case *commonpb.AnyValue_DoubleValue:
			return fmt.Sprint(v.DoubleValue)
		}
	}
	return ""
}

// Start starts an HTTP and a gRPC receiver, stopped when t ends.
func Start(t testing.TB) *Receiver {
	r := &Receiver{byProto: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, req *http.Request) {
		var in coltracepb.ExportTraceServiceRequest
		if !decode(w, req, &in) {
			return
		}
		r.addTraces("http", in.ResourceSpans)
		writeProto(w, &coltracepb.ExportTraceServiceResponse{})
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, req *http.Request) {
		var in colmetricpb.ExportMetricsServiceRequest
		if !decode(w, req, &in) {
			return
		}
		r.addMetrics("http", in.ResourceMetrics)
		writeProto(w, &colmetricpb.ExportMetricsServiceResponse{})
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	r.URL = hs.URL

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(gs, r)
	colmetricpb.RegisterMetricsServiceServer(gs, metricsServer{r: r})
	go gs.Serve(ln)
	t.Cleanup(gs.Stop)
	r.GRPC = "http://" + ln.Addr().String()
	return r
}

// Export implements the gRPC trace service.
func (r *Receiver) Export(_ context.Context, in *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	r.addTraces("grpc", in.ResourceSpans)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

type metricsServer struct {
	colmetricpb.UnimplementedMetricsServiceServer
	r *Receiver
}

func (m metricsServer) Export(_ context.Context, in *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	m.r.addMetrics("grpc", in.ResourceMetrics)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

func decode(w http.ResponseWriter, req *http.Request, m proto.Message) bool {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return false
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err == nil {
		err = proto.Unmarshal(b, m)
	}
	if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, fmt.Sprintf("not OTLP protobuf (%s): %v", req.Header.Get("Content-Type"), err), http.StatusBadRequest)
		return false
	}
	return true
}

func writeProto(w http.ResponseWriter, m proto.Message) {
	b, _ := proto.Marshal(m)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

func (r *Receiver) addTraces(via string, rs []*tracepb.ResourceSpans) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byProto[via+" traces"]++
	for _, res := range rs {
		svc := attr(res.GetResource().GetAttributes(), "service.name")
		r.noteResource(res.GetResource().GetAttributes())
		for _, ss := range res.ScopeSpans {
			for _, sp := range ss.Spans {
				r.spans = append(r.spans, Span{sp, svc})
			}
		}
	}
}

func (r *Receiver) addMetrics(via string, rm []*metricpb.ResourceMetrics) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byProto[via+" metrics"]++
	for _, res := range rm {
		r.noteResource(res.GetResource().GetAttributes())
		for _, sm := range res.ScopeMetrics {
			r.metrics = append(r.metrics, sm.Metrics...)
		}
	}
}

func (r *Receiver) noteResource(kvs []*commonpb.KeyValue) {
	if r.resAttr == nil {
		r.resAttr = map[string]string{}
	}
	for _, kv := range kvs {
		r.resAttr[kv.Key] = attr(kvs, kv.Key)
	}
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Requests returns how many export requests came per protocol and signal
// ("http traces", "grpc metrics", ...).
func (r *Receiver) Requests() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.byProto {
		out[k] = v
	}
	return out
}

// Resource returns a resource attribute of what was received.
func (r *Receiver) Resource(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resAttr[key]
}

// Sum returns the total of the data points of the counter (or the count of
// the histogram) name whose attributes include all of match.
func (r *Receiver) Sum(name string, match map[string]string) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	ok := func(kvs []*commonpb.KeyValue) bool {
		for k, v := range match {
			if attr(kvs, k) != v {
				return false
			}
		}
		return true
	}
	// Cumulative temporality: each export repeats the totals; take the
	// last export's points.
	var total float64
	for _, m := range r.metrics {
		if m.Name != name {
			continue
		}
		total = 0
		switch d := m.Data.(type) {
		case *metricpb.Metric_Sum:
			for _, p := range d.Sum.DataPoints {
				if ok(p.Attributes) {
					total += float64(p.GetAsInt()) + p.GetAsDouble()
				}
			}
		case *metricpb.Metric_Histogram:
			for _, p := range d.Histogram.DataPoints {
				if ok(p.Attributes) {
					total += float64(p.Count)
				}
			}
		}
	}
	return total
}

// Tree renders the received spans as an indented tree by parent, each
// with its ids, duration, status and attributes: a trace as a collector
// got it, for people to read.
func (r *Receiver) Tree() string {
	spans := r.Spans()
	byParent := map[string][]Span{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[fmt.Sprintf("%x", s.SpanId)] = true
	}
	for _, s := range spans {
		p := fmt.Sprintf("%x", s.ParentSpanId)
		if !ids[p] {
			p = "root:" + p
		}
		byParent[p] = append(byParent[p], s)
	}
	var b bytes.Buffer
	var walk func(key string, depth int)
	walk = func(key string, depth int) {
		list := byParent[key]
		sort.Slice(list, func(i, j int) bool { return list[i].StartTimeUnixNano < list[j].StartTimeUnixNano })
		for _, s := range list {
			ind := strings.Repeat("  ", depth)
			fmt.Fprintf(&b, "%s%s  [service %s, trace %x, span %x, parent %x, %.3f ms, status %s]\n", ind, s.Name, s.Service,
				s.TraceId, s.SpanId, s.ParentSpanId, float64(s.EndTimeUnixNano-s.StartTimeUnixNano)/1e6, s.Status.GetCode())
			keys := make([]string, 0, len(s.Attributes))
			for _, kv := range s.Attributes {
				keys = append(keys, kv.Key)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(&b, "%s    %s = %s\n", ind, k, attr(s.Attributes, k))
			}
			walk(fmt.Sprintf("%x", s.SpanId), depth+1)
		}
	}
	var roots []string
	for k := range byParent {
		if strings.HasPrefix(k, "root:") {
			roots = append(roots, k)
		}
	}
	sort.Strings(roots)
	for _, k := range roots {
		walk(k, 0)
	}
	return b.String()
}
