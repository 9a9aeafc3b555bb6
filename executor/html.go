package executor

import (
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLToMarkdown turns an HTML document into readable markdown-flavoured
// text: headings as "#", links as [text](absolute url), lists, block
// quotes, tables as "a | b" rows, and <pre> as fenced blocks. Scripts,
// styles, navigation, forms and hidden elements are dropped. When the page
// has a <main> (or a single <article>) only that is kept. base resolves
// relative links; it may be nil. The title is the document's <title>.
func HTMLToMarkdown(doc string, base *url.URL) (text, title string) {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil { // html.Parse only fails on reader errors
		return "", ""
	}
	title = collapse(textContent(find(root, atom.Title)))
	body := find(root, atom.Main)
	if body == nil {
		if arts := findAll(root, atom.Article, 2); len(arts) == 1 {
			body = arts[0]
		}
	}
	if body == nil {
		body = find(root, atom.Body)
	}
	if body == nil {
		body = root
	}
	w := &mdWriter{base: base}
	w.children(body)
	return strings.TrimSpace(w.b.String()) + "\n", title
}

// mdWriter accumulates markdown. Block elements ask for line breaks, which
// are written lazily before the next text so that empty elements leave no
// blank lines behind.
type mdWriter struct {
	b       strings.Builder
	base    *url.URL
	breaks  int      // newlines owed before the next text (at most 2)
	space   bool     // a space is owed before the next text
	prefix  []string // per nesting level: "> " for quotes, "  " for lists
	started bool     // something has been written
	outside bool     // a pending break was asked for outside any quote
}

func (w *mdWriter) block(n int) {
	if w.started && n > w.breaks {
		w.breaks = n
	}
	if !w.quoted() {
		w.outside = true
	}
	w.space = false
}

func (w *mdWriter) quoted() bool {
	for _, p := range w.prefix {
		if p == "> " {
			return true
		}
	}
	return false
}

func (w *mdWriter) flush() {
	switch {
	case !w.started:
		w.b.WriteString(strings.Join(w.prefix, ""))
	case w.breaks > 0:
		for i := 0; i < w.breaks; i++ {
			w.b.WriteByte('\n')
			if i < w.breaks-1 && !w.outside {
				w.writeQuotePrefix()
			}
		}
		w.b.WriteString(strings.Join(w.prefix, ""))
	case w.space:
		w.b.WriteByte(' ')
	}
	w.breaks, w.space, w.started, w.outside = 0, false, true, false
}

// writeQuotePrefix keeps blank lines inside a block quote quoted.
func (w *mdWriter) writeQuotePrefix() {
	if w.quoted() {
		w.b.WriteString(">")
	}
}

// text writes running text with its whitespace collapsed.
func (w *mdWriter) text(s string) {
	if s == "" {
		return
	}
	lead := isSpace(s[0])
	trail := isSpace(s[len(s)-1])
	s = collapse(s)
	if s == "" {
		if lead && w.started {
			w.space = true
		}
		return
	}
	if lead && w.started {
		w.space = true
	}
	w.flush()
	w.b.WriteString(s)
	w.space = trail
}

// raw writes s as is (inline markup, markers).
func (w *mdWriter) raw(s string) {
	w.flush()
	w.b.WriteString(s)
}

func (w *mdWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *mdWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
	case html.DocumentNode:
		w.children(n)
		return
	default:
		return
	}
	if dropped(n) {
		return
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		t := collapse(textContent(n))
		if t == "" {
			return
		}
		level := int(n.Data[1] - '0')
		w.block(2)
		w.raw(strings.Repeat("#", level) + " " + t)
		w.block(2)
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Aside,
		atom.Figure, atom.Figcaption, atom.Details, atom.Summary, atom.Dl, atom.Address, atom.Center:
		w.block(2)
		w.children(n)
		w.block(2)
	case atom.Dt, atom.Dd, atom.Tr, atom.Caption:
		w.block(1)
		if n.DataAtom == atom.Tr {
			first := true
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
					if !first {
						w.raw(" |")
						w.space = true
					}
					first = false
					w.children(c)
				}
			}
		} else {
			w.children(n)
		}
		w.block(1)
	case atom.Table:
		w.block(2)
		w.children(n)
		w.block(2)
	case atom.Br:
		if w.started {
			w.breaks = max(w.breaks, 1)
		}
	case atom.Hr:
		w.block(2)
		w.raw("---")
		w.block(2)
	case atom.Ul, atom.Ol:
		w.list(n)
	case atom.Li: // outside a list
		w.block(1)
		w.raw("- ")
		w.children(n)
		w.block(1)
	case atom.Blockquote:
		w.block(2)
		w.prefix = append(w.prefix, "> ")
		w.children(n)
		w.prefix = w.prefix[:len(w.prefix)-1]
		w.block(2)
	case atom.Pre:
		w.pre(n)
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		if t := collapse(textContent(n)); t != "" {
			w.inline(n, "`"+strings.ReplaceAll(t, "`", "'")+"`")
		}
	case atom.Strong, atom.B:
		w.wrap(n, "**")
	case atom.Em, atom.I:
		w.wrap(n, "*")
	case atom.A:
		w.link(n)
	case atom.Img:
		if alt := collapse(attr(n, "alt")); alt != "" {
			w.raw("[image: " + alt + "]")
		}
	default:
		w.children(n)
	}
}

func (w *mdWriter) wrap(n *html.Node, mark string) {
	if t := collapse(textContent(n)); t != "" {
		w.inline(n, mark+t+mark)
	}
}

// inline writes s in place of n, keeping the spaces n's text had at
// either end.
func (w *mdWriter) inline(n *html.Node, s string) {
	t := textContent(n)
	if t != "" && isSpace(t[0]) && w.started {
		w.space = true
	}
	w.raw(s)
	if t != "" && isSpace(t[len(t)-1]) {
		w.space = true
	}
}

