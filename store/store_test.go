package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/internal/pgtest"
)

// backends are the stores the conformance suite runs on; each gives a new,
// empty location. Without $DIALECT_TEST_POSTGRES the postgres subtests
// are skipped (.ci/run sets it and fails if they are).
var backends = []struct {
	name     string
	location func(t testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "d.db") }},
	{"postgres", pgtest.Location},
}

// conformance is what every Store does, whatever keeps it: each test runs
// once per backend, on a fresh store. A test added here covers them all.
var conformance = []struct {
	name string
	test func(t *testing.T, s Store)
}{
	{"BlocksAndVersions", testBlocksAndVersions},
	{"HistoriesApart", testHistoriesApart},
	{"InsertSearchMove", testInsertSearchMove},
	{"SearchRanking", testSearchRanking},
	{"MessagesAndOutputs", testMessagesAndOutputs},
	{"PendingDecidedOnce", testPendingDecidedOnce},
	{"PendingLifecycle", testPendingLifecycle},
	{"SessionState", testSessionState},
	{"ConcurrentAppends", testConcurrentAppends},
	{"FailureLog", testFailureLog},
	{"TextCleaned", testTextCleaned},
	{"VersionsGoOnAfterDeletion", testVersionsGoOnAfterDeletion},
	{"InsertNeverReusesAName", testInsertNeverReusesAName},
	{"Labels", testLabels},
	{"SearchFilters", testSearchFilters},
	{"MessageFilters", testMessageFilters},
	{"Restore", testRestore},
	{"Rules", testRules},
	{"RulePrecedence", testRulePrecedence},
}

func TestConformance(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, c := range conformance {
				t.Run(c.name, func(t *testing.T) {
					c.test(t, openAt(t, b.location(t)))
				})
			}
		})
	}
}

