package grammarbridge

import (
	"hash/maphash"
	"math"
	"strconv"
	"strings"
)

// undefinedValue is the type of Undefined.
type undefinedValue struct{}

// Undefined is JavaScript's undefined: the value of an optional capture that
// was skipped, and of the undefined literal. It never appears in a Match's
// Value: object properties holding it are dropped and array elements become
// null, as JSON.stringify does, when the value is written.
var Undefined = undefinedValue{}

// stats are TypeAgent's ranking counts for a value: how many captured leaf
// values (wildcards and numbers) it contains (the low 32 bits), and how
// many characters of wildcard text (the high 32 bits). One integer, so
// that adding them is one addition in one register.
type stats uint64

// mkStats returns the stats of the given counts (not negative).
func mkStats(values, wildChars int32) stats {
	return stats(uint32(values)) | stats(uint32(wildChars))<<32
}

func (s stats) values() int32    { return int32(uint32(s)) }
func (s stats) wildChars() int32 { return int32(uint32(s >> 32)) }

// add returns s and t added (counts too big for int32 are not expected:
// the work limit bounds them far below).
func (s stats) add(t stats) stats { return s + t }

// slotVal is a bound variable: its value, the stats of what built it, and
// the value's hash (hashValue), computed as the value is built.
type slotVal struct {
	v  any
	st stats
	h  uint64
}

// evaluator evaluates value expressions of one alternative.
type evaluator struct {
	slots []slotVal
	vars  varSet // the slots' variables
	st    stats  // accumulated stats of the variables read
}

// slotOf returns the slot of variable name, which the compiler checked
// is captured.
func (e *evaluator) slotOf(name string) int {
	s, _ := e.vars.slot(name)
	return s
}

// evalHashed evaluates x and returns its value with its hash, computing
// the hash of objects and arrays as they are built instead of walking them
// afterwards.
func (e *evaluator) evalHashed(x ValueExpr) (any, uint64) {
	switch x := x.(type) {
	case *VarValue:
		s := e.slots[e.slotOf(x.Name)]
		e.st = e.st.add(s.st)
		return s.v, s.h
	case *ObjectValue:
		obj := &Object{Props: make([]Prop, 0, len(x.Props))}
		sum, n := uint64(0), 0
		spread := false
		for _, p := range x.Props {
			if p.Spread {
				spread = true
				spreadInto(obj, e.eval(p.Value))
				continue
			}
			v, h := e.evalHashed(p.Value)
			if v != Undefined { // JSON.stringify drops undefined properties
				obj.set(p.Key, v)
				sum += propHash(hashString(p.Key)*31, h)
				n++
			}
		}
		if spread || n != len(obj.Props) { // a spread, or a key written twice
			return obj, hashValue(obj)
		}
		return obj, mix64(objectSeed + sum)
	case *ArrayValue:
		arr := make([]any, 0, len(x.Elems))
		h := uint64(arraySeed)
		for i, el := range x.Elems {
			if x.Spread[i] {
				v := e.eval(el)
				if a, ok := v.([]any); ok {
					arr = append(arr, a...)
				}
				continue
			}
			v, vh := e.evalHashed(el)
			if v == Undefined { // and writes undefined elements as null
				v, vh = nil, hashValue(nil)
			}
			arr = append(arr, v)
			h = (h ^ vh) * hashPrime
		}
		return arr, mix64(h)
	}
	v := e.eval(x)
	return v, hashValue(v)
}

func (e *evaluator) eval(x ValueExpr) any {
	switch x := x.(type) {
	case *LitValue:
		return x.Value
	case *VarValue:
		// An explicit value counts the matched values inside the variables
		// it reads; the literals it adds count nothing.
		s := e.slots[e.slotOf(x.Name)]
		e.st = e.st.add(s.st)
		return s.v
	case *ObjectValue:
		obj := &Object{Props: make([]Prop, 0, len(x.Props))}
		for _, p := range x.Props {
			v := e.eval(p.Value)
			if p.Spread {
				spreadInto(obj, v)
				continue
			}
			if v != Undefined { // JSON.stringify drops undefined properties
				obj.set(p.Key, v)
			}
		}
		return obj
	case *ArrayValue:
		arr := make([]any, 0, len(x.Elems))
		for i, el := range x.Elems {
			v := e.eval(el)
			if x.Spread[i] {
				if a, ok := v.([]any); ok {
					arr = append(arr, a...)
				}
				continue
			}
			if v == Undefined { // and writes undefined elements as null
				v = nil
			}
			arr = append(arr, v)
		}
		return arr
	case *UnaryValue:
		v := e.eval(x.X)
		switch x.Op {
		case "!":
			return !truthy(v)
		case "-":
			return -toNumber(v)
		case "+":
			return toNumber(v)
		case "typeof":
			return typeOf(v)
		}
	case *BinaryValue:
		switch x.Op {
		case "&&":
			l := e.eval(x.X)
			if !truthy(l) {
				return l
			}
			return e.eval(x.Y)
		case "||":
			l := e.eval(x.X)
			if truthy(l) {
				return l
			}
			return e.eval(x.Y)
		case "??":
			l := e.eval(x.X)
			if l != nil && l != Undefined {
				return l
			}
			return e.eval(x.Y)
		}
		return binary(x.Op, e.eval(x.X), e.eval(x.Y))
	case *CondValue:
		if truthy(e.eval(x.Test)) {
			return e.eval(x.Then)
		}
		return e.eval(x.Else)
	case *MemberValue:
		v := e.eval(x.X)
		if v == nil || v == Undefined {
			return Undefined
		}
		if x.Index != nil {
			return member(v, e.eval(x.Index))
		}
		return member(v, x.Name)
	case *CallValue:
		v := e.eval(x.X)
		if v == nil || v == Undefined {
			return Undefined
		}
		args := make([]any, len(x.Args))
		for i, a := range x.Args {
			args[i] = e.eval(a)
		}
		return call(v, x.Method, args)
	case *TemplateValue:
		var b strings.Builder
		for i, s := range x.Strs {
			b.WriteString(s)
			if i < len(x.Exprs) {
				b.WriteString(toString(e.eval(x.Exprs[i])))
			}
		}
		return b.String()
	}
	return Undefined
}

