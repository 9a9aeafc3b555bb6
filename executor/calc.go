package executor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// CalcOptions bound the calculator ([exec.calc] in dialect.toml).
type CalcOptions struct {
	// MaxExprBytes is the longest expression accepted. Default 1024.
	MaxExprBytes int `toml:"max_expr_bytes"`
	// MaxNodes is the largest syntax tree accepted (numbers, names,
	// operators and calls each count one). Default 256.
	MaxNodes int `toml:"max_nodes"`
	// Timeout bounds one evaluation. Default 1s.
	Timeout Duration `toml:"timeout"`
}

// Calc evaluates arithmetic, percentages and unit conversions. Its language
// is expr-lang/expr restricted to numbers: no strings, arrays, maps,
// members, builtins or closures, so no expression can loop, allocate much
// or touch anything outside; every number is a float64. It is safe for
// concurrent use.
type Calc struct {
	maxBytes int
	maxNodes int
	timeout  time.Duration
	env      map[string]any
	opts     []expr.Option
	configs  sync.Pool // of *conf.Config: building one costs more than an evaluation, and a checker writes to it
	// units is the unit table, built on the first conversion: a process
	// that only starts up never pays for it.
	units func() *unitTable
}

// CalcData is the Data of a calc Result.
type CalcData struct {
	Expr  string  `json:"expr"`           // the expression as received
	Value any     `json:"value"`          // float64, or bool for a comparison
	Unit  string  `json:"unit,omitempty"` // the unit of Value, for a conversion
	From  string  `json:"from,omitempty"` // the quantity converted, e.g. "5 ft"
	Shown string  `json:"shown"`          // Value formatted as in Text
	Exact float64 `json:"-"`
}

// NewCalc returns a calculator with o's bounds (zero fields take defaults).
func NewCalc(o CalcOptions) *Calc {
	c := &Calc{
		maxBytes: orInt(o.MaxExprBytes, 1024),
		maxNodes: orInt(o.MaxNodes, 256),
		timeout:  o.Timeout.or(time.Second),
		units:    sync.OnceValue(newUnitTable),
	}
	c.env = map[string]any{
		"pi": math.Pi, "e": math.E, "tau": 2 * math.Pi, "phi": math.Phi,
	}
	c.opts = []expr.Option{
		expr.Env(c.env),
		expr.DisableAllBuiltins(),
		expr.MaxNodes(uint(c.maxNodes)),
	}
	for _, f := range calcFuncs {
		c.opts = append(c.opts, expr.Function(f.name, f.call, f.types...))
	}
	c.configs.New = func() any {
		cfg := conf.CreateNew()
		for _, op := range c.opts {
			op(cfg)
		}
		for name := range cfg.Disabled {
			delete(cfg.Builtins, name)
		}
		cfg.Check()
		return cfg
	}
	return c
}

// compile is expr.Compile with the guard run between parsing and checking,
// on a pooled configuration.
func (c *Calc) compile(code string, g *calcGuard) (*vm.Program, error) {
	cfg := c.configs.Get().(*conf.Config)
	defer c.configs.Put(cfg)
	tree, err := parser.ParseWithConfig(code, cfg)
	if err != nil {
		return nil, err
	}
	ast.Walk(&tree.Node, g)
	if g.err != nil {
		return nil, g.err
	}
	if _, err := checker.Check(tree, cfg); err != nil {
		return nil, err
	}
	if err := optimizer.Optimize(&tree.Node, cfg); err != nil {
		return nil, err
	}
	return compiler.Compile(tree, cfg)
}

