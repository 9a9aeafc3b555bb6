package dialect

import (
	"context"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/internal/telemetry"
)

// WithTracerProvider makes the runtime record its spans with tp (a Go
// host's own OpenTelemetry setup) instead of the one [telemetry] and the
// OTEL_* environment would build. The host flushes and shuts tp down.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tracer = tp }
}

// WithMeterProvider makes the runtime record its metrics with mp, as
// WithTracerProvider does for spans.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) { o.meter = mp }
}

// scope is the instrumentation scope of the runtime's spans and metrics.
const scope = "github.com/pattern-dialect/dialect"

// Attribute keys on spans and metrics (docs/telemetry.md). The gen_ai.*
// keys are OpenTelemetry's GenAI semantic conventions.
const (
	attrOperation = attribute.Key("gen_ai.operation.name")
	attrTool      = attribute.Key("gen_ai.tool.name")
	attrToolType  = attribute.Key("gen_ai.tool.type")
	attrAgent     = attribute.Key("gen_ai.agent.name")
	attrModel     = attribute.Key("gen_ai.request.model")
	attrSession   = attribute.Key("gen_ai.conversation.id")
	attrErrorType = attribute.Key("error.type")
	attrStatus    = attribute.Key("dialect.status")
	attrCode      = attribute.Key("dialect.failure.code")
	attrTier      = attribute.Key("dialect.tier")
	attrStage     = attribute.Key("dialect.stage")
	attrToken     = attribute.Key("dialect.token")
	attrLine      = attribute.Key("dialect.line")
	attrPending   = attribute.Key("dialect.pending.id")
	attrText      = attribute.Key("dialect.message.text")
	attrRaw       = attribute.Key("dialect.action.text")
	attrActions   = attribute.Key("dialect.actions")
	attrFailures  = attribute.Key("dialect.failures")
)

// recorder is what the runtime records with OpenTelemetry: a span per
// message and per action, and the action and failure metrics. A nil
// *recorder (the default) records nothing, and every method is a no-op
// on it.
type recorder struct {
	tracer   trace.Tracer
	actions  metric.Int64Counter
	failures metric.Int64Counter
	duration metric.Float64Histogram
	text     bool // record message and action text
	// providers is what the runtime built and must shut down; nil when
	// the host gave its own.
	providers *telemetry.Providers
	once      sync.Once // shutdown runs once
}

// newRecorder returns the runtime's telemetry: the host's providers if it
// gave any, else the OTLP export that [telemetry] and the environment ask
// for, else nil (off).
func newRecorder(ctx context.Context, cfg TelemetryConfig, tp trace.TracerProvider, mp metric.MeterProvider) (*recorder, error) {
	t := &recorder{text: cfg.MessageText}
	if tp == nil && mp == nil {
		traces, metrics := telemetry.Signals(cfg.settings(), os.Getenv)
		if !traces && !metrics {
			return nil, nil
		}
		p, err := telemetry.Setup(ctx, cfg.settings(), os.Getenv)
		if err != nil {
			return nil, err
		}
		tp, mp, t.providers = p.Tracer, p.Meter, p
	}
	if tp != nil {
		t.tracer = tp.Tracer(scope)
	}
	if mp != nil {
		m := mp.Meter(scope)
		var err error
		if t.actions, err = m.Int64Counter("dialect.actions", metric.WithUnit("{action}"),
			metric.WithDescription("Actions in executable positions, by verb, status and model")); err != nil {
			return nil, err
		}
		if t.failures, err = m.Int64Counter("dialect.failures", metric.WithUnit("{failure}"),
			metric.WithDescription("Actions that failed or were denied, by failure code and model")); err != nil {
			return nil, err
		}
		if t.duration, err = m.Float64Histogram("dialect.action.duration", metric.WithUnit("s"),
			metric.WithDescription("Time from parsing an action to its result, by verb and status"),
			metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (c TelemetryConfig) settings() telemetry.Settings {
	return telemetry.Settings{Endpoint: c.Endpoint, Protocol: c.Protocol, ServiceName: c.ServiceName, Version: moduleVersion()}
}

// moduleVersion is this module's version in the running binary.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if bi.Main.Path == scope {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == scope {
			return d.Version
		}
	}
	return ""
}

// shutdown flushes and stops the providers the runtime built, once;
// what is recorded afterwards is dropped.
func (t *recorder) shutdown(ctx context.Context) (err error) {
	if t == nil || t.providers == nil {
		return nil
	}
	t.once.Do(func() { err = t.providers.Shutdown(ctx) })
	return err
}

