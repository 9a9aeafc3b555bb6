package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/middleware"
	"github.com/pattern-dialect/dialect/store"
)

// config is one evaluation run.
type config struct {
	Messages    []string      // assistant answers the upstream streams
	TTFBSamples int           // requests per path for time to first byte
	Requests    int           // requests per load run
	Concurrency int           // workers in a load run
	MaxDuration time.Duration // a load run stops here even if unfinished
	Piece       int           // bytes of answer per SSE event
	Pause       time.Duration // for TTFB: the upstream's pause after the first event
	DB          string        // SQLite file of the runtime
	NoLog       bool          // [store] log_messages = false
}

// stats summarises durations.
type stats struct {
	N             int
	P50, P90, P99 time.Duration
}

func summarise(ds []time.Duration) stats {
	if len(ds) == 0 {
		return stats{}
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	q := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return stats{N: len(s), P50: q(0.50), P90: q(0.90), P99: q(0.99)}
}

// loadResult is one load run.
type loadResult struct {
	Name     string
	Done     int
	Errors   int
	Elapsed  time.Duration
	Bytes    int64
	Latency  stats
	ReqPerS  float64
	Complete bool // every request ran before MaxDuration
}

// report is everything one run measured.
type report struct {
	Messages int
	TTFB     map[string]stats // direct, middleware, bare-proxy, proxy
	Load     []loadResult
	Statuses map[dialect.Status]int // results of the completions seen
	Failed   int                    // completions with an error
}

// sized ends a request body at its declared length, as middleware.NewProxy
// does (see sizedBody there), so that the bare proxy is not slower for
// a known net/http pitfall.
func sized(r *http.Request) io.ReadCloser {
	if r.Body == nil || r.ContentLength <= 0 {
		return r.Body
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(r.Body, r.ContentLength), r.Body}
}

// upstream is a loopback OpenAI-compatible server streaming the text of
// the request's last message back, piece bytes per event, with no delay:
// what is measured is the path, not a model.
func upstream(piece int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Stream   bool   `json:"stream"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		// Read the whole body before answering: an HTTP/1 server that
		// streams a reply over an unread request body may lose the
		// connection (seen through httputil.ReverseProxy).
		body, err := io.ReadAll(r.Body)
		if err != nil || json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		text := req.Messages[len(req.Messages)-1].Content
		head := `{"id":"chatcmpl-eval","object":"chat.completion.chunk","created":1700000000,"model":"eval",`
		if !req.Stream {
			c, _ := json.Marshal(text)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"chatcmpl-eval","object":"chat.completion","created":1700000000,"model":"eval","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, c)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		io.WriteString(w, "data: "+head+`"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`+"\n\n")
		fl.Flush()
		// A pause after the first event, as a model takes between tokens:
		// the first byte is then measured alone, not while every path
		// also pumps the rest of the answer through the same two cores.
		if d, err := time.ParseDuration(r.Header.Get("X-Eval-Pause")); err == nil {
			time.Sleep(d)
		}
		var b bytes.Buffer
		for i := 0; i < len(text); i += piece {
			c, _ := json.Marshal(text[i:min(i+piece, len(text))])
			b.Reset()
			b.WriteString("data: " + head + `"choices":[{"index":0,"delta":{"content":`)
			b.Write(c)
			b.WriteString("},\"finish_reason\":null}]}\n\n")
			w.Write(b.Bytes())
			fl.Flush()
		}
		io.WriteString(w, "data: "+head+`"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	})
}

// server serves h on a loopback port until the returned stop is called.
func server(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

func newTransport(conns int) *http.Transport {
	return &http.Transport{MaxIdleConns: conns * 2, MaxIdleConnsPerHost: conns * 2, IdleConnTimeout: time.Minute}
}

// request builds a chat completion request for text.
func request(ctx context.Context, base, text string, stream bool) *http.Request {
	body, _ := json.Marshal(map[string]any{
		"model": "eval", "stream": stream,
		"messages": []map[string]string{{"role": "user", "content": text}},
	})
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return req
}

// ttfb sends one streaming request and returns the time to the first
// byte of the body and the time to the end.
func ttfb(c *http.Client, base, text string, pause time.Duration) (first, total time.Duration, n int64, err error) {
	req := request(context.Background(), base, text, true)
	if pause > 0 {
		req.Header.Set("X-Eval-Pause", pause.String())
	}
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return 0, 0, 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	var one [1]byte
	if _, err := io.ReadFull(resp.Body, one[:]); err != nil {
		return 0, 0, 0, err
	}
	first = time.Since(t0)
	n, err = io.Copy(io.Discard, resp.Body)
	return first, time.Since(t0), n + 1, err
}

// run measures the three paths: direct to the upstream, through the
// middleware (Transport) and through the proxy.
func run(ctx context.Context, cfg config) (*report, error) {
	if len(cfg.Messages) == 0 {
		return nil, fmt.Errorf("no messages")
	}
	var toml []byte
	if cfg.NoLog {
		toml = []byte("[store]\nlog_messages = false\n")
	}
	dcfg, err := dialect.ParseConfig("eval.toml", toml)
	if err != nil {
		return nil, err
	}
	// The proxy as `dialect proxy` runs it: the logs written off the
	// response path (store.Batched); "proxy-sync" is the same proxy with
	// every log written on it, in a store of its own.
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	logs, err := store.NewBatched(st, 4096, nil)
	if err != nil {
		return nil, err
	}
	defer logs.Close()
	rt, err := dialect.Open(ctx, dcfg, dialect.WithStore(logs))
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	scfg := *dcfg
	scfg.Store.Path = cfg.DB + ".sync"
	rtSync, err := dialect.Open(ctx, &scfg)
	if err != nil {
		return nil, err
	}
	defer rtSync.Close()

	rep := &report{Messages: len(cfg.Messages), TTFB: map[string]stats{}, Statuses: map[dialect.Status]int{}}
	var mu sync.Mutex
	count := middleware.OnCompletion(func(c middleware.Completion) {
		mu.Lock()
		defer mu.Unlock()
		if c.Err != nil {
			rep.Failed++
		}
		for _, r := range c.Results {
			rep.Statuses[r.Status]++
		}
	})

	upURL, stopUp, err := server(upstream(cfg.Piece))
	if err != nil {
		return nil, err
	}
	defer stopUp()
	u, _ := url.Parse(upURL)
	pxURL, stopPx, err := server(middleware.NewProxy(rt, u, newTransport(cfg.Concurrency), nil, count))
	if err != nil {
		return nil, err
	}
	defer stopPx()
	syncURL, stopSync, err := server(middleware.NewProxy(rtSync, u, newTransport(cfg.Concurrency), nil, count))
	if err != nil {
		return nil, err
	}
	defer stopSync()
	loopURL, stopLoop, err := server(middleware.NewProxy(rt, u, newTransport(cfg.Concurrency), nil, middleware.Loop(3), middleware.Instructions()))
	if err != nil {
		return nil, err
	}
	defer stopLoop()

	// A bare reverse proxy, built like the dialect's but without the
	// middleware: the difference to it is what the dialect adds, the
	// difference from direct is what any proxy hop costs.
	bareURL, stopBare, err := server(&httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(u); pr.Out.Body = sized(pr.Out) },
		Transport:     newTransport(cfg.Concurrency),
		FlushInterval: -1,
	})
	if err != nil {
		return nil, err
	}
	defer stopBare()

	direct := &http.Client{Transport: newTransport(cfg.Concurrency)}
	middle := &http.Client{Transport: middleware.Transport(rt, newTransport(cfg.Concurrency), count)}
	viaProxy := &http.Client{Transport: newTransport(cfg.Concurrency)}
	viaBare := &http.Client{Transport: newTransport(cfg.Concurrency)}
	viaSync := &http.Client{Transport: newTransport(cfg.Concurrency)}
	viaLoop := &http.Client{Transport: newTransport(cfg.Concurrency)}
	paths := []struct {
		name string
		c    *http.Client
		base string
	}{{"direct", direct, upURL}, {"middleware", middle, upURL}, {"bare-proxy", viaBare, bareURL}, {"proxy", viaProxy, pxURL}}

	// Time to first byte: the paths take turns on the same message, so
	// that drift in the machine's load falls on all three alike.
	firsts := map[string][]time.Duration{}
	for i := 0; i < cfg.TTFBSamples; i++ {
		text := cfg.Messages[i%len(cfg.Messages)]
		for k := range paths {
			p := paths[(i+k)%len(paths)]
			f, _, _, err := ttfb(p.c, p.base, text, 0)
			if err != nil {
				return nil, fmt.Errorf("ttfb %s: %w", p.name, err)
			}
			firsts[p.name] = append(firsts[p.name], f)
			if cfg.Pause > 0 {
				f, _, _, err := ttfb(p.c, p.base, text, cfg.Pause)
				if err != nil {
					return nil, fmt.Errorf("ttfb %s: %w", p.name, err)
				}
				firsts[p.name+"/paced"] = append(firsts[p.name+"/paced"], f)
			}
		}
	}
	// The loop: an answer whose action runs, so that the proxy asks the
	// upstream a second time (the echo of the results turn runs
	// nothing). The upstream pauses after its first event as a model
	// does; direct is one turn of the same answer.
	totals := map[string][]time.Duration{}
	for i := 0; i < cfg.TTFBSamples && cfg.Pause > 0; i++ {
		for _, p := range order(i, []pathT{{"direct", direct, upURL}, {"loop", viaLoop, loopURL}}) {
			f, tot, _, err := ttfb(p.c, p.base, loopMessage, cfg.Pause)
			if err != nil {
				return nil, fmt.Errorf("loop %s: %w", p.name, err)
			}
			firsts["loop:"+p.name] = append(firsts["loop:"+p.name], f)
			totals[p.name] = append(totals[p.name], tot)
		}
	}
	for name, ds := range firsts {
		rep.TTFB[name] = summarise(ds)
	}
	for name, ds := range totals {
		rep.TTFB["loop-total:"+name] = summarise(ds)
	}

	for _, stream := range []bool{true, false} {
		for _, p := range []struct {
			name string
			c    *http.Client
			base string
		}{{"direct", direct, upURL}, {"bare-proxy", viaBare, bareURL}, {"proxy", viaProxy, pxURL}, {"proxy-sync", viaSync, syncURL}} {
			kind := "sse"
			if !stream {
				kind = "json"
			}
			rep.Load = append(rep.Load, load(ctx, p.name+"/"+kind, p.c, p.base, stream, cfg))
		}
	}
	return rep, nil
}

// loopMessage is an answer whose action runs.
const loopMessage = "Let me work that out.\n/calc 6 * 7\n"

type pathT struct {
	name string
	c    *http.Client
	base string
}

// order takes turns: path i%len first.
func order(i int, ps []pathT) []pathT {
	out := append([]pathT(nil), ps[i%len(ps):]...)
	return append(out, ps[:i%len(ps)]...)
}

// load sends cfg.Requests requests from cfg.Concurrency workers, each
// reading its whole response, for at most cfg.MaxDuration.
func load(ctx context.Context, name string, c *http.Client, base string, stream bool, cfg config) loadResult {
	ctx, cancel := context.WithTimeout(ctx, cfg.MaxDuration)
	defer cancel()
	var next, errs atomic.Int64
	var bytesRead atomic.Int64
	lat := make([][]time.Duration, cfg.Concurrency)
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(cfg.Requests) {
					return
				}
				start := time.Now()
				resp, err := c.Do(request(ctx, base, cfg.Messages[int(i)%len(cfg.Messages)], stream))
				if err != nil {
					errs.Add(1)
					continue
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					errs.Add(1)
					continue
				}
				bytesRead.Add(n)
				lat[w] = append(lat[w], time.Since(start))
			}
		}(w)
	}
	wg.Wait()
	el := time.Since(t0)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	return loadResult{
		Name: name, Done: len(all), Errors: int(errs.Load()), Elapsed: el, Bytes: bytesRead.Load(),
		Latency: summarise(all), ReqPerS: float64(len(all)) / el.Seconds(),
		Complete: next.Load() >= int64(cfg.Requests) && ctx.Err() == nil,
	}
}

// print writes the report as a table.
func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "messages: %d\n", r.Messages)
	for _, suffix := range []string{"", "/paced"} {
		d, bare := r.TTFB["direct"+suffix], r.TTFB["bare-proxy"+suffix]
		if d.N == 0 {
			continue
		}
		how := "the upstream streams the whole answer at once"
		if suffix != "" {
			how = "the upstream pauses after the first event, as a model does"
		}
		fmt.Fprintf(w, "\ntime to first byte (streaming), %d samples per path, interleaved; %s:\n", d.N, how)
		for _, name := range []string{"direct", "middleware", "bare-proxy", "proxy"} {
			s := r.TTFB[name+suffix]
			fmt.Fprintf(w, "  %-10s p50 %9s  p90 %9s  p99 %9s  added p50 vs direct %9s", name, s.P50, s.P90, s.P99, s.P50-d.P50)
			if name == "proxy" {
				fmt.Fprintf(w, ", vs bare proxy %s (the dialect's part)", s.P50-bare.P50)
			}
			fmt.Fprintln(w)
		}
	}
	if d, l := r.TTFB["loop:direct"], r.TTFB["loop:loop"]; d.N > 0 {
		td, tl := r.TTFB["loop-total:direct"], r.TTFB["loop-total:loop"]
		fmt.Fprintf(w, "\nloop (proxy --loop 3 --instructions, 2 model turns; the upstream pauses after its first event), %d samples per path, alternated:\n", d.N)
		fmt.Fprintf(w, "  first byte: direct p50 %s, through the loop p50 %s (added %s)\n", d.P50, l.P50, l.P50-d.P50)
		fmt.Fprintf(w, "  whole answer: direct (1 turn) p50 %s, loop (2 turns) p50 %s; added per extra turn beyond the model's own: %s\n", td.P50, tl.P50, tl.P50-2*td.P50)
	}
	fmt.Fprintf(w, "\nload (loopback, whole responses read):\n")
	byName := map[string]loadResult{}
	for _, l := range r.Load {
		byName[l.Name] = l
	}
	for _, l := range r.Load {
		path, kind, _ := strings.Cut(l.Name, "/")
		extra := ""
		vs := map[string]string{"bare-proxy": "direct", "proxy": "bare-proxy", "proxy-sync": "bare-proxy"}[path]
		if b, ok := byName[vs+"/"+kind]; ok {
			extra = fmt.Sprintf("  vs %s: throughput x%.2f, p50 %+v, p99 %+v", vs, l.ReqPerS/b.ReqPerS, l.Latency.P50-b.Latency.P50, l.Latency.P99-b.Latency.P99)
		}
		cut := ""
		if !l.Complete {
			cut = " (stopped at the time limit)"
		}
		fmt.Fprintf(w, "  %-12s %6d req in %7s%s, %d errors: %8.1f req/s, %6.1f MB/s, p50 %9s p99 %9s%s\n",
			l.Name, l.Done, l.Elapsed.Round(time.Millisecond), cut, l.Errors, l.ReqPerS,
			float64(l.Bytes)/l.Elapsed.Seconds()/1e6, l.Latency.P50, l.Latency.P99, extra)
	}
	fmt.Fprintf(w, "\nresults of the completions through the middleware and proxy:")
	for _, st := range []dialect.Status{dialect.StatusOK, dialect.StatusError, dialect.StatusPending, dialect.StatusDenied, dialect.StatusSkipped} {
		fmt.Fprintf(w, " %s %d", st, r.Statuses[st])
	}
	fmt.Fprintf(w, "; completions with an error: %d\n", r.Failed)
}

// readMessages reads JSON Lines {"text": ...} files: every *.jsonl in dir,
// at most limit messages in all, taken round-robin so every file
// contributes.
func readMessages(dir string, limit int) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no *.jsonl in %s", dir)
	}
	sort.Strings(files)
	per := make([][]string, len(files))
	for i, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<16), 1<<22)
		for sc.Scan() && len(per[i]) < limit {
			var m struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.Text != "" {
				per[i] = append(per[i], m.Text)
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	var out []string
	for k := 0; len(out) < limit; k++ {
		added := false
		for _, p := range per {
			if k < len(p) && len(out) < limit {
				out = append(out, p[k])
				added = true
			}
		}
		if !added {
			break
		}
	}
	return out, nil
}
