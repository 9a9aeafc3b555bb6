package failures

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sync"
)

// palette colours the models of the charts; the last is "other".
func palette() [10]string {
	return [...]string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}
}

type svgRect struct {
	X, Y, W, H float64
	Fill       string
	Title      string
}

type svgText struct {
	X, Y   float64
	Text   string
	Anchor string
}

type svgLine struct{ X1, Y1, X2, Y2 float64 }

type legendItem struct {
	Name, Fill string
	N          int
}

type chart struct {
	W, H   float64
	Rects  []svgRect
	Texts  []svgText
	Lines  []svgLine
	Legend []legendItem
}

// dayChart draws failures per day, stacked by model.
func (r *Report) dayChart() chart {
	const w, h, left, right, top, bottom = 760.0, 280.0, 48.0, 12.0, 12.0, 44.0
	c := chart{W: w, H: h}
	palette := palette()
	// Models by total, the tail folded into "other".
	total := map[string]int{}
	for _, d := range r.Days {
		for m, n := range d.ByModel {
			total[m] += n
		}
	}
	order := sortedCounts(total)
	colour := map[string]string{}
	for i, kv := range order {
		if i < len(palette)-1 {
			colour[kv.Key] = palette[i]
			c.Legend = append(c.Legend, legendItem{modelName(kv.Key), palette[i], kv.N})
		} else {
			colour[kv.Key] = palette[len(palette)-1]
			if i == len(palette)-1 {
				c.Legend = append(c.Legend, legendItem{"other", palette[len(palette)-1], 0})
			}
			c.Legend[len(c.Legend)-1].N += kv.N
		}
	}
	peak := 0
	for _, d := range r.Days {
		peak = max(peak, d.Total)
	}
	step, ticks := countTicks(peak)
	ymax := float64(step * ticks)
	plotW, plotH := w-left-right, h-top-bottom
	for i := 0; i <= ticks; i++ {
		v := float64(step * i)
		y := top + plotH - plotH*v/ymax
		c.Lines = append(c.Lines, svgLine{left, y, w - right, y})
		c.Texts = append(c.Texts, svgText{left - 6, y + 4, fmt.Sprint(step * i), "end"})
	}
	n := max(len(r.Days), 1)
	slot := plotW / float64(n)
	every := int(math.Ceil(float64(n) / 14))
	for i, d := range r.Days {
		x := left + float64(i)*slot + slot*0.1
		y := top + plotH
		for _, kv := range order {
			v := d.ByModel[kv.Key]
			if v == 0 {
				continue
			}
			hh := plotH * float64(v) / ymax
			y -= hh
			c.Rects = append(c.Rects, svgRect{x, y, slot * 0.8, hh, colour[kv.Key], fmt.Sprintf("%s %s: %d", d.Day, modelName(kv.Key), v)})
		}
		if i%every == 0 {
			c.Texts = append(c.Texts, svgText{x + slot*0.4, top + plotH + 16, d.Day[5:], "middle"})
		}
	}
	c.Texts = append(c.Texts, svgText{left + plotW/2, h - 8, "failures per day (UTC), by model", "middle"})
	return c
}

// modelChart draws each model's failure rate as a horizontal bar.
func (r *Report) modelChart() chart {
	const w, left, right, row = 760.0, 200.0, 140.0, 24.0
	c := chart{W: w, H: row*float64(len(r.Models)) + 30}
	palette := palette()
	peak := 0.0
	for _, m := range r.Models {
		peak = math.Max(peak, m.Rate)
	}
	if peak == 0 {
		peak = 1
	}
	for i, m := range r.Models {
		y := float64(i) * row
		bw := (w - left - right) * m.Rate / peak
		c.Rects = append(c.Rects, svgRect{left, y + 4, bw, row - 8, palette[min(i, len(palette)-1)], fmt.Sprintf("%s: %d of %d actions", modelName(m.Model), m.Failures, m.Actions)})
		c.Texts = append(c.Texts, svgText{left - 8, y + row/2 + 4, safe(clip(modelName(m.Model), 40)), "end"})
		c.Texts = append(c.Texts, svgText{left + bw + 6, y + row/2 + 4, fmt.Sprintf("%s (%d)", pct(m.Rate), m.Failures), "start"})
	}
	c.Texts = append(c.Texts, svgText{left + (w-left-right)/2, c.H - 8, "failure rate per model (failures / actions)", "middle"})
	return c
}

// countTicks chooses the gridlines of an axis of counts up to peak: a
// whole step of 1, 2 or 5 times a power of ten, and at most 5 steps that
// reach peak (a count axis never shows 0.5 failures).
func countTicks(peak int) (step, ticks int) {
	peak = max(peak, 1)
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			step = m * p
			if ticks = (peak + step - 1) / step; ticks <= 5 {
				return step, ticks
			}
		}
	}
}

// htmlTmpl is the report page, parsed on first use: a process that never
// writes HTML never pays for parsing it.
var htmlTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"pct":    pct,
		"counts": countsText,
		"safe":   safe,
		"model":  modelName,
		"f2":     func(x float64) string { return fmt.Sprintf("%.2f", x) },
		"f1":     func(x float64) string { return fmt.Sprintf("%.1f", x) },
		"px":     func(x float64) string { return fmt.Sprintf("%.1f", x) },
	}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Dialect failure report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:900px;color:#222;background:#fff}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{border:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right}code,pre{background:#f6f6f6;font-family:ui-monospace,monospace}
