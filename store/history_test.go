package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// These tests use only the Store interface and the package's helpers, so
// that every backend can run them.

func versionsOf(t *testing.T, s Store, kind Kind, name string) string {
	t.Helper()
	vs, err := s.History(context.Background(), kind, name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%d:%s:%s:%s", v.Version, v.Op, v.Agent, v.Content))
	}
	return strings.Join(out, " | ")
}

func testVersionsGoOnAfterDeletion(t *testing.T, s Store) {
	ctx := context.Background()
	put := func(op, agent, content string) Block {
		t.Helper()
		b, err := s.Apply(ctx, Change{Kind: Archival, Name: "plan", Op: op, Agent: agent,
			Edit: func(string, bool) (string, error) { return content, nil }})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	put("create", "scout", "a")
	put("replace", "scout", "b")
	if _, err := s.Apply(ctx, Change{Kind: Archival, Name: "plan", Op: "delete", Agent: "owner", Remove: true}); err != nil {
		t.Fatal(err)
	}
	b := put("create", "anchor", "c")
	if b.Version != 4 {
		t.Errorf("re-created block is at version %d, want 4 (numbers go on after a deletion)", b.Version)
	}
	if got, want := versionsOf(t, s, Archival, "plan"), "1:create:scout:a | 2:replace:scout:b | 3:delete:owner:b | 4:create:anchor:c"; got != want {
		t.Errorf("history\n got %s\nwant %s", got, want)
	}
	v, err := s.Version(ctx, Archival, "plan", 2)
	if err != nil || v.Content != "b" || v.Agent != "scout" {
		t.Errorf("Version 2 = %+v, %v", v, err)
	}
	if _, err := s.Version(ctx, Archival, "plan", 9); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing version: %v", err)
	}
	if _, err := s.Version(ctx, Working, "plan", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("the other kind's version: %v", err)
	}
	names, _ := s.HistoryNames(ctx, Archival)
	if !slices.Equal(names, []string{"plan"}) {
		t.Errorf("HistoryNames = %v", names)
	}
}

func testInsertNeverReusesAName(t *testing.T, s Store) {
	ctx := context.Background()
	a, _ := s.Insert(ctx, Archival, "first")
	if err := s.Delete(ctx, Archival, a.Name); err != nil {
		t.Fatal(err)
	}
	b, err := s.Insert(ctx, Archival, "second")
	if err != nil {
		t.Fatal(err)
	}
	if b.Name == a.Name || b.Version != 1 {
		t.Errorf("insert after deleting %s made %s v%d: a deleted block's name must stay its own", a.Name, b.Name, b.Version)
	}
}

func testLabels(t *testing.T, s Store) {
	ctx := context.Background()
	b, err := s.Apply(ctx, Change{Kind: Archival, Name: "notes", Op: "create", Agent: "scout",
		Tags: []string{"#Release", "work", "two words", "work"}, Project: "*Apollo",
		Edit: func(string, bool) (string, error) { return "x", nil }})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Tags, []string{"release", "work"}) || b.Project != "apollo" {
		t.Errorf("labels after create: %v %q", b.Tags, b.Project)
	}
	b, _ = s.Apply(ctx, Change{Kind: Archival, Name: "notes", Op: "append", Tags: []string{"q3"},
		Edit: func(old string, _ bool) (string, error) { return old + "y", nil }})
	if !slices.Equal(b.Tags, []string{"q3", "release", "work"}) || b.Project != "apollo" {
		t.Errorf("an append adds tags and keeps the project: %v %q", b.Tags, b.Project)
	}
	got, _ := s.Get(ctx, Archival, "notes")
	if !slices.Equal(got.Tags, b.Tags) || got.Project != "apollo" {
		t.Errorf("Get = %v %q", got.Tags, got.Project)
	}
	b, _ = s.Apply(ctx, Change{Kind: Archival, Name: "notes", Op: "restore v1", ExactLabels: true, Tags: []string{"only"},
		Edit: func(string, bool) (string, error) { return "x", nil }})
	if !slices.Equal(b.Tags, []string{"only"}) || b.Project != "" {
		t.Errorf("exact labels: %v %q", b.Tags, b.Project)
	}
	vs, _ := s.History(ctx, Archival, "notes")
	if len(vs) != 3 || !slices.Equal(vs[1].Tags, []string{"q3", "release", "work"}) || vs[1].Project != "apollo" {
		t.Errorf("the history keeps each version's labels: %+v", vs)
	}
}