func (w *mdWriter) link(n *html.Node) {
	t := collapse(textContent(n))
	href := strings.TrimSpace(attr(n, "href"))
	u := w.resolve(href)
	if u == "" {
		if t == "" {
			w.children(n) // an image link: its alt text
		} else {
			w.text(textContent(n))
		}
		return
	}
	if t == "" {
		if alt := collapse(attr(find(n, atom.Img), "alt")); alt != "" {
			t = alt
		} else {
			return
		}
	}
	if t == u || strings.TrimSuffix(t, "/") == strings.TrimSuffix(u, "/") {
		w.inline(n, u) // a bare URL needs no [text]
		return
	}
	w.inline(n, "["+linkTextEscaper.Replace(t)+"]("+u+")")
}

// resolve makes href absolute; fragments and script links give "".
func (w *mdWriter) resolve(href string) string {
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if w.base != nil {
		u = w.base.ResolveReference(u)
	}
	switch u.Scheme {
	case "http", "https", "mailto", "ftp", "":
	default:
		return "" // javascript:, data:...
	}
	return linkURLEscaper.Replace(u.String())
}

// Replacers are immutable and safe for concurrent use; building one costs
// more than converting a link.
var (
	linkTextEscaper = strings.NewReplacer("[", "(", "]", ")")
	linkURLEscaper  = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29")
)

func (w *mdWriter) list(n *html.Node) {
	w.block(2)
	i := 1
	if s, err := strconv.Atoi(attr(n, "start")); err == nil {
		i = s
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.DataAtom != atom.Li || dropped(c) {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Ul || c.DataAtom == atom.Ol) {
				w.node(c)
			}
			continue
		}
		w.block(1)
		marker := "- "
		if n.DataAtom == atom.Ol {
			marker = strconv.Itoa(i) + ". "
			i++
		}
		w.raw(marker)
		w.prefix = append(w.prefix, strings.Repeat(" ", len(marker)))
		w.children(c)
		w.prefix = w.prefix[:len(w.prefix)-1]
		w.block(1)
	}
	w.block(2)
}

func (w *mdWriter) pre(n *html.Node) {
	t := strings.Trim(textContent(n), "\n")
	if strings.TrimSpace(t) == "" {
		return
	}
	fence := "```"
	for strings.Contains(t, fence) {
		fence += "`"
	}
	w.block(2)
	indent := strings.Join(w.prefix, "")
	w.raw(fence + "\n" + indent + strings.ReplaceAll(t, "\n", "\n"+indent) + "\n" + indent + fence)
	w.block(2)
}

// dropped reports whether an element is boilerplate or hidden.
func dropped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Nav, atom.Head,
		atom.Svg, atom.Math, atom.Canvas, atom.Iframe, atom.Object, atom.Embed,
		atom.Form, atom.Button, atom.Select, atom.Input, atom.Textarea, atom.Footer,
		atom.Dialog, atom.Audio, atom.Video, atom.Map:
		return true
	}
	if _, ok := attrOK(n, "hidden"); ok {
		return true
	}
	if droppedRoles[attr(n, "role")] {
		return true
	}
	if (boilerplate(attr(n, "class")) || boilerplate(attr(n, "id"))) && smallChrome(n) {
		return true
	}
	if attr(n, "aria-hidden") == "true" {
		return true
	}
	style := strings.ReplaceAll(strings.ToLower(attr(n, "style")), " ", "")
	return strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden")
}

// droppedRoles are ARIA landmark and widget roles that mark page chrome
// rather than content.
var droppedRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "search": true,
	"menu": true, "menubar": true, "toolbar": true, "dialog": true, "alertdialog": true,
}

// boilerplateWords, as a whole word of a class or id ("cookie-banner",
// "share_buttons"), mark cookie notices, share bars, adverts and the like.
var boilerplateWords = map[string]bool{
	"cookie": true, "cookies": true, "consent": true, "gdpr": true, "newsletter": true,
	"popup": true, "modal": true, "share": true, "sharing": true, "social": true,
	"advert": true, "advertisement": true, "ads": true, "sponsored": true,
	"breadcrumb": true, "breadcrumbs": true, "sidebar": true, "skip": true,
}

// smallChrome reports whether n can be a banner or bar: not a document or
// content container (a class such as "sidebar-visible" on <body> is a
// state, not chrome), and short.
func smallChrome(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Html, atom.Body, atom.Main, atom.Article:
		return false
	}
	return len(textContent(n)) < 1500
}

func boilerplate(v string) bool {
	if v == "" {
		return false
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == ' ' || r == '-' || r == '_' }) {
		if boilerplateWords[w] {
			return true
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	if n == nil {
		return "", false
	}
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// textContent is the text of n's subtree, without dropped elements.
func textContent(n *html.Node) string {
	if n == nil {
		return ""
	}
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				b.WriteString(c.Data)
			case c.Type == html.ElementNode && !dropped(c):
				if c.DataAtom == atom.Br {
					b.WriteByte('\n')
				}
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

func find(n *html.Node, a atom.Atom) *html.Node {
	if r := findAll(n, a, 1); len(r) > 0 {
		return r[0]
	}
	return nil
}

// findAll returns up to limit elements a under n, in document order,
// skipping dropped subtrees.
func findAll(n *html.Node, a atom.Atom, limit int) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && len(out) < limit; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == a {
				out = append(out, c)
				continue
			}
			if a != atom.Title && dropped(c) {
				continue
			}
			walk(c)
		}
	}
	if n != nil {
		walk(n)
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// collapse joins whitespace runs into single spaces and trims.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
