package telemetry

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/pattern-dialect/dialect/internal/otlptest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestSignals(t *testing.T) {
	for _, c := range []struct {
		s               Settings
		env             map[string]string
		traces, metrics bool
	}{
		{Settings{}, nil, false, false},
		{Settings{Endpoint: "http://x:4318"}, nil, true, true},
		{Settings{}, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}, true, true},
		{Settings{}, map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://x/v1/traces"}, true, false},
		{Settings{}, map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://x/v1/metrics"}, false, true},
		{Settings{Endpoint: "http://x"}, map[string]string{"OTEL_SDK_DISABLED": "TRUE"}, false, false},
	} {
		tr, me := Signals(c.s, env(c.env))
		if tr != c.traces || me != c.metrics {
			t.Errorf("Signals(%+v, %v) = %v %v, want %v %v", c.s, c.env, tr, me, c.traces, c.metrics)
		}
	}
}

// TestSetupExports sends one span and one counter over each protocol to
// a receiver that decodes them with the OTLP protobuf types.
func TestSetupExports(t *testing.T) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"} {
		t.Setenv(k, "")
	}
	for _, proto := range []string{HTTP, GRPC} {
		t.Run(proto, func(t *testing.T) {
			recv := otlptest.Start(t)
			ep := recv.URL
			if proto == GRPC {
				ep = recv.GRPC
			}
			ctx := context.Background()
			p, err := Setup(ctx, Settings{Endpoint: ep, Protocol: proto, Version: "v9"}, env(nil))
			if err != nil {
				t.Fatal(err)
			}
			_, sp := p.Tracer.Tracer("test").Start(ctx, "one")
			sp.End()
			c, _ := p.Meter.Meter("test").Int64Counter("things")
			c.Add(ctx, 5, metric.WithAttributes(attribute.String("k", "v")))
			if err := p.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			spans := recv.Spans()
			if len(spans) != 1 || spans[0].Name != "one" || spans[0].Service != "dialect" || recv.Resource("service.version") != "v9" {
				t.Errorf("spans: %s", recv.Tree())
			}
			if n := recv.Sum("things", map[string]string{"k": "v"}); n != 5 {
				t.Errorf("things = %v", n)
			}
			want := "http"
			if proto == GRPC {
				want = "grpc"
			}
			if r := recv.Requests(); r[want+" traces"] == 0 || r[want+" metrics"] == 0 {
				t.Errorf("requests: %v", r)
			}
		})
	}
}

// TestSetupFromEnvironment: with nothing configured, the standard variables
// choose the endpoint, the protocol and the service name.
func TestSetupFromEnvironment(t *testing.T) {
	recv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.GRPC)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	t.Setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
	t.Setenv("OTEL_SERVICE_NAME", "fleet-agent")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
	ctx := context.Background()
	p, err := Setup(ctx, Settings{}, func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.GRPC, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	_, sp := p.Tracer.Tracer("test").Start(ctx, "env")
	sp.End()
	p.Shutdown(ctx)
	if s := recv.Spans(); len(s) != 1 || s[0].Service != "fleet-agent" || recv.Requests()["grpc traces"] != 1 {
		t.Errorf("spans %v, requests %v", s, recv.Requests())
	}
}

func TestSetupErrors(t *testing.T) {
	for _, s := range []Settings{
		{Endpoint: "localhost:4318"},
		{Endpoint: "ftp://x"},
		{Endpoint: "http://x", Protocol: "http/json"},
	} {
		if _, err := Setup(context.Background(), s, env(nil)); err == nil {
			t.Errorf("Setup(%+v) accepted", s)
		}
	}
}
