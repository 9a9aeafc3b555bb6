package executor

import (
	"math"
	"strconv"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
)

// unit is one unit of measure: value·factor + offset is the value in the
// base unit of its dimension (offset is non-zero only for temperatures).
type unit struct {
	dim    string
	symbol string
	factor float64
	offset float64
}

// convert converts v in u into to.
func (u *unit) convert(v float64, to *unit) (float64, error) {
	if u.dim != to.dim {
		return 0, codes.Wrap(codes.UnitMismatch, nil, "cannot convert %s (%s) to %s (%s)", u.symbol, u.dim, to.symbol, to.dim)
	}
	return (v*u.factor + u.offset - to.offset) / to.factor, nil
}

// unitDef lists a unit's names: the first is its symbol.
type unitDef struct {
	dim    string
	factor float64
	offset float64
	names  []string
}

// lengthDefs are also squared and cubed into area and volume units.
var lengthDefs = []unitDef{
	{"length", 1e-9, 0, []string{"nm", "nanometer", "nanometers", "nanometre", "nanometres"}},
	{"length", 1e-6, 0, []string{"µm", "um", "micrometer", "micrometers", "micrometre", "micrometres", "micron", "microns"}},
	{"length", 1e-3, 0, []string{"mm", "millimeter", "millimeters", "millimetre", "millimetres"}},
	{"length", 1e-2, 0, []string{"cm", "centimeter", "centimeters", "centimetre", "centimetres"}},
	{"length", 1, 0, []string{"m", "meter", "meters", "metre", "metres"}},
	{"length", 1e3, 0, []string{"km", "kilometer", "kilometers", "kilometre", "kilometres", "kms"}},
	{"length", 0.0254, 0, []string{"in", "inch", "inches", "\""}},
	{"length", 0.3048, 0, []string{"ft", "foot", "feet", "'"}},
	{"length", 0.9144, 0, []string{"yd", "yard", "yards", "yds"}},
	{"length", 1609.344, 0, []string{"mi", "mile", "miles"}},
	{"length", 1852, 0, []string{"nmi", "nautical mile", "nautical miles"}},
}