// spreadInto copies the properties of v, when it is an object, into obj
// ({...v}); anything else spreads nothing.
func spreadInto(obj *Object, v any) {
	if src, ok := v.(*Object); ok {
		for _, p := range src.Props {
			obj.set(p.Key, p.Value)
		}
	}
}

// knownMethods is the closed set of methods a value expression may call.
var knownMethods = map[string]bool{
	"toLowerCase": true, "toUpperCase": true, "trim": true, "trimStart": true, "trimEnd": true,
	"includes": true, "startsWith": true, "endsWith": true, "toString": true, "join": true,
}

func call(v any, method string, args []any) any {
	arg := func(i int) string {
		if i < len(args) {
			return toString(args[i])
		}
		return "undefined"
	}
	if s, ok := v.(string); ok {
		switch method {
		case "toLowerCase":
			return strings.ToLower(s)
		case "toUpperCase":
			return strings.ToUpper(s)
		case "trim":
			return strings.TrimSpace(s)
		case "trimStart":
			return strings.TrimLeft(s, " \t\n\r\v\f")
		case "trimEnd":
			return strings.TrimRight(s, " \t\n\r\v\f")
		case "includes":
			return strings.Contains(s, arg(0))
		case "startsWith":
			return strings.HasPrefix(s, arg(0))
		case "endsWith":
			return strings.HasSuffix(s, arg(0))
		case "toString":
			return s
		}
	}
	if a, ok := v.([]any); ok && method == "join" {
		sep := ","
		if len(args) > 0 && args[0] != Undefined {
			sep = toString(args[0])
		}
		parts := make([]string, len(a))
		for i, el := range a {
			if el != nil && el != Undefined {
				parts[i] = toString(el)
			}
		}
		return strings.Join(parts, sep)
	}
	if method == "toString" {
		return toString(v)
	}
	return Undefined
}

func member(v, key any) any {
	switch v := v.(type) {
	case *Object:
		if r, ok := v.Get(toString(key)); ok {
			return r
		}
	case []any:
		if key == "length" {
			return float64(len(v))
		}
		if f, ok := key.(float64); ok && f >= 0 && f < float64(len(v)) && f == math.Trunc(f) {
			return v[int(f)]
		}
	case string:
		if key == "length" {
			return float64(utf16Len(v))
		}
	}
	return Undefined
}

func binary(op string, l, r any) any {
	switch op {
	case "+":
		ls, lok := l.(string)
		rs, rok := r.(string)
		if lok || rok {
			if !lok {
				ls = toString(l)
			}
			if !rok {
				rs = toString(r)
			}
			return ls + rs
		}
		return toNumber(l) + toNumber(r)
	case "-":
		return toNumber(l) - toNumber(r)
	case "*":
		return toNumber(l) * toNumber(r)
	case "/":
		return toNumber(l) / toNumber(r)
	case "%":
		return math.Mod(toNumber(l), toNumber(r))
	case "===", "==":
		return strictEq(l, r) || op == "==" && isNullish(l) && isNullish(r)
	case "!==", "!=":
		return !(strictEq(l, r) || op == "!=" && isNullish(l) && isNullish(r))
	case "<", ">", "<=", ">=":
		ls, lok := l.(string)
		rs, rok := r.(string)
		var c int
		if lok && rok {
			c = strings.Compare(ls, rs)
		} else {
			a, b := toNumber(l), toNumber(r)
			if math.IsNaN(a) || math.IsNaN(b) {
				return false
			}
			switch {
			case a < b:
				c = -1
			case a > b:
				c = 1
			}
		}
		switch op {
		case "<":
			return c < 0
		case ">":
			return c > 0
		case "<=":
			return c <= 0
		}
		return c >= 0
	}
	return Undefined
}

func isNullish(v any) bool { return v == nil || v == Undefined }

func strictEq(l, r any) bool {
	switch l := l.(type) {
	case string, float64, bool, nil, undefinedValue:
		return l == r
	}
	return false // objects and arrays compare by identity; two built values never are the same
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil, undefinedValue:
		return false
	case bool:
		return v
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		return v != ""
	}
	return true
}