// messageSpan is the span of one message; nil when tracing is off.
type messageSpan struct{ span trace.Span }

// startMessage starts the span of one message, a child of whatever span
// ctx carries (the proxy's incoming request's, a host's).
func (t *recorder) startMessage(ctx context.Context, msg Message) (context.Context, messageSpan) {
	if t == nil || t.tracer == nil {
		return ctx, messageSpan{}
	}
	ctx, sp := t.tracer.Start(ctx, "dialect.message", trace.WithSpanKind(trace.SpanKindInternal))
	return ctx, messageSpan{sp}
}

// endMessage ends a message's span with who wrote it and what came of its
// actions.
func (t *recorder) endMessage(m messageSpan, msg Message, results []Result, err error) {
	if m.span == nil {
		return
	}
	acts, fails := 0, 0
	for i := range results {
		switch results[i].Status {
		case StatusSkipped, "":
		case StatusError, StatusDenied:
			acts++
			fails++
		default:
			acts++
		}
	}
	m.span.SetAttributes(append(who(msg), attrActions.Int(acts), attrFailures.Int(fails))...)
	if t.text {
		m.span.SetAttributes(attrText.String(msg.Text))
	}
	if err != nil {
		m.span.RecordError(err)
		m.span.SetStatus(otelcodes.Error, err.Error())
	}
	m.span.End()
}

// who is the message's agent, model and session as attributes.
func who(msg Message) []attribute.KeyValue {
	var out []attribute.KeyValue
	if msg.Agent != "" {
		out = append(out, attrAgent.String(msg.Agent))
	}
	if msg.Model != "" {
		out = append(out, attrModel.String(msg.Model))
	}
	if msg.Session != "" {
		out = append(out, attrSession.String(msg.Session))
	}
	return out
}

// actionRun is one action being recorded.
type actionRun struct {
	ctx   context.Context
	span  trace.Span
	start time.Time
}

// startAction starts the execute_tool span of one action in an executable
// position; its name and attributes are set when it ends, once the verb
// is known.
func (t *recorder) startAction(ctx context.Context) actionRun {
	if t == nil {
		return actionRun{ctx: ctx}
	}
	a := actionRun{ctx: ctx, start: time.Now()}
	if t.tracer != nil {
		a.ctx, a.span = t.tracer.Start(ctx, "execute_tool", trace.WithSpanKind(trace.SpanKindInternal))
	}
	return a
}

// endAction ends an action's span and records its metrics from its result.
func (t *recorder) endAction(a actionRun, msg Message, act *detect.Action, raw string, r *Result) {
	if t == nil {
		return
	}
	verb := r.Verb
	metricVerb := verb
	if metricVerb == "" {
		metricVerb = "_unknown" // a model's misspelling is no metric dimension
	}
	failed := r.Status == StatusError || r.Status == StatusDenied
	if a.span != nil {
		tool := verb
		if tool == "" {
			tool = act.Token
		}
		a.span.SetName("execute_tool " + tool)
		attrs := append(who(msg), attrOperation.String("execute_tool"), attrTool.String(tool), attrToolType.String("function"),
			attrStatus.String(string(r.Status)), attrToken.String(act.Token), attrLine.Int(r.Line))
		if r.Tier != "" {
			attrs = append(attrs, attrTier.String(r.Tier))
		}
		if r.Stage != "" {
			attrs = append(attrs, attrStage.String(r.Stage))
		}
		if r.Code != "" {
			attrs = append(attrs, attrCode.String(string(r.Code)))
		}
		if r.Pending != 0 {
			attrs = append(attrs, attrPending.Int64(r.Pending))
		}
		if t.text {
			attrs = append(attrs, attrRaw.String(raw))
		}
		if failed {
			attrs = append(attrs, attrErrorType.String(string(r.Code)))
			a.span.SetStatus(otelcodes.Error, string(r.Code))
		}
		a.span.SetAttributes(attrs...)
		a.span.End()
	}
	if t.actions != nil {
		ctx := context.WithoutCancel(a.ctx)
		t.actions.Add(ctx, 1, metric.WithAttributes(attrTool.String(metricVerb), attrStatus.String(string(r.Status)), attrModel.String(msg.Model)))
		t.duration.Record(ctx, time.Since(a.start).Seconds(), metric.WithAttributes(attrTool.String(metricVerb), attrStatus.String(string(r.Status))))
		if failed && r.Code != "" {
			t.failures.Add(ctx, 1, metric.WithAttributes(attrCode.String(string(r.Code)), attrModel.String(msg.Model)))
		}
	}
}
