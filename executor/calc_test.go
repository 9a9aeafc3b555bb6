package executor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

func TestCalcValues(t *testing.T) {
	c := NewCalc(CalcOptions{})
	tests := []struct {
		name, expr, want string
	}{
		{"add", "2 + 3", "5"},
		{"precedence", "2 + 3 * 4", "14"},
		{"parens", "(2 + 3) * 4", "20"},
		{"division is real", "7 / 2", "3.5"},
		{"power caret", "2^10", "1024"},
		{"power right assoc", "2^3^2", "512"},
		{"power stars", "2**8", "256"},
		{"unary minus", "-3 + 5", "2"},
		{"float noise", "0.1 + 0.2", "0.3"},
		{"no overflow", "9223372036854775807 + 1", "9.22337203685e+18"},
		{"big", "2^100", "1.26765060023e+30"},
		{"small", "1/3000000", "3.33333333333e-07"},
		{"pi", "pi", "3.14159265359"},
		{"e", "e", "2.71828182846"},
		{"unicode pi", "2π", "6.28318530718"},
		{"times sign", "6 × 7", "42"},
		{"divide sign", "84 ÷ 2", "42"},
		{"squared sign", "3²", "9"},
		{"sqrt", "sqrt(16)", "4"},
		{"abs", "abs(-4.5)", "4.5"},
		{"round", "round(2.567)", "3"},
		{"round digits", "round(2.567, 2)", "2.57"},
		{"min", "min(3, 1, 2)", "1"},
		{"max", "max(3, 1, 2)", "3"},
		{"log is base 10", "log(1000)", "3"},
		{"log base", "log(8, 2)", "3"},
		{"ln", "ln(e^2)", "2"},
		{"trig", "sin(pi/2)", "1"},
		{"degrees", "cos(rad(60))", "0.5"},
		{"factorial", "fact(5)", "120"},
		{"modulo", "10 % 3", "1"},
		{"modulo no space", "10%3", "1"},
		{"statements", "radius = 5; pi * radius^2", "78.5398163397"},
		{"statements chained", "a = 2; b = a * 3; a + b", "8"},
		{"last assignment", "x = 4 * 5", "20"},
		{"percent of", "20% of 350", "70"},
		{"percent of decimal", "12.5% of 80", "10"},
		{"percent off", "15% off 80", "68"},
		{"plus percent", "80 + 10%", "88"},
		{"minus percent", "200 - 25%", "150"},
		{"var plus percent", "x = 50; x + 10%", "55"},
		{"bare percent", "7%", "0.07"},
		{"percent times", "7% * 200", "14"},
		{"percent of sum", "10% of (100 + 50)", "15"},
		{"what percent", "50 is what percent of 200", "25%"},
		{"what percent 2", "what percent of 200 is 50", "25%"},
		{"question phrasing", "what is 20% of 350?", "70"},
		{"currency", "$80 - 15%", "$68"},
		{"thousands", "1,200 * 3", "3600"},
		{"comparison", "3 > 2", "true"},
		{"ternary", "x = 4; x > 3 ? 1 : 2", "1"},
		{"trailing equals", "2 + 2 =", "4"},
		{"implicit multiplication", "2(3 + 4)", "14"},
		{"bare statements", "1; 2; 3", "3"},
		{"let written", "let y = 3; y * 2", "6"},
		{"function without parens", "sqrt 16", "4"},
		{"chained percentages", "100 - 20% - 10%", "72"},
		{"percentage of percentage", "50% of 50% of 100", "25"},
		{"spaced percent of", "20 % of 350", "70"},
		{"negative power", "-5^2", "-25"},
		{"words", "5 times 3 plus 2", "17"},
		{"divided by", "10 divided by 4", "2.5"},
		{"power words", "2 to the power of 8", "256"},
		{"square root of", "square root of 144", "12"},
		{"squared", "what is 12 squared?", "144"},
		{"mod word", "17 mod 5", "2"},
		{"increase by", "increase 80 by 15%", "92"},
		{"decrease by", "decrease 80 by 25%", "60"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := c.Eval(context.Background(), intent.Calc{Expr: tt.expr})
			if err != nil {
				t.Fatalf("Eval(%q): %v", tt.expr, err)
			}
			if r.Text != tt.want {
				t.Errorf("Eval(%q) = %q, want %q", tt.expr, r.Text, tt.want)
			}
		})
	}
}