func typeOf(v any) string {
	switch v.(type) {
	case undefinedValue:
		return "undefined"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	}
	return "object"
}

func toNumber(v any) float64 {
	switch v := v.(type) {
	case float64:
		return v
	case bool:
		if v {
			return 1
		}
		return 0
	case nil:
		return 0
	case string:
		s := strings.TrimSpace(v)
		if s == "" {
			return 0
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return math.NaN()
}

// toString is JavaScript's String(v) for the values a grammar builds.
func toString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return formatNumber(v)
	case bool:
		if v {
			return "true"
		}
		return "false"
	case nil:
		return "null"
	case undefinedValue:
		return "undefined"
	case []any:
		parts := make([]string, len(v))
		for i, el := range v {
			if !isNullish(el) {
				parts[i] = toString(el)
			}
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

// formatNumber formats f as JavaScript's Number.prototype.toString does.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	a := math.Abs(f)
	if a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	// Go writes e-07 and e+21; JavaScript writes e-7 and e+21.
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp := s[:i], s[i+1:]
		sign := exp[0]
		digits := strings.TrimLeft(exp[1:], "0")
		s = mant + "e" + string(sign) + digits
	}
	return s
}

func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// Canonical returns the canonical JSON text of a value: a Match's Value
// (json.RawMessage), or a Go value as encoding/json decodes JSON into:
// object keys sorted, no spaces, numbers as JavaScript prints them. Two
// values are the same match exactly when their canonical texts are
// equal.
func Canonical(v any) string { return string(appendJSON(nil, v, true)) }

// Constants of hashValue.
const (
	hashPrime  = 1099511628211
	arraySeed  = 0x9e3779b97f4a7c15
	objectSeed = 0xc2b2ae3d27d4eb4f
)

// hashValue hashes a plain value so that equal values (equalValue) hash
// alike: object keys are combined without regard to order, and -0 hashes
// as 0. It lets the matcher find duplicate matches without writing JSON.
func hashValue(v any) uint64 {
	switch v := v.(type) {
	case nil:
		return 1
	case bool:
		if v {
			return 2
		}
		return 3
	case float64:
		return hashNum(v)
	case string:
		return hashString(v)
	case []any:
		h := uint64(arraySeed)
		for _, el := range v {
			h = (h ^ hashValue(el)) * hashPrime
		}
		return mix64(h)
	case *Object:
		h := uint64(objectSeed)
		for _, p := range v.Props {
			h += propHash(hashString(p.Key)*31, hashValue(p.Value))
		}
		return mix64(h)
	case map[string]any:
		h := uint64(objectSeed)
		for k, el := range v {
			h += propHash(hashString(k)*31, hashValue(el))
		}
		return mix64(h)
	case undefinedValue:
		return 0 // so that an unbound variable's nval is the zero nval
	}
	return 5
}

// hashNum is hashValue of a number.
func hashNum(f float64) uint64 {
	if f == 0 {
		f = 0 // -0
	}
	return mix64(math.Float64bits(f) ^ 0x5bd1e995)
}

func hashString(s string) uint64 {
	// Short texts (wildcard texts, keys) are read a word at a time: the
	// first and the last 8 (or 4) bytes, which overlap when the text is
	// shorter than 16 (or 8), and the length.
	n := len(s)
	var x, y uint64
	switch {
	case n > 16:
		return maphash.String(stringSeed, s)
	case n >= 8:
		x, y = load64(s), load64(s[n-8:])
	case n >= 4:
		x, y = uint64(load32(s)), uint64(load32(s[n-4:]))
	case n > 0:
		x = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	return mix64((x^0x27d4eb2f165667c5)*0x9e3779b97f4a7c15 ^ y ^ uint64(n)<<58)
}

// load64 reads the first 8 bytes of s (little-endian).
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// load32 reads the first 4 bytes of s (little-endian).
func load32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// stringSeed seeds hashString for long strings (short ones are read a
// word at a time, which is cheaper for them). It is set once, when the
// package is initialised, and never changes: hashes are compared only
// within one process.
var stringSeed = maphash.MakeSeed()

// propHash is an object property's term of its object's hash, from its
// key's hash times 31 and its value's hash: both are mixed already, so
// one multiplication spreads their combination (the sum of the terms is
// mixed once more).
func propHash(kmul, h uint64) uint64 { return (kmul ^ h) * 0x9e3779b97f4a7c15 }

func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// equalValue reports whether two plain values are the same JSON value.
func equalValue(a, b any) bool {
	switch a := a.(type) {
	case *Object:
		bo, ok := b.(*Object)
		if !ok || len(a.Props) != len(bo.Props) {
			return false
		}
		for _, p := range a.Props {
			bv, ok := bo.Get(p.Key)
			if !ok || !equalValue(p.Value, bv) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !equalValue(av, bv) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !equalValue(a[i], bs[i]) {
				return false
			}
		}
		return true
	case float64:
		bf, ok := b.(float64)
		return ok && (a == bf || math.IsNaN(a) && math.IsNaN(bf))
	}
	return a == b
}
