package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/internal/pgtest"
)

// fillAll puts some of every kind of state into s.
func fillAll(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 130 { // more than one copy batch
		_, err := s.Insert(ctx, Archival, fmt.Sprintf("entry %d about the budget", i))
		must(err)
	}
	_, err := Put(ctx, s, Working, "human", "Name: Ana")
	must(err)
	_, err = Append(ctx, s, Working, "human", "Likes: tea — ünïcödé, 'quotes' and \"double\" ?")
	must(err)
	_, err = Put(ctx, s, Archival, "gone", "deleted later")
	must(err)
	must(s.Delete(ctx, Archival, "gone"))
	_, err = s.LogMessage(ctx, Message{Session: "s1", Role: "user", Content: "what about the budget?"})
	must(err)
	must(s.RecordOutput(ctx, Output{Session: "s1", Verb: "calc", Status: "ok", Output: "70"}))
	must(s.SetState(ctx, "s1", "cursor", "42"))
	id, err := s.Enqueue(ctx, Pending{Agent: "a", Verb: "post", Target: "bluesky", Intent: "{}", Raw: "/post hi !", Why: "marker"})
	must(err)
	_, err = s.Decide(ctx, id, StatusApproved, "owner", "ok")
	must(err)
	_, err = s.Enqueue(ctx, Pending{Agent: "a", Verb: "post", Intent: "{}", Raw: "/post again !"})
	must(err)
	_, err = s.SaveRule(ctx, Rule{Agent: "*", Verb: "post", Op: "*", Target: "*", Args: "to:* ?x", Decision: Deny, Note: "not now", By: "owner"})
	must(err)
	_, err = s.Apply(ctx, Change{Kind: Archival, Name: "tagged", Op: "create", Agent: "scout", Tags: []string{"q3", "budget"}, Project: "atlas", Edit: func(string, bool) (string, error) { return "labelled", nil }})
	must(err)
	var fs []failures.Failure
	for i := range 250 {
		fs = append(fs, failures.Failure{Code: codes.UnknownVerb, Token: "serch", Raw: fmt.Sprint("/serch ", i), Model: "m",
			Detail: failures.UnknownVerbDetail{Attempted: "serch", NearMiss: "search"}, Candidates: []failures.Candidate{{Verb: "search", Score: 0.9}}})
	}
	must(s.Failures().RecordBatch(ctx, fs))
	must(s.Failures().RecordSuccess(ctx, "m", 7))
}

// dump is every row of every copied table, as text, in key order.
func dump(t *testing.T, s Store) map[string][]string {
	t.Helper()
	st := s.(*sqlStore)
	out := map[string][]string{}
	for _, tb := range copyTables {
		rows, err := st.query(context.Background(), `SELECT `+strings.Join(tb.cols, ", ")+` FROM `+tb.name+` ORDER BY `+strings.Join(tb.key, ", "))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			vals := make([]any, len(tb.cols))
			ptrs := make([]any, len(vals))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					vals[i] = string(b)
				}
			}
			out[tb.name] = append(out[tb.name], fmt.Sprintf("%q", vals))
		}
		rows.Close()
	}
	return out
}

// destinations are the stores a copy goes to: a SQLite file always, and a
// PostgreSQL schema when there is a server.
func copyLocations(t *testing.T) []string {
	locs := []string{filepath.Join(t.TempDir(), "a.db"), filepath.Join(t.TempDir(), "b.db")}
	if pgtest.Available() {
		locs[1] = pgtest.Location(t)
	}
	return locs
}