var otherDefs = []unitDef{
	{"mass", 1e-6, 0, []string{"mg", "milligram", "milligrams"}},
	{"mass", 1e-3, 0, []string{"g", "gram", "grams", "gramme", "grammes"}},
	{"mass", 1, 0, []string{"kg", "kilogram", "kilograms", "kilo", "kilos", "kgs"}},
	{"mass", 1e3, 0, []string{"t", "tonne", "tonnes", "metric ton", "metric tons"}},
	{"mass", 0.028349523125, 0, []string{"oz", "ounce", "ounces"}},
	{"mass", 0.45359237, 0, []string{"lb", "lbs", "pound", "pounds"}},
	{"mass", 6.35029318, 0, []string{"st", "stone", "stones"}},
	{"mass", 907.18474, 0, []string{"ton", "tons", "short ton", "short tons"}},

	{"volume", 1e-3, 0, []string{"ml", "milliliter", "milliliters", "millilitre", "millilitres", "cc"}},
	{"volume", 1e-2, 0, []string{"cl", "centiliter", "centiliters", "centilitre", "centilitres"}},
	{"volume", 1e-1, 0, []string{"dl", "deciliter", "deciliters", "decilitre", "decilitres"}},
	{"volume", 1, 0, []string{"l", "liter", "liters", "litre", "litres", "ltr"}},
	{"volume", 0.00492892159375, 0, []string{"tsp", "teaspoon", "teaspoons"}},
	{"volume", 0.01478676478125, 0, []string{"tbsp", "tablespoon", "tablespoons"}},
	{"volume", 0.0295735295625, 0, []string{"fl oz", "floz", "fluid ounce", "fluid ounces"}},
	{"volume", 0.2365882365, 0, []string{"cup", "cups"}},
	{"volume", 0.473176473, 0, []string{"pt", "pint", "pints"}},
	{"volume", 0.946352946, 0, []string{"qt", "quart", "quarts"}},
	{"volume", 3.785411784, 0, []string{"gal", "gallon", "gallons", "us gal", "us gallon", "us gallons"}},
	{"volume", 4.54609, 0, []string{"imp gal", "imperial gallon", "imperial gallons", "uk gallon", "uk gallons"}},

	{"time", 1e-3, 0, []string{"ms", "millisecond", "milliseconds"}},
	{"time", 1, 0, []string{"s", "sec", "secs", "second", "seconds"}},
	{"time", 60, 0, []string{"min", "mins", "minute", "minutes"}},
	{"time", 3600, 0, []string{"h", "hr", "hrs", "hour", "hours"}},
	{"time", 86400, 0, []string{"day", "days", "d"}},
	{"time", 604800, 0, []string{"week", "weeks", "wk", "wks"}},
	{"time", 2629800, 0, []string{"month", "months"}},      // a twelfth of a Julian year
	{"time", 31557600, 0, []string{"year", "years", "yr"}}, // Julian year, 365.25 days

	{"speed", 1, 0, []string{"m/s", "mps", "meters per second", "metres per second"}},
	{"speed", 1 / 3.6, 0, []string{"km/h", "kph", "kmh", "kmph", "km/hr", "kilometers per hour", "kilometres per hour"}},
	{"speed", 0.44704, 0, []string{"mph", "mi/h", "miles per hour"}},
	{"speed", 1852.0 / 3600, 0, []string{"kn", "kt", "kts", "knot", "knots"}},
	{"speed", 0.3048, 0, []string{"ft/s", "fps", "feet per second"}},

	{"area", 1e4, 0, []string{"ha", "hectare", "hectares"}},
	{"area", 4046.8564224, 0, []string{"acre", "acres", "ac"}},

	{"data", 0.125, 0, []string{"bit", "bits"}},
	{"data", 1, 0, []string{"B", "byte", "bytes"}},
	{"data", 1e3, 0, []string{"kB", "kilobyte", "kilobytes"}},
	{"data", 1e6, 0, []string{"MB", "megabyte", "megabytes"}},
	{"data", 1e9, 0, []string{"GB", "gigabyte", "gigabytes"}},
	{"data", 1e12, 0, []string{"TB", "terabyte", "terabytes"}},
	{"data", 1e15, 0, []string{"PB", "petabyte", "petabytes"}},
	{"data", 1 << 10, 0, []string{"KiB", "kibibyte", "kibibytes"}},
	{"data", 1 << 20, 0, []string{"MiB", "mebibyte", "mebibytes"}},
	{"data", 1 << 30, 0, []string{"GiB", "gibibyte", "gibibytes"}},
	{"data", 1 << 40, 0, []string{"TiB", "tebibyte", "tebibytes"}},

	{"energy", 1, 0, []string{"J", "joule", "joules"}},
	{"energy", 1e3, 0, []string{"kJ", "kilojoule", "kilojoules"}},
	{"energy", 4.184, 0, []string{"cal", "calorie", "calories"}},
	{"energy", 4184, 0, []string{"kcal", "kilocalorie", "kilocalories"}},
	{"energy", 3600, 0, []string{"Wh", "watt hour", "watt hours"}},
	{"energy", 3.6e6, 0, []string{"kWh", "kilowatt hour", "kilowatt hours"}},
	{"energy", 1055.05585262, 0, []string{"BTU", "btus"}},

	{"power", 1, 0, []string{"W", "watt", "watts"}},
	{"power", 1e3, 0, []string{"kW", "kilowatt", "kilowatts"}},
	{"power", 745.69987158227022, 0, []string{"hp", "horsepower"}},

	{"pressure", 1, 0, []string{"Pa", "pascal", "pascals"}},
	{"pressure", 1e3, 0, []string{"kPa", "kilopascal", "kilopascals"}},
	{"pressure", 1e5, 0, []string{"bar", "bars"}},
	{"pressure", 6894.757293168, 0, []string{"psi"}},
	{"pressure", 101325, 0, []string{"atm", "atmosphere", "atmospheres"}},
	{"pressure", 133.322387415, 0, []string{"mmHg"}},

	{"angle", 1, 0, []string{"rad", "radian", "radians"}},
	{"angle", math.Pi / 180, 0, []string{"°", "deg", "degree", "degrees"}},

	{"temperature", 1, 273.15, []string{"°C", "c", "celsius", "centigrade", "degc"}},
	{"temperature", 5.0 / 9, 273.15 - 32*5.0/9, []string{"°F", "f", "fahrenheit", "degf"}},
	{"temperature", 1, 0, []string{"K", "k", "kelvin", "kelvins"}},
}