func TestCalcUnits(t *testing.T) {
	c := NewCalc(CalcOptions{})
	tests := []struct {
		expr, want string
	}{
		{"5 feet to meters", "5 ft = 1.524 m"},
		{"100 km in miles", "100 km = 62.13712 mi"},
		{"1 mile to km", "1 mi = 1.609344 km"},
		{"70 F to C", "70 °F = 21.11111 °C"},
		{"100 °C to °F", "100 °C = 212 °F"},
		{"0 degrees celsius in fahrenheit", "0 °C = 32 °F"},
		{"-40 C to F", "-40 °C = -40 °F"},
		{"300 K to C", "300 K = 26.85 °C"},
		{"10 kg to lb", "10 kg = 22.04623 lb"},
		{"1 lb in grams", "1 lb = 453.5924 g"},
		{"2 l to gal", "2 l = 0.5283441 gal"},
		{"1 gallon in liters", "1 gal = 3.785412 l"},
		{"12 oz to g", "12 oz = 340.1943 g"},
		{"5ft in cm", "5 ft = 152.4 cm"},
		{"5 in in cm", "5 in = 12.7 cm"},
		{"6 inches to cm", "6 in = 15.24 cm"},
		{"(2+3) km to m", "5 km = 5000 m"},
		{"a mile in feet", "1 mi = 5280 ft"},
		{"how many feet in a mile", "1 mi = 5280 ft"},
		{"how many ounces are in 2 pounds", "2 lb = 32 oz"},
		{"60 mph to km/h", "60 mph = 96.56064 km/h"},
		{"100 km/h in mph", "100 km/h = 62.13712 mph"},
		{"1 acre to square meters", "1 acre = 4046.856 m²"},
		{"1000 sq ft in m2", "1000 ft² = 92.90304 m²"},
		{"1 cubic meter to liters", "1 m³ = 1000 l"},
		{"90 minutes to hours", "90 min = 1.5 h"},
		{"1 GiB to MB", "1 GiB = 1073.742 MB"},
		{"2 cups to ml", "2 cup = 473.1765 ml"},
		{"1 kWh in kJ", "1 kWh = 3600 kJ"},
		{"180 degrees to rad", "180 ° = 3.141593 rad"},
		{"r = 2; r km to m", "2 km = 2000 m"},
		{"5 KM TO MILES", "5 km = 3.106856 mi"},
		{"convert 2 kg to lbs", "2 kg = 4.409245 lb"},
		{"5 ft 3 in to cm", "5.25 ft = 160.02 cm"},
		{"5'10\" in cm", "5.83333333333 ft = 177.8 cm"},
		{"1 h 30 min in minutes", "1.5 h = 90 min"},
		{"2 lb 8 oz to kg", "2.5 lb = 1.133981 kg"},
		{"what is 100 F in C?", "100 °F = 37.77778 °C"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			r, err := c.Eval(context.Background(), intent.Calc{Expr: tt.expr})
			if err != nil {
				t.Fatalf("Eval(%q): %v", tt.expr, err)
			}
			if r.Text != tt.want {
				t.Errorf("Eval(%q) = %q, want %q", tt.expr, r.Text, tt.want)
			}
		})
	}
}

