package main

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/pattern-dialect/dialect"
)

func TestZZDebug(t *testing.T) {
	msgs, _ := readMessages("../../../../shared/data/llm_outputs", 400)
	cfg, _ := dialect.ParseConfig("e", nil)
	cfg.Store.Path = filepath.Join(t.TempDir(), "x.db")
	rt, _ := dialect.Open(context.Background(), cfg)
	upURL, stop, _ := server(upstream(16))
	defer stop()
	u, _ := url.Parse(upURL)
	px, stop2, _ := server(dialect.NewProxy(rt, u, nil, nil))
	defer stop2()
	mw := &http.Client{Transport: dialect.Transport(rt, nil)}
	for i, m := range msgs {
		if _, _, _, err := ttfb(mw, upURL, m); err != nil {
			t.Errorf("mw %d: %v", i, err)
		}
		if _, _, _, err := ttfb(http.DefaultClient, px, m); err != nil {
			t.Errorf("px %d: %v", i, err)
		}
	}
}
