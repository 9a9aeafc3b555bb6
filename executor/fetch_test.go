package executor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

func fetchServer(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Page</title><script>x()</script></head><body><nav>menu</nav><h1>Hello</h1><p>World <a href="/next">next</a></p></body></html>`)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain \x1b[31mred\x1b[0m text\x07")
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for i := 0; i < 100; i++ {
			fmt.Fprintf(w, "line %03d of the long document\n", i)
		}
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("x", 1<<20)))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/redirect/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/redirect/"), "%d", &n)
		if n == 0 {
			http.Redirect(w, r, "/plain", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n-1), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchRefusesLoopbackByDefault(t *testing.T) {
	srv := fetchServer(t)
	f := NewFetcher(FetchOptions{})
	for _, u := range []string{
		srv.URL + "/page",
		strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/page", // a name resolving to loopback
	} {
		_, err := f.Fetch(context.Background(), intent.Fetch{URL: u}, nil)
		if codes.Of(err) != codes.BlockedAddress {
			t.Fatalf("Fetch(%s) = %v, want %s", u, err, codes.BlockedAddress)
		}
		if !strings.Contains(err.Error(), "127.0.0.1") && !strings.Contains(err.Error(), "::1") {
			t.Errorf("error does not name the address: %v", err)
		}
	}
	f = NewFetcher(FetchOptions{AllowPrivate: true})
	r, err := f.Fetch(context.Background(), intent.Fetch{URL: srv.URL + "/page"}, nil)
	if err != nil {
		t.Fatalf("with AllowPrivate: %v", err)
	}
	if !strings.Contains(r.Text, "# Hello") {
		t.Errorf("text = %q", r.Text)
	}
}

// A redirect from an allowed address to a refused one is caught when the
// redirect is dialled: the guard sees every connection.
func TestFetchRedirectRechecked(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	hits := 0
	inner := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		fmt.Fprint(w, "internal secret")
	}))
	inner.Listener.Close()
	inner.Listener = ln
	inner.Start()
	defer inner.Close()
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/", http.StatusFound)
	}))
	defer outer.Close()

	only := netip.MustParseAddr("127.0.0.1") // stands in for "the public internet"
	f := newFetcher(FetchOptions{}, func(a netip.Addr) bool { return a == only })
	_, err = f.Fetch(context.Background(), intent.Fetch{URL: outer.URL}, nil)
	if codes.Of(err) != codes.BlockedAddress || !strings.Contains(err.Error(), "127.0.0.2") {
		t.Fatalf("redirect to 127.0.0.2: %v", err)
	}
	if hits != 0 {
		t.Fatalf("the refused server was reached %d times", hits)
	}
}

func TestFetch(t *testing.T) {
	srv := fetchServer(t)
	f := NewFetcher(FetchOptions{AllowPrivate: true, MaxRedirects: 3, ChunkBytes: 1000, MaxBytes: 64 << 10, Timeout: Duration{time.Second}})
	tests := []struct {
		name, path, format string
		want               string
		code               codes.Code
		absent             []string
	}{
		{"html as text", "/page", "", "Title: Page\n\n# Hello\n\nWorld [next](" + srv.URL + "/next)\n", "", []string{"menu", "x()"}},
		{"html raw", "/page", "html", "<nav>menu</nav>", "", nil},
		{"plain cleaned", "/plain", "text", "plain red text", "", []string{"\x1b", "\x07"}},
		{"charset", "/latin1", "", "café", "", nil},
		{"image refused", "/image", "", "", codes.UnsupportedType, nil},
		{"404", "/missing", "", "", codes.HTTPStatus, nil},
		{"redirects followed", "/redirect/2", "", "plain red text", "", nil},
		{"too many redirects", "/redirect/5", "", "", codes.TooManyRedirects, nil},
		{"slow", "/slow", "", "", codes.Timeout, nil},
		{"unknown format", "/page", "pdf", "", codes.UnknownModifier, nil},
		{"huge is cut", "/huge", "", "[shown 0–1000 of 65536 bytes", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := f.Fetch(context.Background(), intent.Fetch{URL: srv.URL + tt.path, Format: tt.format}, nil)
			if tt.code != "" {
				if codes.Of(err) != tt.code {
					t.Fatalf("err = %v, want code %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Text, tt.want) {
				t.Errorf("text = %q, want it to contain %q", r.Text, tt.want)
			}
			for _, a := range tt.absent {
				if strings.Contains(r.Text, a) {
					t.Errorf("text keeps %q: %q", a, r.Text)
				}
			}
		})
	}
}

func TestFetchStatusError(t *testing.T) {
	srv := fetchServer(t)
	f := NewFetcher(FetchOptions{AllowPrivate: true})
	_, err := f.Fetch(context.Background(), intent.Fetch{URL: srv.URL + "/missing"}, nil)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 404 || !strings.Contains(se.Body, "no such page") {
		t.Fatalf("err = %#v", err)
	}
}

func TestFetchContinue(t *testing.T) {
	srv := fetchServer(t)
	f := NewFetcher(FetchOptions{AllowPrivate: true, ChunkBytes: 1000})
	if _, err := f.Fetch(context.Background(), intent.Fetch{Continue: true}, nil); codes.Of(err) != codes.NoPreviousFetch {
		t.Fatalf("continue with no cursor: %v", err)
	}
	var got strings.Builder
	r, err := f.Fetch(context.Background(), intent.Fetch{URL: srv.URL + "/long"}, nil)
	parts := 1
	for {
		if err != nil {
			t.Fatal(err)
		}
		d := r.Data.(FetchData)
		if NextCursor(r) != d.Next {
			t.Fatal("NextCursor disagrees with Data.Next")
		}
		text := r.Text
		if i := strings.Index(text, "\n\n[shown"); i >= 0 {
			text = text[:i]
		}
		got.WriteString(text)
		if d.Next == nil {
			break
		}
		if d.Next.Offset <= d.Offset || d.Next.Offset-d.Offset > 1000 {
			t.Fatalf("cursor %d after offset %d", d.Next.Offset, d.Offset)
		}
		if !strings.HasSuffix(text, "\n") {
			t.Errorf("chunk %d does not end at a line: %q", parts, text[len(text)-20:])
		}
		r, err = f.Fetch(context.Background(), intent.Fetch{Continue: true}, d.Next)
		parts++
	}
	var want strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&want, "line %03d of the long document\n", i)
	}
	if got.String() != want.String() {
		t.Errorf("the chunks do not add up to the document:\n%q", got.String())
	}
	if parts != 4 {
		t.Errorf("%d parts, want 4 (3100 bytes in chunks of at most 1000)", parts)
	}
}

// In one process, continue reads the kept page: the next chunk comes from
// the same text, with no new request.
func TestFetchContinueCache(t *testing.T) {
	hits := 0
	version := "first"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Content-Type", "text/plain")
		for i := 0; i < 50; i++ {
			fmt.Fprintf(w, "%s version, line %02d\n", version, i)
		}
	}))
	defer srv.Close()
	for _, tt := range []struct {
		pages     int
		wantHits  int
		wantStart string
	}{{0, 1, "first"}, {-1, 2, "second"}} {
		hits, version = 0, "first"
		f := NewFetcher(FetchOptions{AllowPrivate: true, ChunkBytes: 400, CachePages: tt.pages})
		r, err := f.Fetch(context.Background(), intent.Fetch{URL: srv.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		version = "second" // the page changes between the two requests
		r, err = f.Fetch(context.Background(), intent.Fetch{Continue: true}, NextCursor(r))
		if err != nil {
			t.Fatal(err)
		}
		if hits != tt.wantHits || !strings.Contains(r.Text, tt.wantStart+" version") || strings.Contains(r.Text, map[string]string{"first": "second", "second": "first"}[tt.wantStart]) {
			t.Errorf("cache_pages %d: %d requests, continue gave %q", tt.pages, hits, r.Text[:20])
		}
	}
}

func TestFetchBadURL(t *testing.T) {
	f := NewFetcher(FetchOptions{})
	for in, code := range map[string]codes.Code{
		"":                    codes.MissingArg,
		"ftp://example.com/x": codes.MalformedSyntax,
		"file:///etc/passwd":  codes.MalformedSyntax,
		"http://":             codes.MalformedSyntax,
		"http://[::1]/":       codes.BlockedAddress,
		"http://169.254.169.254/latest/meta-data": codes.BlockedAddress,
		"http://0.0.0.0:1/":                       codes.BlockedAddress,
		"http://[::ffff:127.0.0.1]/":              codes.BlockedAddress,
	} {
		_, err := f.Fetch(context.Background(), intent.Fetch{URL: in}, nil)
		if codes.Of(err) != code {
			t.Errorf("Fetch(%q) = %v, want %s", in, err, code)
		}
	}
}

func TestTrimURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://go.dev/doc.":                       "https://go.dev/doc",
		"<https://go.dev/doc>":                      "https://go.dev/doc",
		"https://x.test/a?b=1,":                     "https://x.test/a?b=1",
		"https://en.wikipedia.org/wiki/Go_(lang)":   "https://en.wikipedia.org/wiki/Go_(lang)",
		"https://en.wikipedia.org/wiki/Go_(lang)).": "https://en.wikipedia.org/wiki/Go_(lang)",
		"`https://x.test/`":                         "https://x.test/",
		"  ":                                        "",
	} {
		if got := trimURL(in); got != want {
			t.Errorf("trimURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsPublicAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8": true, "1.1.1.1": true, "2606:4700:4700::1111": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "0.0.0.0": false, "::": false, "::1": false,
		"fe80::1": false, "fc00::1": false, "224.0.0.1": false, "ff02::1": false,
		"100.64.0.1": false, "255.255.255.255": false, "::ffff:10.0.0.1": false,
		"64:ff9b::7f00:1": false, "2002:7f00:1::": false, "198.18.0.1": false,
	} {
		if got := IsPublicAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("IsPublicAddr(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestFetchCancelled(t *testing.T) {
	srv := fetchServer(t)
	f := NewFetcher(FetchOptions{AllowPrivate: true})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err := f.Fetch(ctx, intent.Fetch{URL: srv.URL + "/slow"}, nil)
	if codes.Of(err) != codes.Cancelled {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("cancellation took %v", time.Since(start))
	}
}

func TestChunkEnd(t *testing.T) {
	s := "ab cd\n\nef gh ij"
	if got := chunkEnd(s, 0, 100); got != len(s) {
		t.Errorf("whole = %d", got)
	}
	if got := chunkEnd(s, 0, 8); got != 7 { // after the paragraph break
		t.Errorf("paragraph = %d", got)
	}
	u := "ééééé"
	if got := chunkEnd(u, 0, 3); got != 2 {
		t.Errorf("rune boundary = %d", got)
	}
	if got := chunkEnd(u, 0, 1); got != 2 {
		t.Errorf("one rune at least = %d", got)
	}
}
