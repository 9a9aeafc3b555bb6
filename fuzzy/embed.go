package fuzzy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"

	"github.com/pattern-dialect/dialect/codes"
)

// Embedder turns texts into embedding vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ErrEmbedding is wrapped by every error of OpenAIEmbedder.
var ErrEmbedding = errors.New("fuzzy: embedding request failed")

// OpenAIEmbedder calls an OpenAI-compatible POST {BaseURL}/embeddings
// endpoint (BaseURL normally ends in /v1).
type OpenAIEmbedder struct {
	BaseURL string       // e.g. "https://api.openai.com/v1" or "http://localhost:11434/v1"
	Model   string       // e.g. "text-embedding-3-small"
	APIKey  string       // sent as a bearer token when not empty
	Client  *http.Client // http.DefaultClient when nil
}

type embeddingRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type embeddingResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Embed sends texts in one request and returns their vectors in order.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingRequest{Model: e.Model, Input: texts})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEmbedding, err)
	}
	url := strings.TrimRight(e.BaseURL, "/") + "/embeddings"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEmbedding, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	c := e.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEmbedding, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: reading response: %w", ErrEmbedding, err)
	}
	var out embeddingResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%w: %s from %s", ErrEmbedding, resp.Status, url)
		}
		return nil, fmt.Errorf("%w: decoding response: %w", ErrEmbedding, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := resp.Status
		if out.Error != nil && out.Error.Message != "" {
			msg += ": " + out.Error.Message
		}
		return nil, fmt.Errorf("%w: %s", ErrEmbedding, msg)
	}
	vecs := make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(texts) {
			return nil, fmt.Errorf("%w: response index %d out of range", ErrEmbedding, d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return nil, fmt.Errorf("%w: no embedding for input %d", ErrEmbedding, i)
		}
	}
	return vecs, nil
}

// nameVectors returns the embedding of every non-strict name, computing
// them on first use. A failure is not cached, so a later call retries.
func (r *Resolver) nameVectors(ctx context.Context) ([][]float32, error) {
	r.emb.mu.Lock()
	defer r.emb.mu.Unlock()
	if r.emb.ready {
		return r.emb.vectors, nil
	}
	var texts []string
	var idx []int
	for i, nm := range r.names {
		if r.verbs[nm.verb].strict == Strict || nm.key != nm.base {
			continue
		}
		texts = append(texts, nm.key)
		idx = append(idx, i)
	}
	vecs, err := r.opts.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("%w: %d vectors for %d names", ErrEmbedding, len(vecs), len(texts))
	}
	out := make([][]float32, len(r.names))
	for j, i := range idx {
		out[i] = vecs[j]
	}
	r.emb.vectors, r.emb.ready = out, true
	return out, nil
}

// embedTier compares the token's embedding with every non-strict name's.
func (r *Resolver) embedTier(ctx context.Context, token, key string) (Result, error) {
	names, err := r.nameVectors(ctx)
	if err != nil {
		return Result{}, err
	}
	vs, err := r.opts.Embedder.Embed(ctx, []string{key})
	if err != nil {
		return Result{}, err
	}
	if len(vs) != 1 {
		return Result{}, fmt.Errorf("%w: %d vectors for 1 input", ErrEmbedding, len(vs))
	}
	q := vs[0]
	var cands []Candidate
	for i, v := range names {
		if v == nil {
			continue
		}
		s := cosine(q, v)
		cands = addCandidate(cands, Candidate{Verb: r.verbs[r.names[i].verb].name, Name: r.names[i].key, Tier: TierSemantic, Score: s})
	}
	sortCandidates(cands)
	if len(cands) == 0 || cands[0].Score < r.opts.SemanticThreshold {
		return Result{Input: token}, nil
	}
	if len(cands) > 1 && cands[0].Score-cands[1].Score < r.opts.SemanticMargin {
		return Result{Input: token, Code: codes.AmbiguousVerb, Candidates: r.trim(cands)}, nil
	}
	c := cands[0]
	return Result{Input: token, Verb: c.Verb, Name: c.Name, Tier: TierSemantic, Score: c.Score}, nil
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}
