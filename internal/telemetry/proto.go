package telemetry

import (
	"encoding/binary"
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The OTLP messages are written here with the protobuf wire format by
// hand (opentelemetry-proto's field numbers), so that a binary that links
// the runtime does not link, and initialise at start-up, the protobuf
// runtime, the generated OTLP types and gRPC. The tests decode the output
// with the generated types.

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func tag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func pbVarint(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.AppendUvarint(tag(b, field, wireVarint), v)
}

func pbFixed64(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint64(tag(b, field, wireFixed64), v)
}

func pbDouble(b []byte, field int, v float64) []byte {
	return binary.LittleEndian.AppendUint64(tag(b, field, wireFixed64), math.Float64bits(v))
}

func pbBytes(b []byte, field int, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = binary.AppendUvarint(tag(b, field, wireBytes), uint64(len(v)))
	return append(b, v...)
}

func pbString(b []byte, field int, s string) []byte {
	if s == "" {
		return b
	}
	b = binary.AppendUvarint(tag(b, field, wireBytes), uint64(len(s)))
	return append(b, s...)
}

// pbMsg appends the message that enc writes as field, even when empty.
func pbMsg(b []byte, field int, enc func([]byte) []byte) []byte {
	inner := enc(nil)
	b = binary.AppendUvarint(tag(b, field, wireBytes), uint64(len(inner)))
	return append(b, inner...)
}

func nanos(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

// anyValue writes an AnyValue.
func anyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		if v.AsBool() {
			return binary.AppendUvarint(tag(b, 2, wireVarint), 1)
		}
		return binary.AppendUvarint(tag(b, 2, wireVarint), 0)
	case attribute.INT64:
		return binary.AppendUvarint(tag(b, 3, wireVarint), uint64(v.AsInt64()))
	case attribute.FLOAT64:
		return pbDouble(b, 4, v.AsFloat64())
	case attribute.STRING:
		s := v.AsString()
		b = binary.AppendUvarint(tag(b, 1, wireBytes), uint64(len(s)))
		return append(b, s...)
	case attribute.BOOLSLICE, attribute.INT64SLICE, attribute.FLOAT64SLICE, attribute.STRINGSLICE:
		return pbMsg(b, 5, func(b []byte) []byte {
			switch v.Type() {
			case attribute.BOOLSLICE:
				for _, x := range v.AsBoolSlice() {
					b = pbMsg(b, 1, func(b []byte) []byte { return anyValue(b, attribute.BoolValue(x)) })
				}
			case attribute.INT64SLICE:
				for _, x := range v.AsInt64Slice() {
					b = pbMsg(b, 1, func(b []byte) []byte { return anyValue(b, attribute.Int64Value(x)) })
				}
			case attribute.FLOAT64SLICE:
				for _, x := range v.AsFloat64Slice() {
					b = pbMsg(b, 1, func(b []byte) []byte { return anyValue(b, attribute.Float64Value(x)) })
				}
			default:
				for _, x := range v.AsStringSlice() {
					b = pbMsg(b, 1, func(b []byte) []byte { return anyValue(b, attribute.StringValue(x)) })
				}
			}
			return b
		})
	}
	return pbString(b, 1, v.Emit())
}

// keyValues writes attributes as repeated KeyValue field.
func keyValues(b []byte, field int, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = pbMsg(b, field, func(b []byte) []byte {
			b = pbString(b, 1, string(kv.Key))
			return pbMsg(b, 2, func(b []byte) []byte { return anyValue(b, kv.Value) })
		})
	}
	return b
}

func resourceMsg(b []byte, field int, r *resource.Resource) []byte {
	return pbMsg(b, field, func(b []byte) []byte {
		if r != nil {
			b = keyValues(b, 1, r.Attributes())
		}
		return b
	})
}

func scopeMsg(b []byte, field int, s instrumentation.Scope) []byte {
	return pbMsg(b, field, func(b []byte) []byte {
		b = pbString(b, 1, s.Name)
		b = pbString(b, 2, s.Version)
		return keyValues(b, 3, s.Attributes.ToSlice())
	})
}

