// Command agrgen writes test inputs for an .agr grammar, one JSON string a
// line, of the kinds the reference cases in $DIALECT_DATA/agr/cases hold:
// random expansions of the grammar (generated), the same perturbed
// (negative: a word dropped, two swapped, a letter lost, quotes taken
// off), and short runs of the grammar's own words. It is how the 28 real
// grammars without reference cases were given inputs for TypeAgent's
// matcher to answer (grammarbridge/testdata/ref, docs/grammar-ref.md).
//
//	go run ./internal/eval/agrgen [-n 60] [-seed 1] FILE.agr > inputs.jsonl
//
// The same file, n and seed always give the same inputs.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/pattern-dialect/dialect/grammarbridge"
)

func main() {
	n := flag.Int("n", 60, "how many inputs")
	seed := flag.Uint64("seed", 1, "the random seed")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: agrgen [-n N] [-seed S] FILE.agr")
		os.Exit(2)
	}
	src, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "agrgen:", err)
		os.Exit(1)
	}
	f, err := grammarbridge.Parse(flag.Arg(0), string(src))
	if err != nil {
		fmt.Fprintln(os.Stderr, "agrgen:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for _, in := range inputs(f, *n, *seed) {
		enc.Encode(in)
	}
}

// inputs returns n distinct inputs for f (fewer when f gives fewer):
// about 60 % expansions, 25 % perturbed expansions, 15 % runs of its words.
func inputs(f *grammarbridge.File, n int, seed uint64) []string {
	g := newGen(f, seed)
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		if s != "" && !seen[s] && len(out) < n {
			seen[s] = true
			out = append(out, s)
		}
	}
	for try := 0; len(out) < n && try < 50*n; try++ {
		switch k := len(out) % 20; {
		case k < 12:
			add(g.expand("Start"))
		case k < 17:
			add(g.perturb(g.expand("Start")))
		default:
			add(g.wordRun())
		}
	}
	return out
}

// gen expands a grammar at random.
type gen struct {
	rules map[string][]*grammarbridge.Alt
	rng   *rand.Rand
	words []string // the grammar's literal words
	depth int
}

func newGen(f *grammarbridge.File, seed uint64) *gen {
	g := &gen{rules: map[string][]*grammarbridge.Alt{}, rng: rand.New(rand.NewPCG(seed, 0x61677267))}
	seen := map[string]bool{}
	for _, r := range f.Rules {
		g.rules[r.Name] = append(g.rules[r.Name], r.Alts...)
		for _, a := range r.Alts {
			g.collect(a, seen)
		}
	}
	return g
}

// collect adds the literal words of a to g.words.
func (g *gen) collect(a *grammarbridge.Alt, seen map[string]bool) {
	for _, p := range a.Parts {
		switch p := p.(type) {
		case *grammarbridge.Literal:
			for _, t := range p.Tokens {
				if !seen[t] {
					seen[t] = true
					g.words = append(g.words, t)
				}
			}
		case *grammarbridge.Group:
			for _, b := range p.Alts {
				g.collect(b, seen)
			}
		}
	}
}

// Words for wildcards, as the reference cases' generated inputs use
// them: names, places, things, colours.
var fill = strings.Fields(`Maria Berlin Paris Grace harbor Lucas crystal meadow Olivia Emma violin
	banana London Frank Felix silver ocean Madrid Oscar sunset sunrise yellow candle planet lantern
	falcon cedar purple velvet mountain river Tokyo Alice report budget notes kitchen garden blue`)

// Phrase sets, for references to a rule the grammar does not define.
var phrases = map[string][]string{
	"Polite":          {"please", "could you", "would you", "would you please", "can you", "kindly"},
	"Greeting":        {"hey", "hi", "ok", "okay", "alright", "hello", "yo"},
	"Acknowledgement": {"thanks", "thank you", "great", "perfect", "good", "nice", "cool"},
	"FillerWord":      {"um", "uh", "like", "well", "so", "just", "basically", "actually"},
}

var ordinals = []string{"first", "second", "third", "fifth", "tenth", "twenty-first", "1st", "2nd", "3rd", "4th", "last"}
var cardinals = []string{"one", "two", "three", "seven", "twelve", "twenty", "forty-two", "a couple", "a few", "a dozen", "3", "15"}

// maxDepth bounds nested references: deeper, the shortest alternative is
// taken.
const maxDepth = 12