// unitTable finds units by name, case-insensitively.
type unitTable struct {
	byName map[string]*unit
	maxLen int // most words in a name
}

func newUnitTable() *unitTable {
	t := &unitTable{byName: map[string]*unit{}}
	add := func(d unitDef) {
		u := &unit{dim: d.dim, symbol: d.names[0], factor: d.factor, offset: d.offset}
		for _, n := range d.names {
			t.put(n, u)
		}
	}
	for _, d := range lengthDefs {
		add(d)
		sym, long := d.names[0], d.names[1:]
		if sym == "\"" || sym == "'" {
			continue
		}
		sq := unitDef{dim: "area", factor: d.factor * d.factor, names: []string{sym + "²", sym + "2", sym + "^2", "sq " + sym, "square " + sym}}
		cu := unitDef{dim: "volume", factor: d.factor * d.factor * d.factor * 1000, names: []string{sym + "³", sym + "3", sym + "^3", "cu " + sym, "cubic " + sym}}
		for _, n := range long {
			if len(n) > 2 && n != "\"" && n != "'" {
				sq.names = append(sq.names, "square "+n, "sq "+n)
				cu.names = append(cu.names, "cubic "+n, "cu "+n)
			}
		}
		add(sq)
		add(cu)
	}
	for _, d := range otherDefs {
		add(d)
	}
	return t
}

func (t *unitTable) put(name string, u *unit) {
	key := strings.ToLower(name)
	if _, dup := t.byName[key]; dup {
		return // the first definition of a name wins
	}
	t.byName[key] = u
	if n := len(strings.Fields(key)); n > t.maxLen {
		t.maxLen = n
	}
}

// lookup finds a unit by name: case-insensitive, with "degrees"/"deg"/"°"
// before a temperature scale allowed and a trailing '.' ignored.
func (t *unitTable) lookup(name string) *unit {
	key := strings.ToLower(strings.Join(strings.Fields(name), " "))
	key = strings.TrimSuffix(key, ".")
	if u := t.byName[key]; u != nil {
		return u
	}
	for _, p := range []string{"degrees ", "degree ", "deg ", "°"} {
		if rest, ok := strings.CutPrefix(key, p); ok {
			if u := t.byName[strings.TrimSpace(rest)]; u != nil && u.dim == "temperature" {
				return u
			}
		}
	}
	return nil
}

// conversion is a parsed "QTY FROM to TO".
type conversion struct {
	qty      string
	from, to *unit
}

var (
	convSplit = lazyRE(`(?i)\b(?:to|in|into|as)\b|->|→|=>`)
	howMany   = lazyRE(`(?i)^how\s+many\s+(.+?)\s+(?:are\s+|is\s+)?(?:in|per)\s+(.+)$`)
	oneWords  = map[string]bool{"a": true, "an": true, "one": true, "": true}
)

