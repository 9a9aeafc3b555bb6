package mcp

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/executor"
	"github.com/pattern-dialect/dialect/fuzzy"
)

// Options configure a Manager beyond its servers.
type Options struct {
	// Fuzzy is how tool names resolve: the runtime's verb resolution
	// options, so that a tool forgives what a verb forgives.
	Fuzzy fuzzy.Options
	// RetryAfter is how long a server that failed to start answers with
	// that failure before it is tried again. Default 2s.
	RetryAfter time.Duration
}

// Manager owns the MCP servers of one runtime: it starts each on first
// use, keeps it, and stops them all on Close. It is safe for concurrent
// use.
type Manager struct {
	servers map[string]*server
	names   []string // sorted
	opts    Options

	base   context.Context // cancelled by Close: aborts starts under way
	cancel context.CancelFunc
}

// New checks the servers and returns their Manager. Nothing starts until
// an action needs it. A mistake is a *ConfigError naming its key.
func New(servers []Server, opts Options) (*Manager, error) {
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = 2 * time.Second
	}
	m := &Manager{servers: map[string]*server{}, opts: opts}
	for _, s := range servers {
		if err := s.Check(); err != nil {
			return nil, err
		}
		if m.servers[s.Name] != nil {
			return nil, &ConfigError{Key: s.Name, Msg: "defined twice"}
		}
		m.servers[s.Name] = &server{cfg: s, m: m}
		m.names = append(m.names, s.Name)
	}
	slices.Sort(m.names)
	m.base, m.cancel = context.WithCancel(context.Background())
	return m, nil
}

// Names returns the servers' names, sorted.
func (m *Manager) Names() []string { return slices.Clone(m.names) }

// Close stops every server started, closing each session and killing what
// is left of a stdio server's process group. Actions after Close fail.
func (m *Manager) Close() error {
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(s.close)
	}
	wg.Wait()
	return nil
}

// server is one configured server and, once started, its connection.
type server struct {
	cfg Server
	m   *Manager

	mu       sync.Mutex
	conn     *conn         // nil until started, and after it died
	starting chan struct{} // closed when the start under way ends
	failed   error         // the last start's failure
	failedAt time.Time
	closed   bool
}

// conn is a live session with a server, and what it said about its tools.
type conn struct {
	sess   *sdk.ClientSession
	pid    int   // a stdio server's process (and group), 0 for HTTP
	stderr *tail // the end of a stdio server's standard error
	dead   chan struct{}

	mu    sync.Mutex
	tools *toolSet // nil when the server said its list changed
}

// get returns the server's connection, starting it if need be. A start
// is shared by every caller waiting for it and runs under the server's own
// start timeout, so one caller giving up does not fail the others.
func (s *server) get(ctx context.Context) (*conn, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, codes.Errorf(codes.ServerFailed, "the MCP server %s is closed", s.cfg.Name)
		}
		if c := s.conn; c != nil {
			select {
			case <-c.dead:
				s.conn = nil
				go c.close()
			default:
				s.mu.Unlock()
				return c, nil
			}
		}
		if s.failed != nil && time.Since(s.failedAt) < s.m.opts.RetryAfter && s.starting == nil {
			err := s.failed
			s.mu.Unlock()
			return nil, err
		}
		if s.starting == nil {
			s.starting = make(chan struct{})
			go s.start(s.starting)
		}
		wait := s.starting
		s.mu.Unlock()
		select {
		case <-wait:
			s.mu.Lock()
			c, err := s.conn, s.failed
			s.mu.Unlock()
			if c != nil {
				return c, nil
			}
			if err != nil {
				return nil, err
			}
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, codes.Wrap(codes.Timeout, ctx.Err(), "the MCP server %s was still starting when the action's time ran out", s.cfg.Name)
			}
			return nil, ctx.Err()
		}
	}
}

// start connects, lists the tools and publishes the connection or the
// failure, then closes done.
func (s *server) start(done chan struct{}) {
	ctx, cancel := context.WithTimeout(s.m.base, s.cfg.StartTimeout)
	defer cancel()
	c, err := s.connect(ctx)
	if err == nil {
		_, err = c.toolSet(ctx, s)
		if err != nil {
			c.close()
		}
	}
	if err != nil {
		err = s.startError(ctx, c, err)
	}
	s.mu.Lock()
	if s.closed && err == nil {
		// Closed while starting: stop it now, before Close returns.
		s.mu.Unlock()
		c.close()
		s.mu.Lock()
		err = codes.Errorf(codes.ServerFailed, "the MCP server %s is closed", s.cfg.Name)
	}
	switch {
	case err != nil:
		s.failed, s.failedAt = err, time.Now()
	default:
		s.conn, s.failed = c, nil
	}
	s.starting = nil
	s.mu.Unlock()
	close(done)
}

