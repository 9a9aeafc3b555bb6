package verbs

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/pattern-dialect/dialect/intent"
)

// OperationOf names what an intent does within its verb, as standing rules
// and their listings say it: the recall or context operation ("insert",
// "search"), the act of authority, "continue" for /fetch continue, an MCP
// server's tool. It is "" for a verb that does one thing (search, web,
// calc, a configured tool) and for a delivery: /tell @anchor and /send
// @agent @anchor are one call, whichever shorthand wrote it, so a rule on
// one is a rule on both. A custom verb's operation is that of the intent
// it runs as.
func OperationOf(it intent.Intent) string {
	switch in := it.(type) {
	case intent.Recall:
		return string(in.Op)
	case intent.Context:
		return string(in.Op)
	case intent.Authority:
		return string(in.Op)
	case intent.Fetch:
		if in.Continue {
			return "continue"
		}
	case intent.Custom:
		if in.Inner != nil {
			return OperationOf(in.Inner)
		}
		return in.Tool // an MCP server's tool; "" for a tool or Go verb
	}
	return ""
}

// Argument is the text of an intent that a standing rule's argument
// pattern is matched against: the block a block operation names, a
// search's query or terms, the content stored or sent, the URL fetched,
// the web query, the expression; for a tool, its filled template, or else
// its arguments as JSON.
func Argument(it intent.Intent) string {
	switch in := it.(type) {
	case intent.Recall:
		switch in.Op {
		case intent.RecallSearch:
			return in.Query
		case intent.RecallInsert:
			return in.Content
		}
		return in.Block
	case intent.Context:
		if in.Op == intent.ContextLoad {
			return in.Label
		}
		return in.Block
	case intent.Search:
		return in.Terms
	case intent.Send:
		return in.Content
	case intent.Fetch:
		return in.URL
	case intent.Web:
		return in.Query
	case intent.Calc:
		return in.Expr
	case intent.Authority:
		return in.ID
	case intent.Custom:
		if in.Inner != nil {
			return Argument(in.Inner)
		}
		if in.TemplateApplied != "" {
			return in.TemplateApplied
		}
		if c, ok := in.Args["content"].(string); ok && len(in.Args) == 1 {
			return c
		}
		b, _ := json.Marshal(in.Args)
		return string(b)
	}
	return ""
}

// RulePattern is the argument pattern of the narrowest standing rule that
// still recurs, made when an owner decides an action "always": the exact
// block for a block operation (allowing appends to one block allows no
// other), the site for a fetch (its scheme and host, any path), and any
// argument for the rest, whose target, operation and agent already narrow
// the rule. quote makes a pattern that matches its argument exactly.
func RulePattern(it intent.Intent, quote func(string) string) string {
	switch in := it.(type) {
	case intent.Recall:
		switch in.Op {
		case intent.RecallSearch, intent.RecallInsert:
			return "*"
		}
		return quote(in.Block)
	case intent.Context:
		return quote(Argument(in))
	case intent.Fetch:
		u, err := url.Parse(in.URL)
		if err != nil || u.Host == "" || in.Continue {
			return "*"
		}
		return quote(strings.ToLower(u.Scheme+"://"+u.Host+"/")) + "*"
	case intent.Custom:
		if in.Inner != nil {
			return RulePattern(in.Inner, quote)
		}
	}
	return "*"
}
