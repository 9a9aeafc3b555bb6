package executor

import (
	"flag"
	"net/url"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestHTMLToMarkdownGolden(t *testing.T) {
	src, err := os.ReadFile("testdata/article.html")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("https://tides.test/today/")
	got, title := HTMLToMarkdown(string(src), base)
	if title != "Tide tables & notes" {
		t.Errorf("title = %q", title)
	}
	if *update {
		os.WriteFile("testdata/article.md", []byte(got), 0o644)
	}
	want, err := os.ReadFile("testdata/article.md")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("HTMLToMarkdown:\n%s\nwant:\n%s", got, want)
	}
	for _, banned := range []string{"tracking", "color: red", "Home", "secret", "invisible", "Copyright", "javascript"} {
		if strings.Contains(got, banned) {
			t.Errorf("output keeps %q", banned)
		}
	}
}

func TestHTMLToMarkdownCases(t *testing.T) {
	base, _ := url.Parse("https://a.test/dir/page")
	tests := []struct {
		name, html, want string
	}{
		{"plain", "<p>Hello   world</p>", "Hello world\n"},
		{"paragraphs", "<p>one</p><p>two</p>", "one\n\ntwo\n"},
		{"br", "a<br>b", "a\nb\n"},
		{"relative link", `<a href="../x?q=1">X</a>`, "[X](https://a.test/x?q=1)\n"},
		{"link spacing", `see <a href="/y">the doc</a> now`, "see [the doc](https://a.test/y) now\n"},
		{"brackets in link text", `<a href="/y">[1]</a>`, "[(1)](https://a.test/y)\n"},
		{"parens in url", `<a href="/wiki/Go_(language)">Go</a>`, "[Go](https://a.test/wiki/Go_%28language%29)\n"},
		{"image link", `<a href="/i"><img alt="Logo"></a>`, "[Logo](https://a.test/i)\n"},
		{"bare url link", `<a href="https://x.test/">https://x.test</a>`, "https://x.test/\n"},
		{"headings", "<h3>Three</h3><p>x</p>", "### Three\n\nx\n"},
		{"empty heading", "<h2> </h2><p>x</p>", "x\n"},
		{"article only", "<div>menu</div><article><p>story</p></article>", "story\n"},
		{"two articles keep body", "<article>a</article><article>b</article>", "a\n\nb\n"},
		{"ordered start", `<ol start="3"><li>c</li><li>d</li></ol>`, "3. c\n4. d\n"},
		{"pre with fence", "<pre>a ``` b</pre>", "````\na ``` b\n````\n"},
		{"entities", "<p>a &lt; b &amp;&amp; c</p>", "a < b && c\n"},
		{"quote two paragraphs", "<blockquote><p>a</p><p>b</p></blockquote>", "> a\n>\n> b\n"},
		{"aria hidden", `<p>x<span aria-hidden="true">y</span></p>`, "x\n"},
		{"no html", "just text", "just text\n"},
		{"aria navigation", `<div role="navigation">menu</div><p>body</p>`, "body\n"},
		{"cookie banner", `<div class="cookie-banner">We use cookies</div><p>body</p>`, "body\n"},
		{"share bar", `<div id="share_buttons">Tweet</div><p>body</p>`, "body\n"},
		{"state class on a container kept", `<div class="sidebar-visible"><p>` + strings.Repeat("long text ", 200) + `</p></div>`, strings.TrimSpace(strings.Repeat("long text ", 200)) + "\n"},
		{"word inside a word kept", `<div class="downloads shared-memory">kept</div>`, "kept\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := HTMLToMarkdown(tt.html, base)
			if got != tt.want {
				t.Errorf("HTMLToMarkdown(%q) = %q, want %q", tt.html, got, tt.want)
			}
		})
	}
}

func FuzzHTMLToMarkdown(f *testing.F) {
	src, _ := os.ReadFile("testdata/article.html")
	f.Add(string(src))
	f.Add("<ul><li><blockquote><pre>x</pre></blockquote></li></ul>")
	f.Add("<a href='\x00'>\x1b[31m</a>")
	f.Fuzz(func(t *testing.T, doc string) {
		got, _ := HTMLToMarkdown(doc, nil)
		if c := Clean(got); strings.ContainsRune(c, 0x1b) {
			t.Fatalf("Clean left an escape in %q", c)
		}
	})
}
