package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/internal/migrate"
	"github.com/pattern-dialect/dialect/internal/sqlite"
)

// openSQLite opens the store in the SQLite file at path (modernc.org/sqlite,
// WAL), applying the store's migrations and the failure log's.
func openSQLite(ctx context.Context, path string) (*sqlStore, error) {
	ms := sqliteMigrations()
	for _, step := range failures.Schema() {
		ms = append(ms, migrate.Migration{Owner: "failures", Version: step.Version, Name: step.Name, SQL: step.SQL})
	}
	db, err := sqlite.Open(ctx, path, ms...)
	if err != nil {
		return nil, err
	}
	return newSQLStore(db, sqliteFlavor, db.Path()), nil
}

// sqliteFlavor searches with FTS5: bm25 ranks (lower is better), the
// snippet marks terms in [brackets]. The conversation log's index is
// brought up to date before it is searched (index.go).
var sqliteFlavor = flavor{
	name: "sqlite",
	searchBlocks: func(words []string, where string, args []any, limit int) (string, []any) {
		return `SELECT b.id, b.kind, b.name, b.content, b.version, b.created_at, b.updated_at, b.tags, b.project,
			snippet(blocks_fts, 1, '[', ']', '…', 12), bm25(blocks_fts, 2.0, 1.0)
			FROM blocks_fts JOIN blocks b ON b.id = blocks_fts.rowid
			WHERE blocks_fts MATCH ?` + where + ` ORDER BY bm25(blocks_fts, 2.0, 1.0), b.id LIMIT ?`,
			append(append([]any{ftsQuery(words)}, args...), limit)
	},
	searchMessages: func(words []string, where string, args []any, limit int) (string, []any) {
		return `SELECT m.id, m.session, m.role, m.agent, m.model, m.content, m.at, m.tags, m.project,
			snippet(messages_fts, 0, '[', ']', '…', 12), bm25(messages_fts)
			FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
			WHERE messages_fts MATCH ?` + where + ` ORDER BY bm25(messages_fts), m.id LIMIT ?`,
			append(append([]any{ftsQuery(words)}, args...), limit)
	},
	strpos:           "instr",
	snapshot:         &sql.TxOptions{ReadOnly: true},
	afterCopy:        func(context.Context, txn, []table) error { return nil },
	lazyMessageIndex: true,
}

// ftsQuery is an FTS5 query that matches any of words, each quoted so
// that it is read as a word.
func ftsQuery(words []string) string {
	var b strings.Builder
	for _, w := range words {
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(`"` + w + `"`)
	}
	return b.String()
}