// traceRequest encodes an ExportTraceServiceRequest: spans grouped by
// resource and instrumentation scope, in the order they came.
func traceRequest(spans []sdktrace.ReadOnlySpan) []byte {
	type group struct {
		res    *resource.Resource
		scopes []instrumentation.Scope
		spans  map[instrumentation.Scope][]sdktrace.ReadOnlySpan
	}
	var groups []*group
	for _, s := range spans {
		var g *group
		for _, x := range groups {
			if x.res.Equal(s.Resource()) {
				g = x
				break
			}
		}
		if g == nil {
			g = &group{res: s.Resource(), spans: map[instrumentation.Scope][]sdktrace.ReadOnlySpan{}}
			groups = append(groups, g)
		}
		sc := s.InstrumentationScope()
		key := instrumentation.Scope{Name: sc.Name, Version: sc.Version, SchemaURL: sc.SchemaURL}
		if _, ok := g.spans[key]; !ok {
			g.scopes = append(g.scopes, key)
		}
		g.spans[key] = append(g.spans[key], s)
	}
	var b []byte
	for _, g := range groups {
		b = pbMsg(b, 1, func(b []byte) []byte { // ResourceSpans
			b = resourceMsg(b, 1, g.res)
			for _, sc := range g.scopes {
				b = pbMsg(b, 2, func(b []byte) []byte { // ScopeSpans
					list := g.spans[sc]
					b = scopeMsg(b, 1, list[0].InstrumentationScope())
					for _, s := range list {
						b = pbMsg(b, 2, func(b []byte) []byte { return spanMsg(b, s) })
					}
					return pbString(b, 3, sc.SchemaURL)
				})
			}
			if g.res != nil {
				b = pbString(b, 3, g.res.SchemaURL())
			}
			return b
		})
	}
	return b
}

