package fuzzy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
)

// embedServer is an OpenAI-compatible /v1/embeddings endpoint with fixed
// vectors; unknown texts embed far from everything.
func embedServer(t *testing.T, vecs map[string][]float32, seen *[]string, mu *sync.Mutex) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/v1/embeddings" || req.Method != http.MethodPost {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		if req.Header.Get("Authorization") != "Bearer k3y" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"message":"bad key"}}`))
			return
		}
		var in embeddingRequest
		if err := json.NewDecoder(req.Body).Decode(&in); err != nil || in.Model != "m" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		*seen = append(*seen, in.Input...)
		mu.Unlock()
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		// answer in reverse order: the client must honour "index".
		for i := len(in.Input) - 1; i >= 0; i-- {
			v, ok := vecs[in.Input[i]]
			if !ok {
				v = []float32{0, 0, 0, 1}
			}
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		json.NewEncoder(w).Encode(out)
	}))
}

func TestEmbedderTier(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := embedServer(t, map[string][]float32{
		"recall":    {1, 0, 0, 0},
		"remember":  {0.9, 0.1, 0, 0},
		"fetch":     {0, 1, 0, 0},
		"approve":   {0, 0, 1, 0},
		"reminisce": {0.97, 0.05, 0, 0},
		"sanction":  {0, 0, 1, 0}, // only close to a strict verb
	}, &seen, &mu)
	defer srv.Close()
	emb := &OpenAIEmbedder{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "k3y", Client: srv.Client()}
	r := newTest(t, []Entry{
		{Verb: "recall", Names: []string{"remember"}, Strictness: Loose},
		{Verb: "fetch"},
		{Verb: "approve", Strictness: Strict},
	}, Options{Embedder: emb, NoLexicon: true})

	res, err := r.ResolveContext(context.Background(), "reminisce")
	if err != nil || res.Verb != "recall" || res.Tier != TierSemantic {
		t.Fatalf("reminisce: %+v, %v", res, err)
	}
	res, err = r.ResolveContext(context.Background(), "sanction")
	if err != nil || res.OK() {
		t.Fatalf("sanction must not reach a strict verb: %+v, %v", res, err)
	}
	// The offline tiers still come first, and Resolve never calls out.
	if res, _ := r.ResolveContext(context.Background(), "recal"); res.Tier != TierSpelling {
		t.Errorf("recal: %+v", res)
	}
	if res := r.Resolve("reminisce"); res.OK() {
		t.Errorf("Resolve used the embedder: %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(seen, "approve") {
		t.Errorf("a strict verb was embedded: %v", seen)
	}
	if n := count(seen, "recall"); n != 1 {
		t.Errorf("names embedded %d times, want once (cached): %v", n, seen)
	}
}

func count(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

func TestEmbedderErrors(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := embedServer(t, nil, &seen, &mu)
	defer srv.Close()
	bad := &OpenAIEmbedder{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "wrong", Client: srv.Client()}
	if _, err := bad.Embed(context.Background(), []string{"x"}); !errors.Is(err, ErrEmbedding) {
		t.Errorf("bad key: %v", err)
	}
	r := newTest(t, testEntries(), Options{Embedder: bad})
	res, err := r.ResolveContext(context.Background(), "reminisce")
	if !errors.Is(err, ErrEmbedding) || res.Code != codes.UnknownVerb {
		t.Errorf("failing embedder: %+v, %v", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	good := &OpenAIEmbedder{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "k3y", Client: srv.Client()}
	if _, err := good.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) || !errors.Is(err, ErrEmbedding) {
		t.Errorf("cancelled: %v", err)
	}
	down := &OpenAIEmbedder{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}
	if _, err := down.Embed(context.Background(), []string{"x"}); !errors.Is(err, ErrEmbedding) {
		t.Errorf("unreachable: %v", err)
	}
}
