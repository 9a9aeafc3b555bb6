package failures

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
)

// fixedNow is "now" in the fixture tests.
var fixedNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func openTest(t testing.TB) *Log {
	t.Helper()
	l, err := Open(context.Background(), filepath.Join(t.TempDir(), "dialect.db"), WithClock(func() time.Time { return fixedNow }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Log
}

// fixtureLine is one line of testdata/*.jsonl: n copies of a failure one
// minute apart, or n successes of a model.
type fixtureLine struct {
	N       int             `json:"n"`
	Time    time.Time       `json:"time"`
	Success string          `json:"success"`
	Code    codes.Code      `json:"code"`
	Token   string          `json:"token"`
	Verb    string          `json:"verb"`
	Model   string          `json:"model"`
	Agent   string          `json:"agent"`
	Raw     string          `json:"raw"`
	Context string          `json:"context"`
	Detail  json.RawMessage `json:"detail"`
}

func loadFixture(t testing.TB, l *Log, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	var batch []Failure
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var fl fixtureLine
		if err := json.Unmarshal(sc.Bytes(), &fl); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if fl.Success != "" {
			if err := l.RecordSuccessAt(ctx, fl.Success, fl.Time, fl.N); err != nil {
				t.Fatal(err)
			}
			continue
		}
		d, err := decodeDetail(fl.Code, fl.Detail)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		for i := 0; i < fl.N; i++ {
			batch = append(batch, Failure{Time: fl.Time.Add(time.Duration(i) * time.Minute), Code: fl.Code,
				Token: fl.Token, Verb: fl.Verb, Model: fl.Model, Agent: fl.Agent, Raw: fl.Raw, Context: fl.Context, Detail: d})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := l.RecordBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *Log) {
		ctx := context.Background()
		in := Failure{
			Time: time.Date(2026, 11, 20, 10, 30, 0, 0, time.UTC), Raw: "/serch deadlines", Token: "serch",
			Agent: "pattern", Model: "m1", Session: "s1", Context: "Let me look.",
			Detail:     UnknownVerbDetail{Attempted: "serch"},
			Candidates: []Candidate{{Verb: "search", Score: 0.8, Tier: "edit"}},
		}
		id, err := l.Record(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.ByModel(ctx, "m1", 10)
		if err != nil || len(got) != 1 {
			t.Fatalf("ByModel: %v, %d rows", err, len(got))
		}
		in.ID, in.Code = id, codes.UnknownVerb
		if !reflect.DeepEqual(got[0], in) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got[0], in)
		}
		// Every known detail type survives the JSON round trip as itself.
		details := []Detail{
			AmbiguousVerbDetail{"pst", []string{"post", "reply"}}, AmbiguousArgsDetail{"recall", "notes", []string{"a", "b"}},
			MissingArgDetail{"fetch", "url"}, MalformedSyntaxDetail{"recall", "unterminated quote", 14},
			UnknownModifierDetail{"search", "archivs", []string{"archival"}}, InvalidReferenceDetail{"@last.output", nil},
			PermissionMarkerInvalidDetail{"?akc"}, PermissionDeniedDetail{"halt", "no authority"},
			PendingApprovalDetail{"post", "anchor", "12"}, InputTooLargeDetail{70000, 65536},
			MixedScriptDetail{"sеarch", []string{"Latin", "Cyrillic"}}, BannedKeyDetail{"__proto__"},
		}
		for _, d := range details {
			if _, err := l.Record(ctx, Failure{Raw: "/x", Detail: d, Model: "m2"}); err != nil {
				t.Fatalf("%T: %v", d, err)
			}
		}
		rows, err := l.ByModel(ctx, "m2", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(details) {
			t.Fatalf("got %d rows, want %d", len(rows), len(details))
		}
		for i, r := range rows { // newest first
			want := details[len(details)-1-i]
			if !reflect.DeepEqual(r.Detail, want) || r.Code != want.Code() {
				t.Errorf("row %d: got %#v (%s), want %#v", i, r.Detail, r.Code, want)
			}
		}
	})
}

func TestRecordInvalid(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *Log) {
		ctx := context.Background()
		cases := map[string]Failure{
			"no code":       {Raw: "/x"},
			"bad code":      {Raw: "/x", Code: "unknown verb"},
			"empty raw":     {Code: codes.UnknownVerb, Raw: "  "},
			"code mismatch": {Code: codes.MissingArg, Raw: "/x", Detail: UnknownVerbDetail{Attempted: "x"}},
		}
		for name, f := range cases {
			t.Run(name, func(t *testing.T) {
				_, err := l.Record(ctx, f)
				var ie *InvalidError
				if !errors.Is(err, ErrInvalid) || !errors.As(err, &ie) {
					t.Fatalf("got %v, want an *InvalidError", err)
				}
			})
		}
		// A batch with one bad row records nothing.
		batch := []Failure{{Code: codes.UnknownVerb, Raw: "/a"}, {Code: codes.UnknownVerb, Raw: "/b"}, {Raw: "/c"}}
		err := l.RecordBatch(ctx, batch)
		var ie *InvalidError
		if !errors.As(err, &ie) || ie.Index != 2 {
			t.Fatalf("got %v, want row 2 rejected", err)
		}
		if n, _ := l.Count(ctx, Filter{}); n != 0 {
			t.Errorf("%d rows recorded from a rejected batch", n)
		}
	})
}