// Every unit converts to itself and round-trips through its dimension's
// base unit.
func TestCalcUnitTableRoundTrip(t *testing.T) {
	tab := newUnitTable()
	for name, u := range tab.byName {
		for _, v := range []float64{1, 37.5, -12} {
			for _, other := range tab.byName {
				if other.dim != u.dim {
					continue
				}
				there, err := u.convert(v, other)
				if err != nil {
					t.Fatal(err)
				}
				back, _ := other.convert(there, u)
				if d := back - v; d > 1e-9*max(1, abs(v)) || d < -1e-9*max(1, abs(v)) {
					t.Fatalf("%s: %v -> %s -> %v", name, v, other.symbol, back)
				}
			}
		}
	}
	if len(tab.byName) < 200 {
		t.Errorf("only %d unit names", len(tab.byName))
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestCalcErrors(t *testing.T) {
	c := NewCalc(CalcOptions{MaxExprBytes: 200, MaxNodes: 40})
	tests := []struct {
		name, expr string
		code       codes.Code
		msg        string
	}{
		{"empty", "  ", codes.MissingArg, "needs an expression"},
		{"too long", strings.Repeat("1+", 150) + "1", codes.InputTooLarge, "at most 200"},
		{"too many nodes", strings.Repeat("1+", 60) + "1", codes.InputTooLarge, "more than 40"},
		{"syntax", "2 +* 3", codes.MalformedSyntax, "column"},
		{"unclosed", "(2 + 3", codes.MalformedSyntax, ""},
		{"unknown name", "foo + 1", codes.MalformedSyntax, "foo"},
		{"string", `"a" + "b"`, codes.MalformedSyntax, "text in quotes"},
		{"array", "[1, 2, 3]", codes.MalformedSyntax, "does not allow"},
		{"range", "1..1000000", codes.MalformedSyntax, "does not allow"},
		{"builtin", "len([1])", codes.MalformedSyntax, ""},
		{"member", "pi.x", codes.MalformedSyntax, "does not allow"},
		{"closure", "map([1], # * 2)", codes.MalformedSyntax, ""},
		{"division by zero", "1/0", codes.MathError, "infinite"},
		{"nan", "sqrt(-1)", codes.MathError, "not a number"},
		{"empty min", "min()", codes.MathError, "min needs at least one number"},
		{"overflow", "10^400", codes.MathError, "infinite"},
		{"unit mismatch", "5 kg to meters", codes.UnitMismatch, "cannot convert kg (mass) to m (length)"},
		{"pipe", "1 | 2", codes.MalformedSyntax, ""},
		{"only a question mark", "?", codes.MissingArg, "needs an expression"},
		{"assign constant", "pi = 3; pi * 2", codes.MalformedSyntax, "pi is a built-in name"},
		{"assign twice", "x = 1; x = 2; x", codes.MalformedSyntax, "x is assigned twice"},
		{"unknown target unit", "5 km to furlongs", codes.UnknownModifier, `unit "furlongs"`},
		{"unknown source unit", "5 parsecs in km", codes.UnknownModifier, `unit "parsecs"`},
		{"membership", "1 in 3", codes.MalformedSyntax, "operator in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Eval(context.Background(), intent.Calc{Expr: tt.expr})
			if err == nil {
				t.Fatalf("Eval(%q) succeeded", tt.expr)
			}
			var e *codes.Error
			if !errors.As(err, &e) {
				t.Fatalf("Eval(%q): %T %v, want *codes.Error", tt.expr, err, err)
			}
			if e.Code != tt.code {
				t.Errorf("Eval(%q) code %s (%v), want %s", tt.expr, e.Code, err, tt.code)
			}
			if !errors.Is(err, &codes.Error{Code: tt.code}) {
				t.Errorf("errors.Is by code failed")
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Eval(%q) = %q, want it to mention %q", tt.expr, err, tt.msg)
			}
		})
	}
}

func TestCalcContext(t *testing.T) {
	c := NewCalc(CalcOptions{Timeout: Duration{time.Second}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Eval(ctx, intent.Calc{Expr: "1+1"})
	if codes.Of(err) != codes.Cancelled {
		t.Fatalf("cancelled context: %v", err)
	}
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = c.Eval(ctx, intent.Calc{Expr: "1+1"})
	if codes.Of(err) != codes.Timeout {
		t.Fatalf("expired context: %v", err)
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		v    float64
		sig  int
		want string
	}{
		{1.5239999999999998, 12, "1.524"},
		{0, 12, "0"},
		{-2.5, 12, "-2.5"},
		{1e21, 12, "1e+21"},
		{123456789012, 12, "123456789012"},
		{62.137119223733395, 7, "62.13712"},
		{1.0 / 3, 12, "0.333333333333"},
	}
	for _, tt := range tests {
		if got := formatNumber(tt.v, tt.sig); got != tt.want {
			t.Errorf("formatNumber(%v, %d) = %q, want %q", tt.v, tt.sig, got, tt.want)
		}
	}
}