// Eval evaluates in.Expr.
func (c *Calc) Eval(ctx context.Context, in intent.Calc) (Result, error) {
	src := strings.TrimSpace(in.Expr)
	if src == "" {
		return Result{}, codes.Wrap(codes.MissingArg, nil, "/calc needs an expression, e.g. /calc 20%% of 350")
	}
	if len(src) > c.maxBytes {
		return Result{}, codes.Wrap(codes.InputTooLarge, nil, "the expression is %d bytes; /calc takes at most %d", len(src), c.maxBytes)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, ctxError(err, "calc")
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	text := normalizeCalc(src)
	if text == "" {
		return Result{}, codes.Wrap(codes.MissingArg, nil, "/calc needs an expression, e.g. /calc 20%% of 350")
	}
	stmts := splitStatements(text)
	last := stmts[len(stmts)-1]
	prefix := stmts[:len(stmts)-1]
	currency := currencyOf(src)

	if conv, ok := c.units().parseConversion(last); ok {
		q, err := c.number(ctx, prefix, conv.qty)
		if err != nil {
			return Result{}, err
		}
		v, err := conv.from.convert(q, conv.to)
		if err != nil {
			return Result{}, err
		}
		shown := formatNumber(v, 7)
		d := CalcData{Expr: src, Value: v, Unit: conv.to.symbol, From: formatNumber(q, 12) + " " + conv.from.symbol, Shown: shown + " " + conv.to.symbol}
		return Result{Text: Clean(d.From + " = " + d.Shown), Data: d}, nil
	}
	if a, b, ok := whatPercent(last); ok {
		p, err := c.number(ctx, prefix, "("+a+")/("+b+")*100")
		if err != nil {
			return Result{}, err
		}
		shown := formatNumber(p, 12) + "%"
		return Result{Text: shown, Data: CalcData{Expr: src, Value: p, Unit: "%", Shown: shown}}, nil
	}
	v, err := c.run(ctx, prefix, last)
	if err != nil {
		if codes.Of(err) == codes.MalformedSyntax {
			if u := c.units().unknownUnit(last); u != "" {
				e := codes.Wrap(codes.UnknownModifier, nil, "/calc does not know the unit %q; it knows SI and US units such as m, km, ft, mi, kg, lb, l, gal, °C, °F, km/h, mph, GB", u)
				e.Subject = u
				return Result{}, e
			}
		}
		return Result{}, err
	}
	var shown string
	switch v := v.(type) {
	case float64:
		shown = currency + formatNumber(v, 12)
	case bool:
		shown = strconv.FormatBool(v)
	}
	return Result{Text: Clean(shown), Data: CalcData{Expr: src, Value: v, Shown: shown}}, nil
}

// number evaluates an expression that must give a number.
func (c *Calc) number(ctx context.Context, prefix []string, last string) (float64, error) {
	v, err := c.run(ctx, prefix, last)
	if err != nil {
		return 0, err
	}
	f, ok := v.(float64)
	if !ok {
		return 0, codes.Wrap(codes.MalformedSyntax, nil, "%q is a comparison, not a quantity", last)
	}
	return f, nil
}

// run compiles the statements into one expr program (assignments become
// let bindings) and runs it.
func (c *Calc) run(ctx context.Context, prefix []string, last string) (any, error) {
	var prog strings.Builder
	defined := map[string]bool{}
	bind := func(i int, stmt string) (string, error) {
		name, rhs, ok := assignment(stmt)
		if !ok {
			// A bare expression before the last is evaluated for nothing;
			// keep it so that errors in it still show.
			return fmt.Sprintf("let _s%d = %s; ", i, rewritePercent(stmt)), nil
		}
		switch {
		case c.env[name] != nil || isCalcFunc(name):
			return "", codes.Wrap(codes.MalformedSyntax, nil, "%s is a built-in name of /calc; assign to another name", name)
		case defined[name]:
			return "", codes.Wrap(codes.MalformedSyntax, nil, "%s is assigned twice; use a new name for the new value", name)
		}
		defined[name] = true
		return fmt.Sprintf("let %s = %s; ", name, rewritePercent(rhs)), nil
	}
	for i, stmt := range prefix {
		b, err := bind(i, stmt)
		if err != nil {
			return nil, err
		}
		prog.WriteString(b)
	}
	if name, _, ok := assignment(last); ok {
		b, err := bind(len(prefix), last)
		if err != nil {
			return nil, err
		}
		prog.WriteString(b + name)
	} else {
		prog.WriteString(rewritePercent(last))
	}
	code := prog.String()

	g := &calcGuard{max: c.maxNodes}
	program, err := c.compile(code, g)
	if g.err != nil {
		return nil, g.err
	}
	if err != nil {
		if strings.Contains(err.Error(), "maximum allowed nodes") {
			return nil, codes.Wrap(codes.InputTooLarge, nil, "the expression has more than %d terms; split it up", c.maxNodes)
		}
		return nil, syntaxError(code, err)
	}
	type outcome struct {
		v   any
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		m := vm.VM{MemoryBudget: 1 << 16}
		v, err := m.Run(program, c.env)
		done <- outcome{v, err}
	}()
	var out outcome
	select {
	case out = <-done:
	case <-ctx.Done():
		return nil, ctxError(ctx.Err(), "calc")
	}
	if out.err != nil {
		var me *mathError
		if errors.As(out.err, &me) {
			return nil, codes.Wrap(codes.MathError, nil, "%s", me.msg)
		}
		return nil, syntaxError(code, out.err)
	}
	switch v := out.v.(type) {
	case float64:
		if math.IsInf(v, 0) {
			return nil, codes.Wrap(codes.MathError, nil, "the result is infinite (division by zero or overflow) in %q", last)
		}
		if math.IsNaN(v) {
			return nil, codes.Wrap(codes.MathError, nil, "the result is not a number (e.g. sqrt of a negative) in %q", last)
		}
		return v, nil
	case bool:
		return v, nil
	case int:
		return float64(v), nil
	}
	return nil, codes.Wrap(codes.MalformedSyntax, nil, "%q does not give a number", last)
}

func syntaxError(code string, err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		msg := fe.Message
		if i := strings.Index(msg, " (1:"); i > 0 {
			msg = msg[:i]
		}
		return codes.Wrap(codes.MalformedSyntax, nil, "cannot evaluate %q: %s at column %d", code, msg, fe.Column+1)
	}
	return codes.Wrap(codes.MalformedSyntax, err, "cannot evaluate %q", code)
}

