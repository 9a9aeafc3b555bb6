package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/pattern-dialect/dialect"
	"github.com/pattern-dialect/dialect/middleware"
	"github.com/pattern-dialect/dialect/store"
)

func init() {
	register(&command{
		name:  "proxy",
		usage: "--listen 127.0.0.1:PORT --upstream URL [--loop N] [--instructions] [--hide-actions] [--results-event] [--agent A] [--session S] [--config F] [--db PATH]",
		short: "run the dialect in front of an OpenAI-compatible server",
		run:   runProxy,
	})
}

// runProxy serves until ctx ends (SIGINT), then shuts down gracefully.
func runProxy(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags(commands["proxy"], sio).state()
	listen := fs.String("listen", "127.0.0.1:8089", "address to listen on")
	upstream := fs.String("upstream", "", "base URL of the OpenAI-compatible server (required)")
	hide := fs.Bool("hide-actions", false, "leave action lines out of the assistant text clients receive")
	event := fs.Bool("results-event", false, `add an SSE event "dialect" with the results before [DONE]`)
	agent := fs.String("agent", envOr("DIALECT_AGENT", ""), "agent for requests without an X-Dialect-Agent header ($DIALECT_AGENT)")
	session := fs.String("session", envOr("DIALECT_SESSION", ""), "session for requests without an X-Dialect-Session header ($DIALECT_SESSION)")
	turns := fs.Int("loop", 1, "model turns at most per request: run the actions and ask the upstream again with the results (1: pass the answer through)")
	instr := fs.Bool("instructions", false, "add the dialect's instructions (dialect verbs --instructions) to each request's system prompt")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	if *turns < 1 {
		return usageError("--loop wants 1 or more model turns, got %d", *turns)
	}
	up, err := url.Parse(*upstream)
	if *upstream == "" || err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return usageError("--upstream wants an http or https URL, got %q", *upstream)
	}
	logger := log.New(sio.err, "dialect proxy: ", 0)
	// The conversation and failure logs are written off the response
	// path, many to a transaction; Close (after Shutdown) writes what is
	// queued.
	cfg, err := fs.loadConfig()
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.Store.Path)
	if err != nil {
		return err
	}
	logs, err := store.NewBatched(st, 4096, func(err error) { logger.Print(err) })
	if err != nil {
		st.Close()
		return err
	}
	defer logs.Close()
	rt, err := fs.openConfig(ctx, cfg, dialect.WithStore(logs))
	if err != nil {
		return err
	}
	defer rt.Close()

	opts := []middleware.Option{
		middleware.OnCompletion(middleware.LogCompletions(sio.err)),
		middleware.DefaultMeta(dialect.Meta{Agent: *agent, Session: *session}),
	}
	if *hide {
		opts = append(opts, middleware.HideActions())
	}
	if *event {
		opts = append(opts, middleware.ResultsEvent())
	}
	if *turns > 1 {
		opts = append(opts, middleware.Loop(*turns))
	}
	if *instr {
		opts = append(opts, middleware.Instructions())
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return usageError("listen: %v", err)
	}
	srv := &http.Server{
		Handler:           middleware.NewProxy(rt, up, nil, logger, opts...),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          logger,
	}
	fmt.Fprintf(sio.err, "dialect proxy: listening on http://%s, upstream %s\n", ln.Addr(), up)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
