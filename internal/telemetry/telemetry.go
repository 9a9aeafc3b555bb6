// Package telemetry builds the OpenTelemetry SDK's tracer and meter
// providers that export over OTLP (HTTP/protobuf or gRPC), from the
// [telemetry] table and the standard OTEL_* environment variables.
//
// It only builds: the runtime (package dialect) decides what to record.
// Nothing here runs unless Signals says telemetry is on; when it is off
// the runtime never calls Setup. The OTLP exporters are this package's
// own (otlp.go, proto.go): the protobuf messages are written by hand and
// gRPC is a unary call over net/http's HTTP/2, so that a binary linking
// the runtime does not link, and initialise at every start, the protobuf
// runtime, the generated OTLP types and grpc-go (about 2 ms of CPU per
// process, measured). The tests decode what it sends with those.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Settings are the [telemetry] table's export settings. Empty fields
// leave the choice to the environment (see Signals and Setup).
type Settings struct {
	// Endpoint is the OTLP endpoint's base URL: http://host:4318 for
	// HTTP (the signal paths /v1/traces and /v1/metrics are appended),
	// http://host:4317 for gRPC (an http URL means no TLS).
	Endpoint string
	// Protocol is "http/protobuf" or "grpc".
	Protocol string
	// ServiceName is service.name, unless OTEL_SERVICE_NAME or
	// OTEL_RESOURCE_ATTRIBUTES set it; default "dialect".
	ServiceName string
	// Version is service.version.
	Version string
}

// Protocols the exporters speak.
const (
	HTTP = "http/protobuf"
	GRPC = "grpc"
)

// CheckProtocol returns an error for a protocol the exporters do not
// speak; "" is accepted (the default).
func CheckProtocol(p string) error {
	switch p {
	case "", HTTP, GRPC:
		return nil
	}
	return fmt.Errorf("%q is not an OTLP protocol dialect speaks (%s, %s)", p, HTTP, GRPC)
}

// Signals reports which signals are on: traces when s.Endpoint,
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
// set, metrics when s.Endpoint, OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is. OTEL_SDK_DISABLED=true turns
// both off. getenv is os.Getenv, or a stand-in in tests.
func Signals(s Settings, getenv func(string) string) (traces, metrics bool) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, false
	}
	all := s.Endpoint != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	return all || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "",
		all || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
}

// Providers are what Setup built. A nil provider's signal is off.
type Providers struct {
	Tracer trace.TracerProvider
	Meter  metric.MeterProvider

	shutdown []func(context.Context) error
}

// Shutdown exports what is still buffered and stops the exporters; a
// short-lived process calls it before exiting. ctx bounds how long it may
// take (an unreachable collector is retried until then).
func (p *Providers) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range p.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// protocol is the protocol of one signal: the setting, else
// OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL,
// else HTTP.
func protocol(s Settings, signal string, getenv func(string) string) (string, error) {
	p := s.Protocol
	if p == "" {
		p = getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL")
	}
	if p == "" {
		p = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if p == "" {
		p = HTTP
	}
	return p, CheckProtocol(p)
}

// Setup builds the providers for the signals that are on, with batching
// span export and periodic metric export (both flushed by Shutdown). The
// exporters read the rest of their settings through getenv (the endpoints
// when s.Endpoint is empty, OTEL_EXPORTER_OTLP_[SIGNAL_]HEADERS, _TIMEOUT
// in milliseconds, _COMPRESSION=gzip, _CERTIFICATE, _INSECURE for a gRPC
// endpoint without a scheme); the SDK reads OTEL_TRACES_SAMPLER, OTEL_BSP_*
// and OTEL_METRIC_EXPORT_INTERVAL.
func Setup(ctx context.Context, s Settings, getenv func(string) string) (*Providers, error) {
	traces, metrics := Signals(s, getenv)
	p := &Providers{}
	if !traces && !metrics {
		return p, nil
	}
	if s.Endpoint != "" {
		if u, err := url.Parse(s.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("telemetry endpoint %q: want an http:// or https:// URL", s.Endpoint)
		}
	}
	res, err := newResource(ctx, s)
	if err != nil {
		return nil, err
	}
	if traces {
		exp, err := newSpanExporter(ctx, s, getenv)
		if err != nil {
			return nil, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		p.Tracer, p.shutdown = tp, append(p.shutdown, tp.Shutdown)
	}
	if metrics {
		exp, err := newMetricExporter(ctx, s, getenv)
		if err != nil {
			p.Shutdown(ctx)
			return nil, err
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		p.Meter, p.shutdown = mp, append(p.shutdown, mp.Shutdown)
	}
	return p, nil
}

// newResource names the service: service.name "dialect" (or the
// setting), which OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override.
func newResource(ctx context.Context, s Settings) (*resource.Resource, error) {
	name := s.ServiceName
	if name == "" {
		name = "dialect"
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if s.Version != "" {
		attrs = append(attrs, attribute.String("service.version", s.Version))
	}
	return resource.New(ctx, resource.WithAttributes(attrs...), resource.WithFromEnv(), resource.WithTelemetrySDK())
}

func newSpanExporter(_ context.Context, s Settings, getenv func(string) string) (sdktrace.SpanExporter, error) {
	c, err := newClient(s, "TRACES", "/v1/traces", "/opentelemetry.proto.collector.trace.v1.TraceService/Export", getenv)
	if err != nil {
		return nil, err
	}
	return spanExporter{c}, nil
}

func newMetricExporter(_ context.Context, s Settings, getenv func(string) string) (sdkmetric.Exporter, error) {
	c, err := newClient(s, "METRICS", "/v1/metrics", "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", getenv)
	if err != nil {
		return nil, err
	}
	return metricExporter{c}, nil
}