func TestRecordCleansText(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *Log) {
		ctx := context.Background()
		long := make([]byte, MaxRaw*3)
		for i := range long {
			long[i] = 'a'
		}
		if _, err := l.Record(ctx, Failure{Code: codes.InputTooLarge, Raw: string(long) + "\xff", Detail: InputTooLargeDetail{len(long), 65536}}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Record(ctx, Failure{Code: codes.UnknownVerb, Raw: "/bad\xffutf8", Token: "bad"}); err != nil {
			t.Fatal(err)
		}
		var rows []Failure
		l.List(ctx, Filter{Oldest: true}, func(f Failure) error { rows = append(rows, f); return nil })
		if len(rows[0].Raw) > MaxRaw || rows[0].Raw[len(rows[0].Raw)-len("…"):] != "…" {
			t.Errorf("long raw kept %d bytes", len(rows[0].Raw))
		}
		if rows[1].Raw != "/bad\uFFFDutf8" {
			t.Errorf("invalid UTF-8 stored as %q", rows[1].Raw)
		}
	})
}

func TestListFilters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *Log) {
		loadFixture(t, l, "testdata/week.jsonl")
		ctx := context.Background()
		since := time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC)
		cases := []struct {
			name string
			f    Filter
			want int64
		}{
			{"all", Filter{}, 38},
			{"since", Filter{Since: since}, 36},
			{"until", Filter{Until: since}, 2},
			{"code", Filter{Code: codes.MissingArg}, 4},
			{"model", Filter{Model: "gamma"}, 13},
			{"agent", Filter{Agent: "anchor"}, 12},
			{"verb", Filter{Verb: "fetch"}, 4},
			{"subject", Filter{Subject: "RETRIEVE", Code: codes.UnknownVerb}, 7},
			{"subject since", Filter{Subject: "retrieve", Since: since}, 5},
			{"model and code", Filter{Model: "beta", Code: codes.UnknownVerb}, 10},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				n, err := l.Count(ctx, c.f)
				if err != nil {
					t.Fatal(err)
				}
				if n != c.want {
					t.Errorf("Count = %d, want %d", n, c.want)
				}
				var listed int64
				c.f.Limit = 0
				l.List(ctx, c.f, func(Failure) error { listed++; return nil })
				if listed != c.want {
					t.Errorf("List gave %d rows, want %d", listed, c.want)
				}
			})
		}
		var got []Failure
		l.List(ctx, Filter{Limit: 3}, func(f Failure) error { got = append(got, f); return nil })
		if len(got) != 3 || got[0].Time.Before(got[1].Time) || got[1].Time.Before(got[2].Time) {
			t.Errorf("Limit 3 newest first: %v", got)
		}
	})
}

func TestFailureJSONRoundTrip(t *testing.T) {
	in := Failure{ID: 3, Time: fixedNow, Code: codes.UnknownModifier, Raw: "/search in archivs", Token: "search", Verb: "search",
		Detail: UnknownModifierDetail{"search", "archivs", []string{"archival"}}, Candidates: []Candidate{{"search", 1, "exact"}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Failure
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}
	if err := json.Unmarshal([]byte(`{"code":"MISSING_ARG","detail":{"arg":7}}`), &out); err == nil {
		t.Error("a detail of the wrong shape was accepted")
	}
}

func TestChunks(t *testing.T) {
	for n := 0; n < 1000; n++ {
		sum, prev := 0, 1<<31
		for _, k := range chunks(n, 200) {
			if k > prev || k <= 0 || k > 200 {
				t.Fatalf("chunks(%d) = %v", n, chunks(n, 200))
			}
			sum, prev = sum+k, k
		}
		if sum != n {
			t.Fatalf("chunks(%d) sums to %d", n, sum)
		}
	}
	// Batches of every size round-trip, whatever their chunks.
	forEachBackend(t, func(t *testing.T, l *Log) {
		ctx := context.Background()
		total := 0
		for _, n := range []int{1, 2, 3, 199, 200, 201, 457} {
			var fs []Failure
			for i := 0; i < n; i++ {
				fs = append(fs, Failure{Code: codes.UnknownVerb, Token: fmt.Sprint("t", i%5), Raw: fmt.Sprint("/t", i), Model: fmt.Sprint("m", i%3)})
			}
			if err := l.RecordBatch(ctx, fs); err != nil {
				t.Fatal(err)
			}
			total += n
		}
		if c, _ := l.Count(ctx, Filter{}); c != int64(total) {
			t.Errorf("%d rows, want %d", c, total)
		}
		ms, _ := l.ModelStats(ctx, fixedNow.Add(-time.Hour))
		sum := 0
		for _, m := range ms {
			sum += m.Failures
		}
		if sum != total {
			t.Errorf("roll-up counts %d, want %d", sum, total)
		}
	})
}