func testSearchFilters(t *testing.T, s Store) {
	ctx := context.Background()
	write := func(kind Kind, name, content, project string, tags ...string) {
		t.Helper()
		if _, err := s.Apply(ctx, Change{Kind: kind, Name: name, Op: "create", Tags: tags, Project: project,
			Edit: func(string, bool) (string, error) { return content, nil }}); err != nil {
			t.Fatal(err)
		}
	}
	write(Archival, "a", "shipped the release", "apollo", "release", "q3")
	write(Archival, "b", "shipped the fix", "", "release")
	write(Archival, "c", "shipped nothing", "gemini")
	write(Working, "d", "shipped to staging", "apollo", "q3")
	names := func(hs []Hit) string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Name)
		}
		slices.Sort(out)
		return strings.Join(out, ",")
	}
	for _, tt := range []struct {
		name  string
		kind  Kind
		query string
		o     SearchOptions
		want  string
	}{
		{"no filter", Archival, "shipped", SearchOptions{}, "a,b,c"},
		{"one tag", Archival, "shipped", SearchOptions{Tags: []string{"release"}}, "a,b"},
		{"every tag", Archival, "shipped", SearchOptions{Tags: []string{"release", "Q3"}}, "a"},
		{"an absent tag", "", "shipped", SearchOptions{Tags: []string{"nothing"}}, ""},
		{"a tag is a whole word", "", "shipped", SearchOptions{Tags: []string{"rel"}}, ""},
		{"project", "", "shipped", SearchOptions{Project: "apollo"}, "a,d"},
		{"project and tag", "", "shipped", SearchOptions{Project: "apollo", Tags: []string{"release"}}, "a"},
		{"filters alone", "", "", SearchOptions{Tags: []string{"q3"}}, "a,d"},
		{"nothing at all", "", "", SearchOptions{}, "a,b,c,d"},
		{"limit", Archival, "", SearchOptions{Limit: 1}, "c"},
		{"since the future", "", "", SearchOptions{Since: time.Now().Add(time.Hour)}, ""},
		{"punctuation only", "", "?!", SearchOptions{}, ""},
	} {
		hs, err := s.Search(ctx, tt.kind, tt.query, tt.o)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := names(hs); got != tt.want {
			t.Errorf("%s: found %q, want %q", tt.name, got, tt.want)
		}
	}
	hs, _ := s.Search(ctx, Archival, "", SearchOptions{})
	if len(hs) != 3 || hs[0].Name != "c" || hs[0].Snippet != "shipped nothing" {
		t.Errorf("a listing is newest first with the start of the content: %+v", hs)
	}
}

func testMessageFilters(t *testing.T, s Store) {
	ctx := context.Background()
	s.LogMessage(ctx, Message{Session: "s", Role: "assistant", Content: "we shipped it", Tags: []string{"release"}, Project: "apollo"})
	s.LogMessage(ctx, Message{Session: "s", Role: "assistant", Content: "we shipped more", Tags: []string{"misc"}})
	for _, tt := range []struct {
		q     string
		mq    MessageQuery
		wantN int
	}{
		{"shipped", MessageQuery{}, 2},
		{"shipped", MessageQuery{Tags: []string{"release"}}, 1},
		{"shipped", MessageQuery{Tags: []string{"nothing"}}, 0},
		{"shipped", MessageQuery{Project: "apollo"}, 1},
		{"", MessageQuery{Tags: []string{"misc"}}, 1},
		{"", MessageQuery{Limit: 1}, 1},
	} {
		hs, err := s.SearchMessages(ctx, tt.q, tt.mq)
		if err != nil || len(hs) != tt.wantN {
			t.Errorf("SearchMessages(%q, %+v) = %d hits, %v; want %d", tt.q, tt.mq, len(hs), err, tt.wantN)
		}
	}
	m, _ := s.LastMessage(ctx, "s", "")
	if m.Content != "we shipped more" || !slices.Equal(m.Tags, []string{"misc"}) {
		t.Errorf("LastMessage = %+v", m)
	}
}

