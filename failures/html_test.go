package failures

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func fixtureReport(t *testing.T) *Report {
	t.Helper()
	l := openTest(t)
	loadFixture(t, l, "testdata/week.jsonl")
	r, err := l.Report(context.Background(), fixtureSince, ReportConfig{Suggest: testSuggest()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestHTMLStructure(t *testing.T) {
	r := fixtureReport(t)
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	// One bar segment per (day, model) with failures: count them from the
	// fixture's days.
	segs := 0
	for _, d := range r.Days {
		segs += len(d.ByModel)
	}
	if got := strings.Count(h, "<rect") - len(r.Models); got != segs {
		t.Errorf("day chart has %d bar segments, want %d", got, segs)
	}
	for _, want := range []string{"<svg", "failures per day", "gamma", "56.5%", "[dialect.verbs.search]", "/srch"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// Text from the log is escaped.
	r.Aliases[0].Examples[0].Raw = `/srch <script>alert(1)</script>`
	b.Reset()
	r.WriteHTML(&b)
	if strings.Contains(b.String(), "<script>") {
		t.Error("raw text reached the HTML unescaped")
	}
}

// TestHTMLScreenshot renders the report in headless Chromium and checks the
// screenshot shows the chart: the page is not blank and the first model's
// bar colour covers a real area. It skips when Chromium is not installed.
func TestHTMLScreenshot(t *testing.T) {
	var browser string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no Chromium installed (apt-get install -y chromium)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := fixtureReport(t).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	// The unknown-verb table's cells get a colour nothing else has, so
	// that the screenshot shows whether the browser drew it.
	html := strings.Replace(b.String(), "</style>", "#unknown-verbs td{background:#12a45b}</style>", 1)
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--hide-scrollbars", "--window-size=1000,3200",
		"--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("DIALECT_KEEP_SCREENSHOT"); keep != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(keep, data, 0o644)
	}
	bounds := img.Bounds()
	if bounds.Dx() < 800 || bounds.Dy() < 1000 {
		t.Fatalf("screenshot is %v", bounds)
	}
	colours := map[[3]uint32]int{}
	barPixels := 0   // #4e79a7, the first model's colour
	tablePixels := 0 // #12a45b, the unknown-verb table's cells
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			c := [3]uint32{r >> 8, g >> 8, b >> 8}
			colours[c]++
			if near(c, [3]uint32{0x4e, 0x79, 0xa7}) {
				barPixels++
			}
			if near(c, [3]uint32{0x12, 0xa4, 0x5b}) {
				tablePixels++
			}
		}
	}
	if len(colours) < 20 {
		t.Errorf("screenshot has %d colours: blank page?", len(colours))
	}
	if barPixels < 2000 {
		t.Errorf("only %d pixels of the first model's bar colour: chart not drawn?", barPixels)
	}
	if tablePixels < 20000 {
		t.Errorf("only %d pixels of the unknown-verb table: not drawn?", tablePixels)
	}
	t.Logf("screenshot %v, %d colours, %d bar pixels, %d unknown-verb table pixels", bounds, len(colours), barPixels, tablePixels)
}

func near(a, b [3]uint32) bool {
	for i := range a {
		d := int(a[i]) - int(b[i])
		if d < -6 || d > 6 {
			return false
		}
	}
	return true
}

// TestHTMLHasWhatMarkdownHas: the unknown-verb table of the Markdown is in
// the HTML too, one row per token, and axes count whole failures.
func TestHTMLHasWhatMarkdownHas(t *testing.T) {
	r := fixtureReport(t)
	var h, md bytes.Buffer
	r.WriteHTML(&h)
	r.WriteMarkdown(&md)
	html := h.String()
	if !strings.Contains(md.String(), "## Unknown verbs") || !strings.Contains(html, "<h2>Unknown verbs</h2>") {
		t.Fatal("an unknown-verb table is missing")
	}
	_, table, _ := strings.Cut(html, "<h2>Unknown verbs</h2>")
	table, _, _ = strings.Cut(table, "</table>")
	if got := strings.Count(table, "<tr>") - 1; got != len(r.UnknownVerbs) || len(r.UnknownVerbs) == 0 {
		t.Errorf("the HTML lists %d unknown verbs, the report %d", got, len(r.UnknownVerbs))
	}
	for _, u := range r.UnknownVerbs {
		if !strings.Contains(table, "<code>/"+u.Token+"</code>") || !strings.Contains(md.String(), "`/"+u.Token+"`") {
			t.Errorf("/%s is not in both tables", u.Token)
		}
	}
	for _, lbl := range axisLabels(html) {
		if strings.ContainsAny(lbl, ".e") {
			t.Errorf("axis label %q is not a whole number", lbl)
		}
	}
}

// axisLabels are the y-axis labels of the day chart (right-anchored text).
func axisLabels(html string) []string {
	_, chart, _ := strings.Cut(html, `aria-label="failures per day by model">`)
	chart, _, _ = strings.Cut(chart, "</svg>")
	var out []string
	for _, part := range strings.Split(chart, `text-anchor="end">`)[1:] {
		lbl, _, _ := strings.Cut(part, "<")
		out = append(out, lbl)
	}
	return out
}

func TestCountTicks(t *testing.T) {
	for _, tt := range []struct{ peak, step, ticks int }{
		{0, 1, 1}, {1, 1, 1}, {2, 1, 2}, {3, 1, 3}, {5, 1, 5}, {6, 2, 3}, {9, 2, 5}, {11, 5, 3},
		{25, 5, 5}, {26, 10, 3}, {99, 20, 5}, {1234, 500, 3},
	} {
		step, ticks := countTicks(tt.peak)
		if step != tt.step || ticks != tt.ticks || step*ticks < tt.peak {
			t.Errorf("countTicks(%d) = %d × %d, want %d × %d", tt.peak, step, ticks, tt.step, tt.ticks)
		}
	}
	// A day with 2 failures once drew gridlines at 0.5, 1, 1.5.
	r := &Report{Days: []DayStat{{Day: "2026-11-20", Total: 2, ByModel: map[string]int{"m": 2}}}}
	var b bytes.Buffer
	r.WriteHTML(&b)
	if got := strings.Join(axisLabels(b.String()), " "); got != "0 1 2" {
		t.Errorf("axis labels %q, want 0 1 2", got)
	}
}