func openAt(t testing.TB, location string) Store {
	t.Helper()
	s, err := Open(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func testBlocksAndVersions(t *testing.T, s Store) {
	ctx := context.Background()
	if _, err := s.Get(ctx, Archival, "notes"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing block: %v", err)
	}
	if _, err := Put(ctx, s, Archival, "project_notes", "deadline is friday"); err != nil {
		t.Fatal(err)
	}
	b, err := Append(ctx, s, Archival, "project_notes", "budget approved")
	if err != nil {
		t.Fatal(err)
	}
	if b.Content != "deadline is friday\nbudget approved" || b.Version != 2 {
		t.Errorf("after append: %+v", b)
	}
	if got, _ := s.Get(ctx, Archival, "project_notes"); got.ID != b.ID || got.Version != 2 || got.Content != b.Content || got.Created.IsZero() || got.Updated.Before(got.Created) {
		t.Errorf("Get = %+v, want %+v", got, b)
	}
	boom := errors.New("patch does not apply")
	if _, err := s.Update(ctx, Archival, "project_notes", "patch", func(string, bool) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Fatalf("failing edit: %v", err)
	}
	if got, _ := s.Get(ctx, Archival, "project_notes"); got.Version != 2 || got.Content != b.Content {
		t.Errorf("a failed edit changed the block: %+v", got)
	}
	Put(ctx, s, Working, "project_notes", "same name, other kind")
	if names, _ := s.Names(ctx, Archival); fmt.Sprint(names) != "[project_notes]" {
		t.Errorf("archival names = %v", names)
	}
	if err := s.Delete(ctx, Archival, "project_notes"); err != nil {
		t.Fatal(err)
	}
	hist, err := s.History(ctx, Archival, "project_notes")
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, v := range hist {
		ops = append(ops, fmt.Sprintf("%d:%s", v.Version, v.Op))
	}
	if strings.Join(ops, " ") != "1:replace 2:append 3:delete" || hist[2].Content != b.Content {
		t.Errorf("history = %v", ops)
	}
	if err := s.Delete(ctx, Archival, "project_notes"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if got, err := s.Get(ctx, Working, "project_notes"); err != nil || got.Content != "same name, other kind" {
		t.Errorf("the working block of that name: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "bad\nname", strings.Repeat("x", 201)} {
		if _, err := Put(ctx, s, Working, bad, "x"); err == nil {
			t.Errorf("name %q was accepted", bad)
		}
	}
	blocks, _ := s.Blocks(ctx, Working)
	if len(blocks) != 1 {
		t.Errorf("working blocks = %+v", blocks)
	}
}

// testHistoriesApart: a block created after the newest one was deleted
// (whose id SQLite may give again) has a history of its own, and the
// deleted block keeps its own.
func testHistoriesApart(t *testing.T, s Store) {
	ctx := context.Background()
	_, err := Put(ctx, s, Archival, "a", "first")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, Archival, "a"); err != nil {
		t.Fatal(err)
	}
	b, err := Put(ctx, s, Archival, "b", "second")
	if err != nil {
		t.Fatalf("create after deleting the newest block: %v", err)
	}
	ha, _ := s.History(ctx, Archival, "a")
	hb, _ := s.History(ctx, Archival, "b")
	if len(ha) != 2 || len(hb) != 1 || hb[0].Content != "second" {
		t.Errorf("histories: a %+v, b %+v", ha, hb)
	}
	if c, err := s.Insert(ctx, Archival, "third"); err != nil || c.ID == b.ID {
		t.Errorf("Insert = %+v, %v", c, err)
	}
}

func testInsertSearchMove(t *testing.T, s Store) {
	ctx := context.Background()
	a, _ := s.Insert(ctx, Archival, "Ana prefers meetings on Tuesdays")
	b, _ := s.Insert(ctx, Archival, "The budget review is due next week")
	if a.Name == b.Name || !strings.HasPrefix(a.Name, "memory-") {
		t.Fatalf("insert names: %q %q", a.Name, b.Name)
	}
	Put(ctx, s, Working, "human", "Name: Ana")
	hits, err := s.Search(ctx, Archival, `budget AND "review" OR NEAR( & | ! <-> :* '`, SearchOptions{})
	if err != nil {
		t.Fatalf("operators in the query must be harmless: %v", err)
	}
	if len(hits) != 1 || hits[0].Name != b.Name || !strings.Contains(hits[0].Snippet, "[budget]") {
		t.Errorf("search budget = %+v", hits)
	}
	if hits, _ := s.Search(ctx, Archival, "meeting", SearchOptions{}); len(hits) != 1 || hits[0].Name != a.Name {
		t.Errorf("stemmed search (meeting → meetings) = %+v", hits)
	}
	if hits, _ := s.Search(ctx, Archival, "the", SearchOptions{}); len(hits) != 1 || hits[0].Name != b.Name {
		t.Errorf("a common word is searchable like any other: %+v", hits)
	}
	hits, _ = s.Search(ctx, "", "ana", SearchOptions{})
	if len(hits) != 2 {
		t.Errorf("search across kinds found %d, want 2 (archival and working)", len(hits))
	}
	if hits, _ := s.Search(ctx, Working, "ana", SearchOptions{}); len(hits) != 1 || hits[0].Kind != Working {
		t.Errorf("kind filter: %+v", hits)
	}
	if hits, _ := s.Search(ctx, Archival, "budget", SearchOptions{Since: time.Now().Add(time.Hour)}); len(hits) != 0 {
		t.Errorf("since in the future found %d", len(hits))
	}
	if hits, _ := s.Search(ctx, Archival, "budget", SearchOptions{Before: time.Now().Add(-time.Hour)}); len(hits) != 0 {
		t.Errorf("before an hour ago found %d", len(hits))
	}
	if hits, _ := s.Search(ctx, Archival, "budget", SearchOptions{Before: time.Now().Add(time.Hour)}); len(hits) != 1 {
		t.Errorf("before an hour from now found %d", len(hits))
	}
	if hits, err := s.Search(ctx, Archival, " ?! ", SearchOptions{}); hits != nil || err != nil {
		t.Errorf("a query without words: %v, %v", hits, err)
	}
	if _, err := Move(ctx, s, Working, "human", Archival, "human-2026", false, "scout"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, Working, "human"); !errors.Is(err, ErrNotFound) {
		t.Error("archive left the working block")
	}
	if got, _ := s.Get(ctx, Archival, "human-2026"); got.Content != "Name: Ana" {
		t.Errorf("archived = %+v", got)
	}
	if hits, _ := s.Search(ctx, Working, "ana", SearchOptions{}); len(hits) != 0 {
		t.Errorf("the index kept a moved block: %+v", hits)
	}
}

// testSearchRanking: more matching words rank higher, a match in the name
// outranks one in the content, the limit holds, and an updated block is
// found by its new content only.
func testSearchRanking(t *testing.T, s Store) {
	ctx := context.Background()
	Put(ctx, s, Archival, "garden", "tomatoes need water daily")
	Put(ctx, s, Archival, "chores", "water the garden and feed the cat")
	Put(ctx, s, Archival, "misc", "the cat sleeps")
	for i := range 15 {
		Put(ctx, s, Archival, fmt.Sprintf("filler-%02d", i), fmt.Sprintf("note %d about water", i))
	}
	hits, err := s.Search(ctx, Archival, "garden cat water", SearchOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, h := range hits {
		names = append(names, h.Name)
		if i > 0 && h.Score < hits[i-1].Score {
			t.Errorf("scores not ascending: %+v", hits)
		}
	}
	if len(hits) != 3 || hits[0].Name != "chores" || hits[1].Name != "garden" {
		t.Errorf("ranking = %v, want chores (three words) then garden (name and content)", names)
	}
	if hits, _ := s.Search(ctx, Archival, "garden", SearchOptions{}); len(hits) != 2 || hits[0].Name != "garden" {
		t.Errorf("a match in the name should outrank one in the content: %+v", hits)
	}
	if hits, _ := s.Search(ctx, Archival, "water", SearchOptions{}); len(hits) != 10 {
		t.Errorf("default limit: %d hits, want 10", len(hits))
	}
	Put(ctx, s, Archival, "misc", "the dog barks")
	if hits, _ := s.Search(ctx, Archival, "sleeps", SearchOptions{}); len(hits) != 0 {
		t.Errorf("old content still found: %+v", hits)
	}
	if hits, _ := s.Search(ctx, Archival, "barks", SearchOptions{}); len(hits) != 1 || !strings.Contains(hits[0].Snippet, "[barks]") {
		t.Errorf("new content: %+v", hits)
	}
}

func testMessagesAndOutputs(t *testing.T, s Store) {
	ctx := context.Background()
	old := time.Now().Add(-30 * 24 * time.Hour)
	id1, err := s.LogMessage(ctx, Message{Session: "s1", Role: "user", Content: "what about the budget?", At: old})
	if err != nil {
		t.Fatal(err)
	}
	id2, _ := s.LogMessage(ctx, Message{Session: "s1", Role: "assistant", Agent: "a", Model: "m", Content: "The budget is 5k."})
	s.LogMessage(ctx, Message{Session: "s2", Role: "assistant", Content: "budget talk elsewhere"})
	if id2 <= id1 {
		t.Errorf("message ids %d then %d", id1, id2)
	}
	hits, _ := s.SearchMessages(ctx, "budget", MessageQuery{Role: "assistant", Session: "s1"})
	if len(hits) != 1 || hits[0].ID != id2 || hits[0].Model != "m" || !strings.Contains(hits[0].Snippet, "[budget]") {
		t.Errorf("role and session filter: %+v", hits)
	}
	hits, _ = s.SearchMessages(ctx, "budget", MessageQuery{Before: time.Now().Add(-14 * 24 * time.Hour)})
	if len(hits) != 1 || hits[0].Role != "user" || hits[0].At.UnixMilli() != old.UnixMilli() {
		t.Errorf("older than two weeks: %+v", hits)
	}
	if hits, _ := s.SearchMessages(ctx, "budget", MessageQuery{Since: time.Now().Add(-time.Hour)}); len(hits) != 2 {
		t.Errorf("since an hour ago: %d hits", len(hits))
	}
	if m, err := s.LastMessage(ctx, "s1", "user"); err != nil || m.ID != id1 {
		t.Errorf("LastMessage(user) = %+v, %v", m, err)
	}
	if m, err := s.LastMessage(ctx, "s1", ""); err != nil || m.ID != id2 {
		t.Errorf("LastMessage = %+v, %v", m, err)
	}
	if _, err := s.LastMessage(ctx, "nobody", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("LastMessage of an empty session: %v", err)
	}
	if _, err := s.LastOutput(ctx, "s1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("LastOutput with none: %v", err)
	}
	s.RecordOutput(ctx, Output{Session: "s1", Verb: "calc", Status: "ok", Output: "70"})
	s.RecordOutput(ctx, Output{Session: "s2", Verb: "calc", Status: "ok", Output: "1"})
	if o, err := s.LastOutput(ctx, "s1"); err != nil || o.Output != "70" || o.Verb != "calc" {
		t.Errorf("LastOutput = %+v, %v", o, err)
	}
}

func testPendingDecidedOnce(t *testing.T, s Store) {
	ctx := context.Background()
	id, err := s.Enqueue(ctx, Pending{Agent: "a", Verb: "post", Intent: `{"kind":"send"}`, Raw: "/post hi !", Why: "marker !"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Decide(ctx, id, StatusApproved, fmt.Sprint("approver", i), "")
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				won++
			} else if !errors.Is(err, ErrDecided) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Errorf("%d approvers won, want exactly 1", won)
	}
	if list, _ := s.PendingList(ctx, StatusPending); len(list) != 0 {
		t.Errorf("queue still holds %d", len(list))
	}
	if _, err := s.Decide(ctx, 999, StatusDenied, "x", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("deciding a missing id: %v", err)
	}
}

func testPendingLifecycle(t *testing.T, s Store) {
	ctx := context.Background()
	p := Pending{Agent: "scout", Model: "m", Session: "s", Verb: "post", Target: "bluesky", Intent: `{}`, Raw: "/post x", Why: "target"}
	id1, _ := s.Enqueue(ctx, p)
	id2, _ := s.Enqueue(ctx, p)
	got, err := s.GetPending(ctx, id1)
	if err != nil || got.Status != StatusPending || got.Target != "bluesky" || got.Agent != "scout" || !got.DecidedAt.IsZero() || got.Created.IsZero() {
		t.Errorf("GetPending = %+v, %v", got, err)
	}
	d, err := s.Decide(ctx, id1, StatusDenied, "owner", "not today")
	if err != nil || d.Status != StatusDenied || d.DecidedBy != "owner" || d.Note != "not today" || d.DecidedAt.IsZero() {
		t.Errorf("Decide = %+v, %v", d, err)
	}
	if _, err := s.Decide(ctx, id1, StatusApproved, "other", ""); !errors.Is(err, ErrDecided) {
		t.Errorf("second decision: %v", err)
	}
	s.Decide(ctx, id2, StatusApproved, "owner", "")
	if err := s.SetResult(ctx, id2, "posted"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetPending(ctx, id2); got.Result != "posted" || got.Status != StatusApproved {
		t.Errorf("after SetResult: %+v", got)
	}
	all, _ := s.PendingList(ctx, "")
	denied, _ := s.PendingList(ctx, StatusDenied)
	if len(all) != 2 || all[0].ID != id1 || len(denied) != 1 || denied[0].ID != id1 {
		t.Errorf("lists: all %d, denied %+v", len(all), denied)
	}
	if _, err := s.GetPending(ctx, 12345); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetPending of a missing id: %v", err)
	}
}

func testSessionState(t *testing.T, s Store) {
	ctx := context.Background()
	if v, err := s.State(ctx, "s", "k"); v != "" || err != nil {
		t.Fatalf("empty state = %q, %v", v, err)
	}
	s.SetState(ctx, "s", "k", "1")
	s.SetState(ctx, "s", "k", "2")
	s.SetState(ctx, "t", "k", "3")
	if v, _ := s.State(ctx, "s", "k"); v != "2" {
		t.Errorf("state = %q, want the latest", v)
	}
	if v, _ := s.State(ctx, "t", "k"); v != "3" {
		t.Errorf("other session's state = %q", v)
	}
	s.SetState(ctx, "s", "k", "")
	if v, _ := s.State(ctx, "s", "k"); v != "" {
		t.Errorf("cleared state = %q", v)
	}
}

// testConcurrentAppends appends to one block and inserts from many
// goroutines of one process (TestConcurrentProcesses does it from many
// processes).
func testConcurrentAppends(t *testing.T, s Store) {
	ctx := context.Background()
	const workers, each = 6, 15
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := Append(ctx, s, Working, "log", fmt.Sprintf("%d-%d", w, i)); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Insert(ctx, Archival, "x"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b, _ := s.Get(ctx, Working, "log")
	if n := len(strings.Split(b.Content, "\n")); n != workers*each || b.Version != workers*each {
		t.Errorf("%d lines at version %d, want %d", n, b.Version, workers*each)
	}
	if names, _ := s.Names(ctx, Archival); len(names) != workers*each {
		t.Errorf("%d inserted blocks, want %d", len(names), workers*each)
	}
}

// testFailureLog: the store keeps the failure log in the same database.
func testFailureLog(t *testing.T, s Store) {
	ctx := context.Background()
	l := s.Failures()
	if err := l.RecordSuccess(ctx, "m", 3); err != nil {
		t.Fatal(err)
	}
	stats, err := l.ModelStats(ctx, time.Now().Add(-time.Hour))
	if err != nil || len(stats) != 1 || stats[0].Successes != 3 {
		t.Errorf("ModelStats = %+v, %v", stats, err)
	}
}

// testTextCleaned: text that is not valid UTF-8, or holds NUL, is kept
// with U+FFFD in their place, on every backend (PostgreSQL refuses both).
func testTextCleaned(t *testing.T, s Store) {
	ctx := context.Background()
	const want = "budget\uFFFDa\uFFFDb"
	b, err := Put(ctx, s, Archival, "bytes", "budget\x00a\xffb")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, Archival, "bytes"); got.Content != want {
		t.Errorf("stored %q, want %q (Put returned %q)", got.Content, want, b.Content)
	}
	if _, err := s.LogMessage(ctx, Message{Session: "s\x00", Role: "user", Content: "\xfe\x00budget"}); err != nil {
		t.Fatal(err)
	}
	if m, err := s.LastMessage(ctx, "s\x00", ""); err != nil || m.Content != "\uFFFD\uFFFDbudget" || m.Session != "s\uFFFD" {
		t.Errorf("message: %+v, %v", m, err)
	}
	if hits, err := s.Search(ctx, "", "budget\x00\xff", SearchOptions{}); err != nil || len(hits) != 1 {
		t.Errorf("search: %v, %v", hits, err)
	}
	if err := s.SetState(ctx, "s", "k", "v\x00"); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.State(ctx, "s", "k"); v != "v\uFFFD" {
		t.Errorf("state %q", v)
	}
	if _, err := s.Failures().Record(ctx, failures.Failure{Code: codes.UnknownVerb, Token: "x\x00", Raw: "/x\x00 \xff"}); err != nil {
		t.Errorf("failure with NUL and invalid UTF-8: %v", err)
	}
}