func testRestore(t *testing.T, s Store) {
	ctx := context.Background()
	s.Apply(ctx, Change{Kind: Archival, Name: "plan", Op: "create", Tags: []string{"draft"}, Edit: func(string, bool) (string, error) { return "one", nil }})
	Append(ctx, s, Archival, "plan", "two")
	b, err := Restore(ctx, s, Archival, "plan", 1, "owner", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Content != "one" || b.Version != 3 || !slices.Equal(b.Tags, []string{"draft"}) {
		t.Errorf("restored = %+v", b)
	}
	if got, want := versionsOf(t, s, Archival, "plan"), "1:create::one | 2:append::one\ntwo | 3:restore v1:owner:one"; got != want {
		t.Errorf("nothing is lost by a restore:\n got %q\nwant %q", got, want)
	}
	s.Delete(ctx, Archival, "plan")
	if b, err := Restore(ctx, s, Archival, "plan", 2, "owner", nil); err != nil || b.Content != "one\ntwo" || b.Version != 5 {
		t.Errorf("restoring a deleted block: %+v, %v", b, err)
	}
	tooBig := errors.New("too big")
	if _, err := Restore(ctx, s, Archival, "plan", 1, "owner", func(string) error { return tooBig }); !errors.Is(err, tooBig) {
		t.Errorf("a refused restore: %v", err)
	}
	if got, _ := s.Get(ctx, Archival, "plan"); got.Version != 5 {
		t.Errorf("a refused restore wrote version %d", got.Version)
	}
	if _, err := Restore(ctx, s, Archival, "plan", 42, "owner", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("restoring a missing version: %v", err)
	}
}

// fill writes a store with both kinds, labels, agents, a deleted block and
// a re-created one, and text that JSON must escape.
func fill(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	ch := func(kind Kind, name, op, agent, content string, tags ...string) {
		t.Helper()
		if _, err := s.Apply(ctx, Change{Kind: kind, Name: name, Op: op, Agent: agent, Tags: tags,
			Edit: func(string, bool) (string, error) { return content, nil }}); err != nil {
			t.Fatal(err)
		}
	}
	ch(Archival, "plan", "create", "scout", "ship on friday", "release")
	ch(Archival, "plan", "append", "anchor", "ship on friday\n<b>budget</b> \"5k\" \x1b[31m ✓")
	ch(Archival, "gone", "create", "scout", "old")
	s.Delete(ctx, Archival, "gone")
	ch(Archival, "again", "create", "", "v1")
	s.Delete(ctx, Archival, "again")
	ch(Archival, "again", "create", "scout", "v3")
	ch(Working, "human", "replace", "scout", "Name: Ana")
	s.Apply(ctx, Change{Kind: Working, Name: "human", Op: "append", Project: "apollo", Edit: func(o string, _ bool) (string, error) { return o + "\nlikes tea", nil }})
}

// TestExportImportRoundTrip exports from one store and imports into
// another, on every backend (and across them: SQLite to PostgreSQL).
func TestExportImportRoundTrip(t *testing.T) {
	for _, from := range backends {
		for _, to := range backends {
			t.Run(from.name+"-to-"+to.name, func(t *testing.T) {
				exportImportRoundTrip(t, openAt(t, from.location(t)), openAt(t, to.location(t)))
			})
		}
	}
}

func exportImportRoundTrip(t *testing.T, src, dst Store) {
	ctx := context.Background()
	fill(t, src)
	var first bytes.Buffer
	n, err := Export(ctx, src, &first)
	if err != nil || n != 4 {
		t.Fatalf("Export = %d, %v", n, err)
	}
	if n, err := Import(ctx, dst, bytes.NewReader(first.Bytes())); err != nil || n != 4 {
		t.Fatalf("Import = %d, %v", n, err)
	}
	var second bytes.Buffer
	Export(ctx, dst, &second)
	if first.String() != second.String() {
		t.Errorf("export → import → export differs:\n%s\n---\n%s", first.String(), second.String())
	}
	for _, kind := range []Kind{Archival, Working} {
		a, _ := src.Blocks(ctx, kind)
		b, _ := dst.Blocks(ctx, kind)
		if len(a) != len(b) {
			t.Fatalf("%s: %d blocks, imported %d", kind, len(a), len(b))
		}
		for i := range a {
			a[i].ID, b[i].ID = 0, 0
			if fmt.Sprint(a[i]) != fmt.Sprint(b[i]) {
				t.Errorf("block differs after import:\n%+v\n%+v", a[i], b[i])
			}
		}
	}
	if _, err := dst.Get(ctx, Archival, "gone"); !errors.Is(err, ErrNotFound) {
		t.Error("a deleted block came back from the import")
	}
	if v, err := dst.Version(ctx, Archival, "gone", 1); err != nil || v.Content != "old" {
		t.Errorf("a deleted block's history: %+v %v", v, err)
	}
	// Importing again changes nothing: every name is taken.
	err = dst.Import(ctx, []Record{{Kind: Archival, Name: "fresh", Versions: []Version{{Version: 1, Op: "create", At: time.Now(), Content: "x"}}},
		{Kind: Archival, Name: "plan", Versions: []Version{{Version: 1, Op: "create", At: time.Now(), Content: "x"}}}})
	if !errors.Is(err, ErrExists) {
		t.Errorf("importing a taken name: %v", err)
	}
	if _, err := dst.Get(ctx, Archival, "fresh"); !errors.Is(err, ErrNotFound) {
		t.Error("an import that failed wrote part of its records")
	}
}

func TestReadRecordsErrors(t *testing.T) {
	ok := `{"kind":"archival","name":"a","versions":[{"version":1,"op":"create","at":"2026-01-02T03:04:05Z","content":"x"}]}`
	for _, tt := range []struct {
		name, in string
		line     int
		says     string
	}{
		{"not json", "nope", 1, "invalid character"},
		{"unknown field", `{"kind":"archival","name":"a","colour":"red","versions":[]}`, 1, "unknown field"},
		{"no versions", `{"kind":"archival","name":"a","versions":[]}`, 1, "no versions"},
		{"bad kind", strings.Replace(ok, "archival", "core", 1), 1, "not a kind"},
		{"bad name", strings.Replace(ok, `"name":"a"`, `"name":"a\nb"`, 1), 1, "one line"},
		{"versions go back", `{"kind":"archival","name":"a","versions":[{"version":2,"op":"x","at":"2026-01-02T03:04:05Z","content":""},{"version":1,"op":"x","at":"2026-01-02T03:04:05Z","content":""}]}`, 1, "must increase"},
		{"no time", `{"kind":"archival","name":"a","versions":[{"version":1,"op":"x","content":""}]}`, 1, "no time"},
		{"bad tags", strings.Replace(ok, `"content":"x"`, `"content":"x","tags":["B","a"]`, 1), 1, "tags"},
		{"a name twice", ok + "\n\n" + ok, 3, "also on line 1"},
		{"two values", ok + " " + ok, 1, "more than one"},
	} {
		_, err := ReadRecords(strings.NewReader(tt.in))
		var re *RecordError
		if !errors.As(err, &re) || re.Line != tt.line || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v; want line %d saying %q", tt.name, err, tt.line, tt.says)
		}
	}
	if recs, err := ReadRecords(strings.NewReader(ok + "\n")); err != nil || len(recs) != 1 {
		t.Errorf("a good line: %v %v", recs, err)
	}
}