func ctxError(err error, what string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return codes.Wrap(codes.Timeout, err, "%s took too long", what)
	}
	return codes.Wrap(codes.Cancelled, err, "%s was cancelled", what)
}

// calcGuard is an expr patch visitor that admits only the numeric subset
// and turns every integer into a float (so nothing overflows or divides as
// integers) and every % into fmod.
type calcGuard struct {
	max   int
	nodes int
	err   error
}

var allowedBinary = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "^": true, "**": true, "%": true,
	"==": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true,
	"and": true, "or": true, "&&": true, "||": true,
}

// Visit checks one node (children come first) and rewrites integers and %.
func (g *calcGuard) Visit(node *ast.Node) {
	if g.err != nil {
		return
	}
	g.nodes++
	if g.nodes > g.max {
		g.err = codes.Wrap(codes.InputTooLarge, nil, "the expression has more than %d terms; split it up", g.max)
		return
	}
	switch n := (*node).(type) {
	case *ast.FloatNode, *ast.BoolNode, *ast.ConditionalNode, *ast.VariableDeclaratorNode, *ast.SequenceNode:
	case *ast.IntegerNode:
		ast.Patch(node, &ast.FloatNode{Value: float64(n.Value)})
	case *ast.IdentifierNode:
	case *ast.UnaryNode:
		switch n.Operator {
		case "-", "+", "!", "not":
		default:
			g.refuse(n, "the operator "+n.Operator)
		}
	case *ast.BinaryNode:
		if !allowedBinary[n.Operator] {
			g.refuse(n, "the operator "+n.Operator)
			return
		}
		if n.Operator == "%" {
			ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: "fmod"}, Arguments: []ast.Node{n.Left, n.Right}})
		}
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		if !ok || !isCalcFunc(id.Value) {
			g.refuse(n, "this call")
		}
	case *ast.StringNode:
		g.refuse(n, "text in quotes")
	default:
		g.refuse(n, fmt.Sprintf("%T", n))
	}
}