// startError says why a start failed, naming the server, with the end of
// what it wrote to its standard error.
func (s *server) startError(ctx context.Context, c *conn, err error) error {
	var said string
	if c != nil && c.stderr != nil {
		said = c.stderr.String()
	}
	if said != "" {
		said = " (it said: " + said + ")"
	}
	switch {
	case s.m.base.Err() != nil:
		return codes.Errorf(codes.ServerFailed, "the MCP server %s is closed", s.cfg.Name)
	case ctx.Err() != nil:
		return codes.Wrap(codes.Timeout, err, "the MCP server %s did not start within %s%s", s.cfg.Name, s.cfg.StartTimeout, said)
	}
	return codes.Wrap(codes.ServerFailed, err, "the MCP server %s could not start%s", s.cfg.Name, said)
}

// connect starts a stdio server or reaches an HTTP one, and initialises
// the session. On failure the returned conn (possibly nil) holds what the
// server wrote to stderr; its process is gone.
func (s *server) connect(ctx context.Context) (*conn, error) {
	c := &conn{dead: make(chan struct{})}
	client := sdk.NewClient(&sdk.Implementation{Name: "dialect", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { c.forgetTools() },
	})
	var t sdk.Transport
	var cmd *exec.Cmd
	if len(s.cfg.Command) > 0 {
		cmd = exec.Command(s.cfg.Command[0], s.cfg.Command[1:]...)
		cmd.Env = executor.ChildEnv(s.cfg.Env) // the variables command targets get, then env
		c.stderr = &tail{max: 1024}
		cmd.Stderr = c.stderr
		cmd.WaitDelay = time.Second
		ownGroup(cmd)
		t = &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}
	} else {
		headers := http.Header{}
		for k, v := range s.cfg.Headers {
			headers.Set(k, os.Expand(v, os.Getenv))
		}
		t = &sdk.StreamableClientTransport{
			Endpoint:   s.cfg.URL,
			HTTPClient: &http.Client{Transport: headerTransport{headers, http.DefaultTransport}},
			MaxRetries: 1,
		}
	}
	sess, err := client.Connect(ctx, t, nil)
	if cmd != nil && cmd.Process != nil {
		c.pid = cmd.Process.Pid
	}
	if err != nil {
		killGroup(c.pid)
		return c, err
	}
	c.sess = sess
	go func() {
		_ = sess.Wait()
		close(c.dead)
	}()
	return c, nil
}

// close ends the session (a stdio server gets end of input, then SIGTERM)
// and kills what is left of its process group.
func (c *conn) close() {
	if c == nil {
		return
	}
	if c.sess != nil {
		done := make(chan struct{})
		go func() {
			_ = c.sess.Close()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
	}
	killGroup(c.pid)
}

// close stops the server, waiting for a start under way to end (the
// Manager's context is cancelled first, so it ends soon): a process
// started must not outlive the runtime.
func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	c, starting := s.conn, s.starting
	s.conn = nil
	s.mu.Unlock()
	c.close()
	if starting != nil {
		<-starting
	}
}

// forgetTools drops the tool list after the server said it changed; the
// next action lists the tools again.
func (c *conn) forgetTools() {
	c.mu.Lock()
	c.tools = nil
	c.mu.Unlock()
}

// toolSet returns the server's tools, listing them if need be.
func (c *conn) toolSet(ctx context.Context, s *server) (*toolSet, error) {
	c.mu.Lock()
	ts := c.tools
	c.mu.Unlock()
	if ts != nil {
		return ts, nil
	}
	var tools []*sdk.Tool
	for t, err := range c.sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	ts, err := newToolSet(s.cfg.Name, tools, s.m.opts.Fuzzy)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.tools = ts
	c.mu.Unlock()
	return ts, nil
}

// tools returns the server's tools, starting it if need be.
func (s *server) tools(ctx context.Context) (*conn, *toolSet, error) {
	c, err := s.get(ctx)
	if err != nil {
		return nil, nil, err
	}
	ts, err := c.toolSet(ctx, s)
	if err != nil {
		return nil, nil, s.callError(ctx, err, "listing its tools")
	}
	return c, ts, nil
}

// callError says why a request to a running server failed.
func (s *server) callError(ctx context.Context, err error, doing string) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, sdk.ErrConnectionClosed):
		return codes.Wrap(codes.ServerFailed, err, "the MCP server %s closed the connection while %s", s.cfg.Name, doing)
	}
	return codes.Wrap(codes.ToolFailed, err, "the MCP server %s failed %s", s.cfg.Name, doing)
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	h    http.Header
	next http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.next.RoundTrip(r)
}

// tail keeps the last max bytes written to it, cleaned to one line.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return oneLine(string(t.b), t.max)
}

// server returns the server named name.
func (m *Manager) server(name string) (*server, error) {
	s := m.servers[name]
	if s == nil {
		return nil, codes.Errorf(codes.NotConfigured, "%q is not a configured MCP server", name)
	}
	return s, nil
}