func FuzzReadRecords(f *testing.F) {
	f.Add(`{"kind":"archival","name":"a","versions":[{"version":1,"op":"create","at":"2026-01-02T03:04:05.123Z","agent":"s","tags":["x"],"content":"x"}]}`)
	f.Add(`{"kind":"working","name":"h","versions":[{"version":1,"op":"c","at":"2026-01-02T03:04:05Z","content":""},{"version":3,"op":"delete","at":"2026-01-02T03:04:06Z","content":""}]}`)
	f.Add("{}\n[]\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := ReadRecords(strings.NewReader(in))
		if err != nil {
			return
		}
		// What is accepted writes back to what reads the same.
		var b bytes.Buffer
		for _, r := range recs {
			line, err := jsonLine(r)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
		}
		again, err := ReadRecords(&b)
		if err != nil {
			t.Fatalf("re-reading accepted records: %v", err)
		}
		if fmt.Sprint(again) != fmt.Sprint(recs) {
			t.Fatalf("records changed on a round trip:\n%v\n%v", recs, again)
		}
	})
}

func jsonLine(r Record) ([]byte, error) {
	b, err := json.Marshal(r)
	return append(b, '\n'), err
}

func TestSummary(t *testing.T) {
	v := func(op, content string) Version { return Version{Op: op, Content: content} }
	for _, tt := range []struct {
		prev  string
		v     Version
		first bool
		want  string
	}{
		{"", v("create", "deadline is Monday\nbudget"), true, `new: "deadline is Monday …"`},
		{"a", v("append", "a\nb"), false, `+1 -0 lines: + "b"`},
		{"a\nb\nc", v("patch", "a\nc"), false, `+0 -1 lines: - "b"`},
		{"a\nb", v("replace", "a\nB"), false, `+1 -1 lines: + "B"`},
		{"same", v("restore v1", "same"), false, "no change to the text"},
		{"x", v("delete", "x"), false, "deleted"},
		{"", v("create", strings.Repeat("long ", 30)), true, "new: \"long long"},
	} {
		if got := Summary(tt.prev, tt.v, tt.first); !strings.HasPrefix(got, tt.want) {
			t.Errorf("Summary(%q → %q) = %q, want %q", tt.prev, tt.v.Content, got, tt.want)
		}
	}
	if got := Summary("", v("create", strings.Repeat("x", 200)), true); len([]rune(got)) > 60 {
		t.Errorf("a summary is not clipped: %d characters", len([]rune(got)))
	}
}

func TestFormatHistoryShowsTheLatest(t *testing.T) {
	var vs []Version
	for i := 1; i <= 25; i++ {
		vs = append(vs, Version{Version: i, Op: "append", At: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Agent: "scout", Content: strings.Repeat("x\n", i)})
	}
	out := FormatHistory("log", vs, 20)
	if !strings.HasPrefix(out, "log: 25 versions (current v25)\n(5 earlier versions not shown") || strings.Contains(out, "\nv5 ") || !strings.Contains(out, "\nv6 ") {
		t.Errorf("history:\n%s", out)
	}
	if n := strings.Count(out, "\nv"); n != 20 {
		t.Errorf("%d versions listed, want 20", n)
	}
	if all := FormatHistory("log", vs, 0); strings.Count(all, "\nv") != 25 {
		t.Error("shown 0 does not list all")
	}
}