// parseConversion recognises "5 feet to meters", "100 km in miles",
// "70 F to C", "how many feet in a mile". Of the connectors in s, the last
// that leaves a unit on its right and a quantity with a unit of the same
// dimension on its left wins ("5 in in cm").
func (t *unitTable) parseConversion(s string) (conversion, bool) {
	if m := howMany().FindStringSubmatch(s); m != nil {
		if to := t.lookup(m[1]); to != nil {
			if qty, from, ok := t.quantity(m[2]); ok && from.dim == to.dim {
				return conversion{qty, from, to}, true
			}
		}
	}
	locs := convSplit().FindAllStringIndex(s, -1)
	var mismatch *conversion
	for i := len(locs) - 1; i >= 0; i-- {
		to := t.lookup(strings.TrimSpace(s[locs[i][1]:]))
		if to == nil {
			continue
		}
		qty, from, ok := t.quantity(s[:locs[i][0]])
		if !ok {
			continue
		}
		c := conversion{qty, from, to}
		if from.dim == to.dim {
			return c, true
		}
		if mismatch == nil {
			mismatch = &c
		}
	}
	if mismatch != nil {
		return *mismatch, true // convert reports the mismatch
	}
	return conversion{}, false
}

var (
	compoundRe = lazyRE(`^(?:\s*\d+(?:\.\d+)?\s*[^\d\s.][^\d]*){2,}$`)
	numberRe   = lazyRE(`\d+(?:\.\d+)?`)
)

// compound reads "5 ft 3 in", "5'10\"", "1 h 30 min", "2 lb 4 oz": numbers
// each followed by a unit of one dimension. It returns the total as a
// number in the first unit.
func (t *unitTable) compound(s string) (qty string, u *unit, ok bool) {
	if !compoundRe().MatchString(s) {
		return "", nil, false
	}
	locs := numberRe().FindAllStringIndex(s, -1)
	var base float64
	for i, loc := range locs {
		end := len(s)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		v, err := strconv.ParseFloat(s[loc[0]:loc[1]], 64)
		ui := t.lookup(strings.TrimSpace(s[loc[1]:end]))
		if err != nil || ui == nil || ui.offset != 0 || (u != nil && ui.dim != u.dim) {
			return "", nil, false
		}
		if u == nil {
			u = ui
		}
		base += v * ui.factor
	}
	return strconv.FormatFloat(base/u.factor, 'g', -1, 64), u, true
}

// quantity splits "5 feet", "(2+3) km", "5ft", "a mile", "5 ft 3 in" into
// an expression and a unit.
func (t *unitTable) quantity(s string) (qty string, u *unit, ok bool) {
	s = strings.TrimSpace(s)
	if q, u, ok := t.compound(s); ok {
		return q, u, true
	}
	words := strings.Fields(s)
	for n := min(t.maxLen+1, len(words)); n >= 1; n-- {
		name := strings.Join(words[len(words)-n:], " ")
		if u := t.lookup(name); u != nil {
			q := strings.Join(words[:len(words)-n], " ")
			if oneWords[strings.ToLower(q)] {
				q = "1"
			}
			return q, u, true
		}
	}
	// A unit glued to its number: "5ft", "70°F", "3.5kg", "(2+3)km".
	for i := 1; i < len(s); i++ {
		p := s[i-1]
		if (p >= '0' && p <= '9' || p == ')' || p == '.') && !(s[i] >= '0' && s[i] <= '9') && s[i] != '.' {
			if u := t.lookup(s[i:]); u != nil {
				return strings.TrimSpace(s[:i]), u, true
			}
		}
	}
	return "", nil, false
}

var unitWord = lazyRE(`^[^\s\d()+*/^-][^\d()+*^]*$`)

// unknownUnit guesses, for a statement that looks like a conversion but
// is not one, which side names a unit the table lacks ("5 furlongs to m"
// gives "furlongs"). It returns "" when s does not look like a conversion.
func (t *unitTable) unknownUnit(s string) string {
	locs := convSplit().FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return ""
	}
	loc := locs[len(locs)-1]
	left, right := strings.TrimSpace(s[:loc[0]]), strings.TrimSpace(s[loc[1]:])
	if left == "" || !unitWord().MatchString(right) {
		return ""
	}
	if t.lookup(right) == nil {
		return right
	}
	words := strings.Fields(left)
	last := words[len(words)-1]
	if len(words) > 1 && unitWord().MatchString(last) && t.lookup(last) == nil {
		return last
	}
	return ""
}
