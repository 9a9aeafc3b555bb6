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
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--hide-scrollbars", "--window-size=1000,1300",
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
	barPixels := 0 // #4e79a7, the first model's colour
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			c := [3]uint32{r >> 8, g >> 8, b >> 8}
			colours[c]++
			if near(c, [3]uint32{0x4e, 0x79, 0xa7}) {
				barPixels++
			}
		}
	}
	if len(colours) < 20 {
		t.Errorf("screenshot has %d colours: blank page?", len(colours))
	}
	if barPixels < 2000 {
		t.Errorf("only %d pixels of the first model's bar colour: chart not drawn?", barPixels)
	}
	t.Logf("screenshot %v, %d colours, %d bar pixels", bounds, len(colours), barPixels)
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
