package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTemp(t *testing.T) Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestBlocksAndVersions(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
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
	boom := errors.New("patch does not apply")
	if _, err := s.Update(ctx, Archival, "project_notes", "patch", func(string, bool) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Fatalf("failing edit: %v", err)
	}
	if got, _ := s.Get(ctx, Archival, "project_notes"); got.Version != 2 || got.Content != b.Content {
		t.Errorf("a failed edit changed the block: %+v", got)
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
	if strings.Join(ops, " ") != "1:replace 2:append 3:delete" {
		t.Errorf("history = %v", ops)
	}
	if err := s.Delete(ctx, Archival, "project_notes"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if _, err := Put(ctx, s, Working, "bad\nname", "x"); err == nil {
		t.Error("a name with a newline was accepted")
	}
}

func TestInsertSearchMove(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	a, _ := s.Insert(ctx, Archival, "Ana prefers meetings on Tuesdays")
	b, _ := s.Insert(ctx, Archival, "The budget review is due next week")
	if a.Name == b.Name || !strings.HasPrefix(a.Name, "memory-") {
		t.Fatalf("insert names: %q %q", a.Name, b.Name)
	}
	Put(ctx, s, Working, "human", "Name: Ana")
	hits, err := s.Search(ctx, Archival, `budget AND "review" OR NEAR(`, SearchOptions{})
	if err != nil {
		t.Fatalf("operators in the query must be harmless: %v", err)
	}
	if len(hits) != 1 || hits[0].Name != b.Name || !strings.Contains(hits[0].Snippet, "[budget]") {
		t.Errorf("search budget = %+v", hits)
	}
	hits, _ = s.Search(ctx, "", "ana", SearchOptions{})
	if len(hits) != 2 {
		t.Errorf("search across kinds found %d, want 2 (archival and working)", len(hits))
	}
	if hits, _ := s.Search(ctx, Archival, "budget", SearchOptions{Since: time.Now().Add(time.Hour)}); len(hits) != 0 {
		t.Errorf("since in the future found %d", len(hits))
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
}

func TestMessagesAndOutputs(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	old := time.Now().Add(-30 * 24 * time.Hour)
	s.LogMessage(ctx, Message{Session: "s1", Role: "user", Content: "what about the budget?", At: old})
	s.LogMessage(ctx, Message{Session: "s1", Role: "assistant", Content: "The budget is 5k."})
	hits, _ := s.SearchMessages(ctx, "budget", MessageQuery{Role: "assistant"})
	if len(hits) != 1 || hits[0].Role != "assistant" {
		t.Errorf("role filter: %+v", hits)
	}
	hits, _ = s.SearchMessages(ctx, "budget", MessageQuery{Before: time.Now().Add(-14 * 24 * time.Hour)})
	if len(hits) != 1 || hits[0].Role != "user" {
		t.Errorf("older than two weeks: %+v", hits)
	}
	if _, err := s.LastOutput(ctx, "s1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("LastOutput with none: %v", err)
	}
	s.RecordOutput(ctx, Output{Session: "s1", Verb: "calc", Status: "ok", Output: "70"})
	s.RecordOutput(ctx, Output{Session: "s2", Verb: "calc", Status: "ok", Output: "1"})
	if o, err := s.LastOutput(ctx, "s1"); err != nil || o.Output != "70" {
		t.Errorf("LastOutput = %+v, %v", o, err)
	}
}

func TestPendingDecidedOnce(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
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

// TestConcurrentProcessesLoseNothing runs 8 processes (this test binary
// re-executed) appending to the same blocks of one file at once.
func TestConcurrentProcessesLoseNothing(t *testing.T) {
	if os.Getenv("STORE_CHILD") != "" {
		t.Skip("child")
	}
	const procs, each = 8, 25
	path := filepath.Join(t.TempDir(), "shared.db")
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestChildWriter$")
		cmds[i].Env = append(os.Environ(), "STORE_CHILD="+path, "STORE_CHILD_ID="+strconv.Itoa(i), "STORE_CHILD_N="+strconv.Itoa(each))
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := s.Get(context.Background(), Archival, "log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.Content, "\n")
	if len(lines) != procs*each || b.Version != procs*each {
		t.Errorf("log has %d lines at version %d, want %d", len(lines), b.Version, procs*each)
	}
	names, _ := s.Names(context.Background(), Archival)
	if len(names) != 1+procs*each {
		t.Errorf("%d blocks, want %d", len(names), 1+procs*each)
	}
}

func TestChildWriter(t *testing.T) {
	path := os.Getenv("STORE_CHILD")
	if path == "" {
		t.Skip("run by TestConcurrentProcessesLoseNothing")
	}
	id := os.Getenv("STORE_CHILD_ID")
	n, _ := strconv.Atoi(os.Getenv("STORE_CHILD_N"))
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		if _, err := Append(ctx, s, Archival, "log", fmt.Sprintf("%s-%d", id, i)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Insert(ctx, Archival, fmt.Sprintf("entry %s-%d", id, i)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSessionState(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if v, err := s.State(ctx, "s", "k"); v != "" || err != nil {
		t.Fatalf("empty state = %q, %v", v, err)
	}
	s.SetState(ctx, "s", "k", "1")
	s.SetState(ctx, "s", "k", "2")
	s.SetState(ctx, "t", "k", "3")
	if v, _ := s.State(ctx, "s", "k"); v != "2" {
		t.Errorf("state = %q, want the latest", v)
	}
	s.SetState(ctx, "s", "k", "")
	if v, _ := s.State(ctx, "s", "k"); v != "" {
		t.Errorf("cleared state = %q", v)
	}
}
