package executor

import "math"

// calcFunc is one function the calculator offers. Every argument and result
// is a float64 (the guard turns integer literals into floats).
type calcFunc struct {
	name  string
	call  func(params ...any) (any, error)
	types []any
}

func f1(name string, fn func(float64) float64) calcFunc {
	return calcFunc{name, func(p ...any) (any, error) { return fn(p[0].(float64)), nil }, []any{new(func(float64) float64)}}
}

func f2(name string, fn func(a, b float64) float64) calcFunc {
	return calcFunc{name, func(p ...any) (any, error) { return fn(p[0].(float64), p[1].(float64)), nil }, []any{new(func(float64, float64) float64)}}
}

func fvar(name string, fn func(xs []float64) (float64, error)) calcFunc {
	return calcFunc{name, func(p ...any) (any, error) {
		xs := make([]float64, len(p))
		for i, v := range p {
			xs[i] = v.(float64)
		}
		return fn(xs)
	}, []any{new(func(...float64) float64)}}
}

func roundTo(x float64, digits float64) float64 {
	if digits == 0 {
		return math.Round(x)
	}
	p := math.Pow(10, math.Trunc(digits))
	return math.Round(x*p) / p
}

func factorial(n float64) float64 {
	if n < 0 || n != math.Trunc(n) || n > 170 {
		return math.NaN()
	}
	r := 1.0
	for i := 2.0; i <= n; i++ {
		r *= i
	}
	return r
}

// calcFuncs are the calculator's functions. Trigonometry is in radians
// (deg and rad convert).
var calcFuncs = []calcFunc{
	f1("sqrt", math.Sqrt), f1("cbrt", math.Cbrt), f1("abs", math.Abs),
	f1("floor", math.Floor), f1("ceil", math.Ceil), f1("trunc", math.Trunc),
	f1("exp", math.Exp), f1("ln", math.Log), f1("log2", math.Log2), f1("log10", math.Log10),
	f1("sin", math.Sin), f1("cos", math.Cos), f1("tan", math.Tan),
	f1("asin", math.Asin), f1("acos", math.Acos), f1("atan", math.Atan),
	f1("sinh", math.Sinh), f1("cosh", math.Cosh), f1("tanh", math.Tanh),
	f1("deg", func(x float64) float64 { return x * 180 / math.Pi }),
	f1("rad", func(x float64) float64 { return x * math.Pi / 180 }),
	f1("sign", func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}),
	f1("fact", factorial), f1("factorial", factorial),
	f2("pow", math.Pow), f2("atan2", math.Atan2), f2("hypot", math.Hypot),
	f2("fmod", math.Mod), f2("mod", math.Mod),
	// round(x) or round(x, digits); log(x) is base 10, log(x, b) base b.
	{"round", func(p ...any) (any, error) {
		if len(p) == 1 {
			return math.Round(p[0].(float64)), nil
		}
		return roundTo(p[0].(float64), p[1].(float64)), nil
	}, []any{new(func(float64) float64), new(func(float64, float64) float64)}},
	{"log", func(p ...any) (any, error) {
		if len(p) == 1 {
			return math.Log10(p[0].(float64)), nil
		}
		return math.Log(p[0].(float64)) / math.Log(p[1].(float64)), nil
	}, []any{new(func(float64) float64), new(func(float64, float64) float64)}},
	fvar("min", func(xs []float64) (float64, error) {
		if len(xs) == 0 {
			return 0, &mathError{"min needs at least one number"}
		}
		m := xs[0]
		for _, x := range xs[1:] {
			m = math.Min(m, x)
		}
		return m, nil
	}),
	fvar("max", func(xs []float64) (float64, error) {
		if len(xs) == 0 {
			return 0, &mathError{"max needs at least one number"}
		}
		m := xs[0]
		for _, x := range xs[1:] {
			m = math.Max(m, x)
		}
		return m, nil
	}),
	fvar("sum", func(xs []float64) (float64, error) {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s, nil
	}),
	fvar("avg", func(xs []float64) (float64, error) {
		if len(xs) == 0 {
			return 0, &mathError{"avg needs at least one number"}
		}
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs)), nil
	}),
}

func isCalcFunc(name string) bool {
	for _, f := range calcFuncs {
		if f.name == name {
			return true
		}
	}
	return false
}