func (g *calcGuard) refuse(n ast.Node, what string) {
	name := strings.TrimPrefix(what, "*ast.")
	name = strings.TrimSuffix(name, "Node")
	g.err = codes.Wrap(codes.MalformedSyntax, nil, "/calc does not allow %s (column %d); use numbers, + - * / ^ %%, and functions like sqrt, round, min, max, log", strings.ToLower(name), n.Location().From+1)
}

// Text preprocessing: the dialect's calc is written by models in prose
// ("what is 20% of 350?"), so a few phrasings are rewritten into expr
// syntax before parsing.

var calcReplacer = strings.NewReplacer(
	"×", "*", "·", "*", "÷", "/", "−", "-", "–", "-", "π", "pi", "²", "^2", "³", "^3",
	"√", "sqrt", "**", "^",
)

var (
	leadingWords  = lazyRE(`(?i)^(?:what(?:'s| is)|calculate|compute|how much is|evaluate|convert)\s+`)
	thousands     = lazyRE(`(\d),(\d{3})\b`)
	implicitMul   = lazyRE(`(\d|\))\s*(pi\b|tau\b|phi\b|\()`)
	currencyChars = "$€£¥"
)

// wordOps are operators written as words ("5 times 3", "2 to the power
// of 8", "square root of 16").
var wordOps = []struct {
	re   func() *regexp.Regexp
	repl string
}{
	{lazyRE(`(?i)\bsquare\s+root\s+of\s+(\d+(?:\.\d+)?|\([^()]*\))`), "sqrt($1)"},
	{lazyRE(`(?i)\bcube\s+root\s+of\s+(\d+(?:\.\d+)?|\([^()]*\))`), "cbrt($1)"},
	{lazyRE(`\b(sqrt|cbrt|ln|log|log2|log10|abs|exp|sin|cos|tan|fact)\s+(\d+(?:\.\d+)?)\b`), "$1($2)"},
	{lazyRE(`(?i)\s+to\s+the\s+power\s+of\s+`), " ^ "},
	{lazyRE(`(?i)\s+(?:multiplied\s+by|times)\s+`), " * "},
	{lazyRE(`(?i)\s+(?:divided\s+by|over)\s+`), " / "},
	{lazyRE(`(?i)\s+plus\s+`), " + "},
	{lazyRE(`(?i)\s+minus\s+`), " - "},
	{lazyRE(`(?i)\s+mod(?:ulo)?\s+`), " % "},
	{lazyRE(`(?i)\s+squared\b`), "^2"},
	{lazyRE(`(?i)\s+cubed\b`), "^3"},
}

// changeBy is "increase 80 by 15%" and "decrease 80 by 15%".
var changeBy = lazyRE(`(?i)^(increase|decrease|reduce|raise)\s+(.+?)\s+by\s+(\S+?)\s*%$`)

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// normalizeCalc rewrites typography and strips question phrasing.
func normalizeCalc(s string) string {
	s = calcReplacer.Replace(s)
	s = leadingWords().ReplaceAllString(s, "")
	if strings.ContainsFunc(s, isLetter) {
		for _, w := range wordOps {
			s = w.re().ReplaceAllString(s, w.repl)
		}
		if m := changeBy().FindStringSubmatch(s); m != nil {
			op := "+"
			if strings.EqualFold(m[1], "decrease") || strings.EqualFold(m[1], "reduce") {
				op = "-"
			}
			s = m[2] + " " + op + " " + m[3] + "%"
		}
	}
	s = implicitMul().ReplaceAllString(s, "$1*$2")
	s = strings.TrimSpace(strings.TrimRight(s, "?= \t"))
	if !strings.Contains(s, "(") {
		for thousands().MatchString(s) {
			s = thousands().ReplaceAllString(s, "$1$2")
		}
	}
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(currencyChars, r) {
			return -1
		}
		return r
	}, s)
	return s
}

// currencyOf returns the one currency sign the expression uses, if exactly
// one kind appears, so that "$80 - 15%" shows as "$68".
func currencyOf(s string) string {
	var found rune
	for _, r := range s {
		if strings.ContainsRune(currencyChars, r) {
			if found != 0 && found != r {
				return ""
			}
			found = r
		}
	}
	if found == 0 {
		return ""
	}
	return string(found)
}

