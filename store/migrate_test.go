package store

import (
	"context"
	"database/sql"
	"testing"

	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/internal/migrate"
	"github.com/pattern-dialect/dialect/internal/postgres"
	"github.com/pattern-dialect/dialect/internal/sqlite"
)

// TestMigrationFromVersion2 opens a database written by the schema before
// labels and per-name versions: a block deleted and re-created (whose
// versions restarted at 1 then), and a rule of the old shape.
// It runs on each backend.
func TestMigrationFromVersion2(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { migrationFromVersion2(t, b.name, b.location(t)) })
	}
}

func migrationFromVersion2(t *testing.T, backend, path string) {
	ctx := context.Background()
	var db interface {
		Write(context.Context, func(*sql.Tx) error) error
		Close() error
	}
	var err error
	if backend == "postgres" {
		ms := postgresMigrations()[:2]
		for _, step := range failures.Schema() {
			ms = append(ms, migrate.Migration{Owner: "failures", Version: step.Version, Name: step.Name, SQL: step.Postgres})
		}
		db, err = postgres.Open(ctx, path, ms...)
	} else {
		ms := sqliteMigrations()[:2]
		for _, step := range failures.Schema() {
			ms = append(ms, migrate.Migration{Owner: "failures", Version: step.Version, Name: step.Name, SQL: step.SQL})
		}
		db, err = sqlite.Open(ctx, path, ms...)
	}
	if err != nil {
		t.Fatal(err)
	}
	err = db.Write(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			`INSERT INTO blocks (id, kind, name, content, version, created_at, updated_at) VALUES (7, 'archival', 'plan', 'third', 1, 3000, 3000)`,
			`INSERT INTO block_versions (block_id, kind, name, version, op, content, at) VALUES
				(3, 'archival', 'plan', 1, 'create', 'first', 1000),
				(3, 'archival', 'plan', 2, 'delete', 'first', 2000),
				(7, 'archival', 'plan', 1, 'create', 'third', 3000)`,
			`INSERT INTO rules (agent, verb, target, decision, created_at, created_by) VALUES ('worker', 'recall', '', 'deny', 1, 'owner')`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := versionsOf(t, s, Archival, "plan"), "1:create::first | 2:delete::first | 3:create::third"; got != want {
		t.Errorf("renumbered history\n got %s\nwant %s", got, want)
	}
	b, err := s.Get(ctx, Archival, "plan")
	if err != nil || b.Version != 3 || b.Tags != nil {
		t.Errorf("block after migration: %+v, %v", b, err)
	}
	if b, err := Append(ctx, s, Archival, "plan", "fourth"); err != nil || b.Version != 4 {
		t.Errorf("writing after migration: %+v, %v", b, err)
	}
	rs, _ := s.Rules(ctx)
	if len(rs) != 1 || rs[0].Op != "*" || rs[0].Args != "*" || rs[0].Verb != "recall" {
		t.Fatalf("migrated rules: %+v", rs)
	}
	// An old rule keeps covering what it covered: every operation.
	if _, ok, _ := s.MatchRule(ctx, Action{Agent: "worker", Verb: "recall", Op: "insert", Args: "x"}); !ok {
		t.Error("a migrated rule no longer covers what it covered")
	}
	if hits, err := s.Search(ctx, Archival, "third", SearchOptions{}); err != nil || len(hits) != 1 {
		t.Errorf("search after migration: %v %v", hits, err)
	}
}