// expand returns a random expansion of the rule name.
func (g *gen) expand(name string) string {
	alts, ok := g.rules[name]
	if !ok {
		switch name {
		case "Ordinal":
			return pick(g.rng, ordinals)
		case "Cardinal":
			return pick(g.rng, cardinals)
		}
		if ps, ok := phrases[name]; ok {
			return pick(g.rng, ps)
		}
		return pick(g.rng, fill)
	}
	if len(alts) == 0 {
		return ""
	}
	g.depth++
	defer func() { g.depth-- }()
	a := alts[g.rng.IntN(len(alts))]
	if g.depth > maxDepth {
		a = shortest(alts)
	}
	return g.alt(a)
}

// shortest returns the alternative with the fewest parts.
func shortest(alts []*grammarbridge.Alt) *grammarbridge.Alt {
	best := alts[0]
	for _, a := range alts[1:] {
		if len(a.Parts) < len(best.Parts) {
			best = a
		}
	}
	return best
}

func (g *gen) alt(a *grammarbridge.Alt) string {
	var b strings.Builder
	for _, p := range a.Parts {
		s := g.part(p)
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

func (g *gen) part(p grammarbridge.Expr) string {
	switch p := p.(type) {
	case *grammarbridge.Literal:
		return strings.Join(p.Tokens, " ")
	case *grammarbridge.RuleRef:
		return g.repeat(p.Quant, func() string { return g.expand(p.Name) })
	case *grammarbridge.Group:
		return g.repeat(p.Quant, func() string {
			if g.depth > maxDepth {
				return g.alt(shortest(p.Alts))
			}
			return g.alt(p.Alts[g.rng.IntN(len(p.Alts))])
		})
	case *grammarbridge.Capture:
		if p.Optional && g.rng.IntN(2) == 0 {
			return ""
		}
		switch p.Kind {
		case grammarbridge.CaptureRule:
			return g.expand(p.Type)
		case grammarbridge.CaptureNumber:
			return g.number()
		}
		switch p.Type {
		case "Ordinal", "Cardinal":
			return g.expand(p.Type)
		case "word":
			return pick(g.rng, fill)
		}
		k := 1 + g.rng.IntN(3)
		ws := make([]string, k)
		for i := range ws {
			ws[i] = pick(g.rng, fill)
		}
		return strings.Join(ws, " ")
	}
	return ""
}

// repeat returns one(), or as many as q allows at random: ? none or one,
// * none to two, + one to two.
func (g *gen) repeat(q grammarbridge.Quant, one func() string) string {
	k := 1
	switch q {
	case grammarbridge.QuantOpt:
		k = g.rng.IntN(2)
	case grammarbridge.QuantStar:
		k = g.rng.IntN(3)
	case grammarbridge.QuantPlus:
		k = 1 + g.rng.IntN(2)
	}
	if g.depth > maxDepth && q != grammarbridge.QuantOne {
		k = min(k, 1)
		if q != grammarbridge.QuantPlus {
			k = 0
		}
	}
	parts := make([]string, 0, k)
	for range k {
		parts = append(parts, one())
	}
	return strings.Join(parts, " ")
}

func (g *gen) number() string {
	switch g.rng.IntN(4) {
	case 0:
		return strconv.Itoa(g.rng.IntN(10))
	case 1:
		return strconv.FormatFloat(float64(g.rng.IntN(1000))/10, 'f', -1, 64)
	}
	return strconv.Itoa(g.rng.IntN(500))
}

// perturb changes one thing in s: a word dropped, two neighbours swapped,
// a letter lost, or quotes taken off.
func (g *gen) perturb(s string) string {
	ws := strings.Fields(s)
	if len(ws) == 0 {
		return s
	}
	i := g.rng.IntN(len(ws))
	switch g.rng.IntN(4) {
	case 0:
		ws = append(ws[:i], ws[i+1:]...)
	case 1:
		if i+1 < len(ws) {
			ws[i], ws[i+1] = ws[i+1], ws[i]
		}
	case 2:
		if w := ws[i]; len(w) > 2 {
			j := 1 + g.rng.IntN(len(w)-2)
			ws[i] = w[:j] + w[j+1:]
		}
	default:
		return strings.NewReplacer("'", "", "?", "").Replace(s)
	}
	return strings.Join(ws, " ")
}

// wordRun returns one to four of the grammar's words.
func (g *gen) wordRun() string {
	if len(g.words) == 0 {
		return ""
	}
	k := 1 + g.rng.IntN(4)
	ws := make([]string, k)
	for i := range ws {
		ws[i] = pick(g.rng, g.words)
	}
	return strings.Join(ws, " ")
}

func pick(rng *rand.Rand, s []string) string { return s[rng.IntN(len(s))] }
