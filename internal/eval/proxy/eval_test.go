package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect"
)

func TestEvalSmall(t *testing.T) {
	msgs, err := readMessages("testdata", 100)
	if err != nil || len(msgs) != 6 {
		t.Fatalf("%d messages: %v", len(msgs), err)
	}
	rep, err := run(context.Background(), config{
		Messages: msgs, TTFBSamples: 6, Requests: 24, Concurrency: 3,
		MaxDuration: time.Minute, Piece: 7, Pause: time.Millisecond, DB: filepath.Join(t.TempDir(), "e.db"),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"direct", "middleware", "bare-proxy", "proxy", "direct/paced", "proxy/paced"} {
		if s := rep.TTFB[p]; s.N != 6 || s.P50 <= 0 || s.P50 > s.P99 {
			t.Errorf("ttfb %s: %+v", p, s)
		}
	}
	for _, p := range []string{"loop:direct", "loop:loop", "loop-total:direct", "loop-total:loop"} {
		if s := rep.TTFB[p]; s.N != 6 || s.P50 <= 0 {
			t.Errorf("loop %s: %+v", p, s)
		}
	}
	if len(rep.Load) != 8 {
		t.Fatalf("%d load runs", len(rep.Load))
	}
	for _, l := range rep.Load {
		if l.Done != 24 || l.Errors != 0 || !l.Complete || l.Bytes == 0 {
			t.Errorf("load %s: %+v", l.Name, l)
		}
	}
	// Six TTFB samples through each of the middleware and the proxy, and
	// 24 streamed plus 24 JSON through the proxy: the fixture's executable
	// actions ran each time their message passed.
	if rep.Failed != 0 || rep.Statuses[dialect.StatusOK] == 0 || rep.Statuses[dialect.StatusSkipped] == 0 {
		t.Errorf("statuses %v, failed %d", rep.Statuses, rep.Failed)
	}
	var out bytes.Buffer
	rep.print(&out)
	for _, want := range []string{"added p50", "pauses after the first event", "proxy/sse", "proxy/json", "vs bare-proxy: throughput x", "proxy-sync/json", "added per extra turn"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