// spanMsg writes one Span's fields.
func spanMsg(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = pbBytes(b, 1, tid[:])
	b = pbBytes(b, 2, sid[:])
	b = pbString(b, 3, sc.TraceState().String())
	if p := s.Parent(); p.SpanID().IsValid() {
		psid := p.SpanID()
		b = pbBytes(b, 4, psid[:])
	}
	b = pbString(b, 5, s.Name())
	b = pbVarint(b, 6, uint64(s.SpanKind())) // the SDK's kinds number as OTLP's
	b = pbFixed64(b, 7, nanos(s.StartTime()))
	b = pbFixed64(b, 8, nanos(s.EndTime()))
	b = keyValues(b, 9, s.Attributes())
	b = pbVarint(b, 10, uint64(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b = pbMsg(b, 11, func(b []byte) []byte {
			b = pbFixed64(b, 1, nanos(e.Time))
			b = pbString(b, 2, e.Name)
			b = keyValues(b, 3, e.Attributes)
			return pbVarint(b, 4, uint64(e.DroppedAttributeCount))
		})
	}
	b = pbVarint(b, 12, uint64(s.DroppedEvents()))
	for _, l := range s.Links() {
		b = pbMsg(b, 13, func(b []byte) []byte {
			ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = pbBytes(b, 1, ltid[:])
			b = pbBytes(b, 2, lsid[:])
			b = pbString(b, 3, l.SpanContext.TraceState().String())
			b = keyValues(b, 4, l.Attributes)
			b = pbVarint(b, 5, uint64(l.DroppedAttributeCount))
			return binary.LittleEndian.AppendUint32(tag(b, 6, wireFixed32), uint32(l.SpanContext.TraceFlags()))
		})
	}
	b = pbVarint(b, 14, uint64(s.DroppedLinks()))
	st := s.Status()
	var code uint64 // OTLP: 0 unset, 1 ok, 2 error
	switch st.Code {
	case otelcodes.Ok:
		code = 1
	case otelcodes.Error:
		code = 2
	}
	b = pbMsg(b, 15, func(b []byte) []byte {
		b = pbString(b, 2, st.Description)
		return pbVarint(b, 3, code)
	})
	flags := uint32(sc.TraceFlags()) | 0x100 // the parent's remoteness is known
	if s.Parent().IsRemote() {
		flags |= 0x200
	}
	return binary.LittleEndian.AppendUint32(tag(b, 16, wireFixed32), flags)
}

// temporality is OTLP's AggregationTemporality for the SDK's.
func temporality(t metricdata.Temporality) uint64 {
	switch t {
	case metricdata.DeltaTemporality:
		return 1
	case metricdata.CumulativeTemporality:
		return 2
	}
	return 0
}

// metricsRequest encodes an ExportMetricsServiceRequest. Exponential
// histograms and summaries, which the runtime never records, are left
// out.
func metricsRequest(rm *metricdata.ResourceMetrics) []byte {
	return pbMsg(nil, 1, func(b []byte) []byte { // ResourceMetrics
		b = resourceMsg(b, 1, rm.Resource)
		for _, sm := range rm.ScopeMetrics {
			b = pbMsg(b, 2, func(b []byte) []byte { // ScopeMetrics
				b = scopeMsg(b, 1, sm.Scope)
				for _, m := range sm.Metrics {
					if enc := metricData(m.Data); enc != nil {
						b = pbMsg(b, 2, func(b []byte) []byte {
							b = pbString(b, 1, m.Name)
							b = pbString(b, 2, m.Description)
							b = pbString(b, 3, m.Unit)
							return enc(b)
						})
					}
				}
				return pbString(b, 3, sm.Scope.SchemaURL)
			})
		}
		if rm.Resource != nil {
			b = pbString(b, 3, rm.Resource.SchemaURL())
		}
		return b
	})
}

// metricData returns what writes a Metric's data field, or nil for data
// it does not encode.
func metricData(d metricdata.Aggregation) func([]byte) []byte {
	switch d := d.(type) {
	case metricdata.Sum[int64]:
		return sum(d)
	case metricdata.Sum[float64]:
		return sum(d)
	case metricdata.Gauge[int64]:
		return gauge(d)
	case metricdata.Gauge[float64]:
		return gauge(d)
	case metricdata.Histogram[int64]:
		return histogram(d)
	case metricdata.Histogram[float64]:
		return histogram(d)
	}
	return nil
}

func numberPoint[N int64 | float64](b []byte, p metricdata.DataPoint[N]) []byte {
	b = pbFixed64(b, 2, nanos(p.StartTime))
	b = pbFixed64(b, 3, nanos(p.Time))
	switch v := any(p.Value).(type) {
	case int64:
		b = binary.LittleEndian.AppendUint64(tag(b, 6, wireFixed64), uint64(v))
	case float64:
		b = pbDouble(b, 4, v)
	}
	return keyValues(b, 7, p.Attributes.ToSlice())
}

func sum[N int64 | float64](d metricdata.Sum[N]) func([]byte) []byte {
	return func(b []byte) []byte {
		return pbMsg(b, 7, func(b []byte) []byte {
			for _, p := range d.DataPoints {
				b = pbMsg(b, 1, func(b []byte) []byte { return numberPoint(b, p) })
			}
			b = pbVarint(b, 2, temporality(d.Temporality))
			if d.IsMonotonic {
				b = pbVarint(b, 3, 1)
			}
			return b
		})
	}
}

func gauge[N int64 | float64](d metricdata.Gauge[N]) func([]byte) []byte {
	return func(b []byte) []byte {
		return pbMsg(b, 5, func(b []byte) []byte {
			for _, p := range d.DataPoints {
				b = pbMsg(b, 1, func(b []byte) []byte { return numberPoint(b, p) })
			}
			return b
		})
	}
}

func histogram[N int64 | float64](d metricdata.Histogram[N]) func([]byte) []byte {
	return func(b []byte) []byte {
		return pbMsg(b, 9, func(b []byte) []byte {
			for _, p := range d.DataPoints {
				b = pbMsg(b, 1, func(b []byte) []byte {
					b = pbFixed64(b, 2, nanos(p.StartTime))
					b = pbFixed64(b, 3, nanos(p.Time))
					b = binary.LittleEndian.AppendUint64(tag(b, 4, wireFixed64), p.Count)
					b = pbDouble(b, 5, float64(p.Sum))
					if len(p.BucketCounts) > 0 {
						b = binary.AppendUvarint(tag(b, 6, wireBytes), uint64(8*len(p.BucketCounts)))
						for _, c := range p.BucketCounts {
							b = binary.LittleEndian.AppendUint64(b, c)
						}
					}
					if len(p.Bounds) > 0 {
						b = binary.AppendUvarint(tag(b, 7, wireBytes), uint64(8*len(p.Bounds)))
						for _, x := range p.Bounds {
							b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
						}
					}
					b = keyValues(b, 9, p.Attributes.ToSlice())
					if v, ok := p.Min.Value(); ok {
						b = pbDouble(b, 11, float64(v))
					}
					if v, ok := p.Max.Value(); ok {
						b = pbDouble(b, 12, float64(v))
					}
					return b
				})
			}
			return pbVarint(b, 2, temporality(d.Temporality))
		})
	}
}
