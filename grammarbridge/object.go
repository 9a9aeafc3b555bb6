package grammarbridge

import (
	"encoding/json"
	"slices"
)

// Object is a JSON object as the value expressions' evaluator computes
// it (operators, spreads), before the value is written as a Match's
// JSON. Its properties keep the order in which the value expression
// wrote them, as JavaScript's objects do and as JSON.stringify writes
// them; keys are unique.
type Object struct {
	Props []Prop
}

// Prop is one property of an Object.
type Prop struct {
	Key   string
	Value any
}

// Len returns the number of properties.
func (o *Object) Len() int { return len(o.Props) }

// Get returns the value of the property key and whether o has it.
func (o *Object) Get(key string) (any, bool) {
	for i := range o.Props {
		if o.Props[i].Key == key {
			return o.Props[i].Value, true
		}
	}
	return nil, false
}

// set gives the property key the value v: in place when o has it (a
// JavaScript object keeps a key where it was first written), else at the
// end.
func (o *Object) set(key string, v any) {
	for i := range o.Props {
		if o.Props[i].Key == key {
			o.Props[i].Value = v
			return
		}
	}
	o.Props = append(o.Props, Prop{key, v})
}

// Map returns o as a map of plain values (see Plain).
func (o *Object) Map() map[string]any {
	out := make(map[string]any, len(o.Props))
	for _, p := range o.Props {
		out[p.Key] = Plain(p.Value)
	}
	return out
}

// MarshalJSON writes o as JSON.stringify does: properties in order,
// numbers as JavaScript prints them (NaN and infinities as null).
func (o *Object) MarshalJSON() ([]byte, error) {
	return appendJSON(nil, o, false), nil
}

// Plain returns a value with every *Object replaced by a map[string]any,
// Go's generic JSON form (what encoding/json decodes into). Other values
// are returned as they are; slices are copied only when they hold an
// object. A Match's Value is JSON: decode it with encoding/json.
func Plain(v any) any {
	switch v := v.(type) {
	case *Object:
		return v.Map()
	case []any:
		if !slices.ContainsFunc(v, isComposite) {
			return v
		}
		out := make([]any, len(v))
		for i, el := range v {
			out[i] = Plain(el)
		}
		return out
	}
	return v
}

func isComposite(v any) bool {
	switch v.(type) {
	case *Object, []any:
		return true
	}
	return false
}

// appendJSON appends the JSON text of a match value. With canonical set,
// object keys are sorted (Canonical); otherwise they keep their order.
// Numbers are written as JavaScript prints them, NaN and infinities as
// null, as JSON.stringify does.
func appendJSON(b []byte, v any, canonical bool) []byte {
	switch v := v.(type) {
	case json.RawMessage:
		if !canonical {
			return append(b, v...)
		}
		var x any
		if json.Unmarshal(v, &x) != nil {
			return append(b, "null"...)
		}
		return appendJSON(b, x, true)
	case nil:
		return append(b, "null"...)
	case bool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case float64:
		return appendNumber(b, v)
	case string:
		return appendJSONString(b, v)
	case []any:
		b = append(b, '[')
		for i, el := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, el, canonical)
		}
		return append(b, ']')
	case *Object:
		props := v.Props
		if canonical && !slices.IsSortedFunc(props, byKey) {
			props = slices.SortedFunc(slices.Values(props), byKey)
		}
		b = append(b, '{')
		for i, p := range props {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, p.Key)
			b = append(b, ':')
			b = appendJSON(b, p.Value, canonical)
		}
		return append(b, '}')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSON(b, v[k], canonical)
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

func byKey(a, b Prop) int {
	switch {
	case a.Key < b.Key:
		return -1
	case a.Key > b.Key:
		return 1
	}
	return 0
}