pre{padding:8px;overflow:auto}.ex{color:#555;font-size:12px}.legend span{display:inline-block;margin-right:14px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
svg text{font:11px sans-serif;fill:#333}
</style></head><body>
<h1>Dialect failure report</h1>
<p>Since {{.R.Since.Format "2006-01-02 15:04"}} UTC, generated {{.R.Generated.Format "2006-01-02 15:04"}} UTC:
<strong>{{.R.Failures}} failures</strong> in {{.R.Actions}} actions ({{pct .Rate}}).</p>

<h2>Failures per day</h2>
{{with .Days}}<svg xmlns="http://www.w3.org/2000/svg" width="{{px .W}}" height="{{px .H}}" viewBox="0 0 {{px .W}} {{px .H}}" role="img" aria-label="failures per day by model">
{{range .Lines}}<line x1="{{px .X1}}" y1="{{px .Y1}}" x2="{{px .X2}}" y2="{{px .Y2}}" stroke="#e3e3e3"/>
{{end}}{{range .Rects}}<rect x="{{px .X}}" y="{{px .Y}}" width="{{px .W}}" height="{{px .H}}" fill="{{.Fill}}"><title>{{safe .Title}}</title></rect>
{{end}}{{range .Texts}}<text x="{{px .X}}" y="{{px .Y}}" text-anchor="{{.Anchor}}">{{.Text}}</text>
{{end}}</svg>
<div class="legend">{{range .Legend}}<span><i style="background:{{.Fill}}"></i>{{safe .Name}} ({{.N}})</span>{{end}}</div>{{end}}

<h2>Failures per model</h2>
{{if .R.Models}}{{with .ModelsChart}}<svg xmlns="http://www.w3.org/2000/svg" width="{{px .W}}" height="{{px .H}}" viewBox="0 0 {{px .W}} {{px .H}}" role="img" aria-label="failure rate per model">
{{range .Rects}}<rect x="{{px .X}}" y="{{px .Y}}" width="{{px .W}}" height="{{px .H}}" fill="{{.Fill}}"><title>{{safe .Title}}</title></rect>
{{end}}{{range .Texts}}<text x="{{px .X}}" y="{{px .Y}}" text-anchor="{{.Anchor}}">{{.Text}}</text>
{{end}}</svg>{{end}}
<table><tr><th>model</th><th>failures</th><th>actions</th><th>failure rate</th></tr>
{{range .R.Models}}<tr><td>{{safe (model .Model)}}</td><td class="n">{{.Failures}}</td><td class="n">{{.Actions}}</td><td class="n">{{pct .Rate}}</td></tr>
{{end}}</table>{{else}}<p>No actions recorded.</p>{{end}}

<h2>Top failure patterns</h2>
{{if .R.Patterns}}<table><tr><th>code</th><th>verb</th><th>subject</th><th>count</th><th>suggested fix</th></tr>
{{range .R.Patterns}}<tr><td>{{.Code}}</td><td>{{if .Verb}}/{{safe .Verb}}{{end}}</td><td><code>{{safe .Subject}}</code></td><td class="n">{{.Count}}</td><td>{{safe .Fix}}{{range .Examples}}<div class="ex"><code>{{safe .Raw}}</code>{{if .Context}} after “{{safe .Context}}”{{end}}</div>{{end}}</td></tr>
{{end}}</table>{{else}}<p>No failures.</p>{{end}}

{{if .R.UnknownVerbs}}<h2>Unknown verbs</h2>
{{if gt .R.UnknownVerbsTotal (len .R.UnknownVerbs)}}<p>The {{len .R.UnknownVerbs}} most frequent of {{.R.UnknownVerbsTotal}}.</p>{{end}}
<table id="unknown-verbs"><tr><th>token</th><th>count</th><th>by model</th><th>examples</th></tr>
{{range .R.UnknownVerbs}}<tr><td><code>/{{safe .Token}}</code></td><td class="n">{{.Count}}</td><td>{{safe (counts .ByModel)}}</td><td>{{range .Examples}}<div class="ex"><code>{{safe .Raw}}</code>{{if .Context}} after “{{safe .Context}}”{{end}}</div>{{end}}</td></tr>
{{end}}</table>{{end}}

<h2>Alias candidates</h2>
{{if .R.Aliases}}<table><tr><th>alias</th><th>verb</th><th>count</th><th>confidence</th><th>score</th><th>by model</th><th>examples</th></tr>
{{range .R.Aliases}}<tr><td><code>/{{safe .Alias}}</code></td><td><code>/{{safe .Verb}}</code></td><td class="n">{{.Count}}</td><td class="n">{{f2 .Confidence}}</td><td class="n">{{f1 .Score}}</td><td>{{safe (counts .ByModel)}}</td><td>{{range .Examples}}<div class="ex"><code>{{safe .Raw}}</code>{{if .Context}} after “{{safe .Context}}”{{end}}</div>{{end}}</td></tr>
{{end}}</table>
<h2>dialect.toml</h2>
<pre>{{.R.Snippet}}</pre>{{else}}<p>None: no unknown verb was frequent and close enough to an existing verb.</p>{{end}}
</body></html>
`))
})

// WriteHTML writes the report as a self-contained HTML page with inline SVG
// charts of failures per day (stacked by model) and per model.
func (r *Report) WriteHTML(w io.Writer) error {
	rate := 0.0
	if r.Actions > 0 {
		rate = float64(r.Failures) / float64(r.Actions)
	}
	return htmlTmpl().Execute(w, struct {
		R           *Report
		Rate        float64
		Days        chart
		ModelsChart chart
	}{r, rate, r.dayChart(), r.modelChart()})
}