// TestCopyRoundTrip copies SQLite → PostgreSQL (another SQLite file
// without a server) → SQLite: every row arrives as it was, a second copy
// changes nothing, and the copy goes on working (new ids after the copied
// ones).
func TestCopyRoundTrip(t *testing.T) {
	ctx := context.Background()
	locs := copyLocations(t)
	src := openAt(t, locs[0])
	fillAll(t, src)
	mid := openAt(t, locs[1])
	back := openAt(t, filepath.Join(t.TempDir(), "back.db"))
	want := dump(t, src)

	for round := range 2 { // the second round is the idempotent re-run
		counts, err := Copy(ctx, mid, src)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, c := range counts {
			if c.From != c.To || c.From != int64(len(want[c.Table])) {
				t.Errorf("round %d: %+v, source has %d", round, c, len(want[c.Table]))
			}
		}
	}
	if _, err := Copy(ctx, back, mid); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Store{mid, back} {
		got := dump(t, s)
		for _, tb := range copyTables {
			if !slices.Equal(got[tb.name], want[tb.name]) {
				t.Errorf("%s: table %s differs after the copy:\n got %.300v\nwant %.300v", s.Location(), tb.name, got[tb.name], want[tb.name])
			}
		}
		// The copy is a working store: search finds copied blocks, new
		// rows get ids after the copied ones.
		if hits, err := s.Search(ctx, Archival, "budget", SearchOptions{Limit: 200}); err != nil || len(hits) != 130 {
			t.Errorf("%s: search after copy: %d hits, %v", s.Location(), len(hits), err)
		}
		if hits, _ := s.SearchMessages(ctx, "budget", MessageQuery{}); len(hits) != 1 {
			t.Errorf("%s: message search after copy: %d hits", s.Location(), len(hits))
		}
		b, err := s.Insert(ctx, Archival, "after the copy")
		if err != nil {
			t.Fatalf("%s: insert after copy: %v", s.Location(), err)
		}
		if id, err := s.Enqueue(ctx, Pending{Verb: "post", Intent: "{}", Raw: "/post x"}); err != nil || id != 3 {
			t.Errorf("%s: enqueue after copy: id %d, %v (want 3)", s.Location(), id, err)
		}
		if _, err := s.LogMessage(ctx, Message{Session: "s", Role: "user", Content: "x"}); err != nil {
			t.Errorf("%s: log message after copy: %v", s.Location(), err)
		}
		if b.ID <= 130 {
			t.Errorf("%s: new block got id %d, inside the copied ones", s.Location(), b.ID)
		}
		if n, _ := s.Failures().Count(ctx, failures.Filter{}); n != 250 {
			t.Errorf("%s: %d failures", s.Location(), n)
		}
	}
}

// TestCopyRefusesOtherRows: a destination holding rows the source does
// not have is left as it was.
func TestCopyRefusesOtherRows(t *testing.T) {
	ctx := context.Background()
	locs := copyLocations(t)
	src := openAt(t, locs[0])
	fillAll(t, src)
	dst := openAt(t, locs[1])
	Put(ctx, dst, Working, "mine", "kept")
	dst.Failures().RecordSuccess(ctx, "other-model", 1)
	before := dump(t, dst)
	_, err := Copy(ctx, dst, src)
	if !errors.Is(err, ErrCopyMismatch) && !strings.Contains(fmt.Sprint(err), "unique") && !strings.Contains(fmt.Sprint(err), "UNIQUE") {
		t.Fatalf("copy into a store with other rows: %v", err)
	}
	after := dump(t, dst)
	for _, tb := range copyTables {
		if !slices.Equal(before[tb.name], after[tb.name]) {
			t.Errorf("table %s changed by a refused copy", tb.name)
		}
	}
	if _, err := Copy(ctx, src, src); err == nil {
		t.Error("a copy onto itself was accepted")
	}
}

// TestCopyCoversSchema fails when a table or column of the schema is not
// in copyTables, so that a new migration cannot leave state behind in a
// copy.
func TestCopyCoversSchema(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, s Store, tablesSQL, colsSQL string) {
		st := s.(*sqlStore)
		rows, err := st.query(ctx, tablesSQL)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for rows.Next() {
			var n string
			rows.Scan(&n)
			names = append(names, n)
		}
		rows.Close()
		var want []string
		for _, tb := range copyTables {
			want = append(want, tb.name)
			var cols []string
			rows, err := st.query(ctx, colsSQL, tb.name)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var c string
				rows.Scan(&c)
				cols = append(cols, c)
			}
			rows.Close()
			slices.Sort(cols)
			have := slices.Sorted(slices.Values(tb.cols))
			if !slices.Equal(cols, have) {
				t.Errorf("table %s has columns %v, copyTables lists %v", tb.name, cols, have)
			}
		}
		slices.Sort(names)
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("schema tables %v, copyTables %v", names, want)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		check(t, openAt(t, filepath.Join(t.TempDir(), "d.db")),
			`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_fts%' AND name <> 'dialect_migrations'`,
			`SELECT name FROM pragma_table_info(?)`)
	})
	t.Run("postgres", func(t *testing.T) {
		check(t, openAt(t, pgtest.Location(t)),
			`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name <> 'dialect_migrations'`,
			`SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER'`)
	})
}