// splitStatements splits on ';' and drops empty statements and a "let"
// written before an assignment.
func splitStatements(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ";") {
		p = strings.TrimSpace(p)
		if rest, ok := strings.CutPrefix(p, "let "); ok {
			p = strings.TrimSpace(rest)
		}
		if p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

var assignRe = lazyRE(`^([A-Za-z_][A-Za-z0-9_]*)\s*=([^=].*)$`)

// assignment splits "name = expr".
func assignment(s string) (name, rhs string, ok bool) {
	m := assignRe().FindStringSubmatch(s)
	if m == nil || m[1] == "let" {
		return "", "", false
	}
	return m[1], strings.TrimSpace(m[2]), true
}

const numOrName = `(\d+(?:\.\d+)?|\.\d+|[A-Za-z_][A-Za-z0-9_]*)`

var (
	pctOff      = lazyRE(`(?i)^` + numOrName + `\s*%\s*off\s+(?:of\s+)?(.+)$`)
	pctOf       = lazyRE(`(?i)` + numOrName + `\s*%\s*of\b\s*`)
	pctTrailing = lazyRE(`^(.+?)\s*([+-])\s*` + numOrName + `\s*%$`)
	pctOnly     = lazyRE(`^\s*` + numOrName + `\s*%\s*$`)
	pctBare     = lazyRE(`(\d+(?:\.\d+)?|\.\d+)%`)
	whatPct     = lazyRE(`(?i)^(.+?)\s+(?:is\s+what\s+(?:percent|percentage|%)\s+of|as\s+an?\s+(?:percent|percentage)\s+of)\s+(.+)$`)
	whatPct2    = lazyRE(`(?i)^what\s+(?:percent|percentage|%)\s+of\s+(.+?)\s+is\s+(.+)$`)
)

// rewritePercent turns percentages into arithmetic:
//
//	20% of 350  → 20/100*350
//	15% off 80  → (80)*(1-15/100)
//	x + 10%     → (x)*(1+10/100)
//	7%          → (7/100)
//
// A '%' between two operands ("10 % 3") stays the remainder operator.
func rewritePercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	if m := pctOff().FindStringSubmatch(s); m != nil {
		return "(" + rewritePercent(m[2]) + ")*(1-" + m[1] + "/100)"
	}
	s = pctOf().ReplaceAllString(s, "($1/100)*")
	if m := pctTrailing().FindStringSubmatch(s); m != nil && !pctOnly().MatchString(m[1]) {
		return "(" + rewritePercent(m[1]) + ")*(1" + m[2] + m[3] + "/100)"
	}
	// A bare "N%" is a percentage unless an operand follows (then it is
	// the remainder operator).
	var b strings.Builder
	last := 0
	for _, loc := range pctBare().FindAllStringSubmatchIndex(s, -1) {
		rest := strings.TrimLeft(s[loc[1]:], " \t")
		if rest != "" && (isOperandStart(rest[0])) {
			continue
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString("(" + s[loc[2]:loc[3]] + "/100)")
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

func isOperandStart(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == '(' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// whatPercent recognises "50 is what percent of 200" and
// "what percent of 200 is 50".
func whatPercent(s string) (part, whole string, ok bool) {
	if m := whatPct().FindStringSubmatch(s); m != nil {
		return m[1], m[2], true
	}
	if m := whatPct2().FindStringSubmatch(s); m != nil {
		return m[2], m[1], true
	}
	return "", "", false
}

// formatNumber writes v with at most sig significant digits and no float
// noise: 1.524, not 1.5239999999999998; 1e+21 for very large values.
func formatNumber(v float64, sig int) string {
	if v == 0 {
		return "0"
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', sig, 64), 64)
	a := math.Abs(r)
	if a >= 1e15 || a < 1e-6 {
		return strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// mathError is raised (as a panic value) by calculator functions whose
// argument is out of their domain; expr's VM recovers it into an error.
type mathError struct{ msg string }

// Error returns the message.
func (e *mathError) Error() string { return e.msg }
