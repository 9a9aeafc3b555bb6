package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/internal/migrate"
	"github.com/pattern-dialect/dialect/internal/postgres"
)

// openPostgres opens the store in the PostgreSQL database at location (a
// postgres:// URL), applying the store's migrations and the failure log's
// under an advisory lock.
func openPostgres(ctx context.Context, location string) (*sqlStore, error) {
	ms := postgresMigrations()
	for _, step := range failures.Schema() {
		ms = append(ms, migrate.Migration{Owner: "failures", Version: step.Version, Name: step.Name, SQL: step.Postgres})
	}
	db, err := postgres.Open(ctx, location, ms...)
	if err != nil {
		return nil, err
	}
	return newSQLStore(db, postgresFlavor, db.Location()), nil
}

// headline is ts_headline's options: terms in [brackets], a passage of
// about a dozen words, as SQLite's snippet.
const headline = `'StartSel=[, StopSel=], MaxWords=12, MinWords=5, ShortWord=1, MaxFragments=1, FragmentDelimiter=…'`

// postgresFlavor searches the tsvector columns through their GIN indexes.
// The score is -ts_rank, so that lower is better as with bm25, with a
// block's name weighing 1.5 times its content (weights A and B), so that
// a block matching more of the words still ranks first, as with bm25's
// weights. The passage comes from ts_headline, computed only for the rows
// returned.
var postgresFlavor = flavor{
	name: "postgres",
	searchBlocks: func(words []string, where string, args []any, limit int) (string, []any) {
		q := tsQuery(words)
		return `SELECT b.id, b.kind, b.name, b.content, b.version, b.created_at, b.updated_at, b.tags, b.project,
			ts_headline('dialect_english', b.content, to_tsquery('dialect_english', ?), ` + headline + `), -r.rank
			FROM (SELECT b.id, ts_rank('{0.1, 0.2, 0.4, 0.6}', b.tsv, tq) AS rank FROM blocks b, to_tsquery('dialect_english', ?) tq
				WHERE b.tsv @@ tq` + where + ` ORDER BY rank DESC, b.id LIMIT ?) r
			JOIN blocks b ON b.id = r.id
			ORDER BY r.rank DESC, b.id`, append(append([]any{q, q}, args...), limit)
	},
	searchMessages: func(words []string, where string, args []any, limit int) (string, []any) {
		q := tsQuery(words)
		return `SELECT m.id, m.session, m.role, m.agent, m.model, m.content, m.at, m.tags, m.project,
			ts_headline('dialect_english', m.content, to_tsquery('dialect_english', ?), ` + headline + `), -r.rank
			FROM (SELECT m.id, ts_rank(m.tsv, tq) AS rank FROM messages m, to_tsquery('dialect_english', ?) tq
				WHERE m.tsv @@ tq` + where + ` ORDER BY rank DESC, m.id LIMIT ?) r
			JOIN messages m ON m.id = r.id
			ORDER BY r.rank DESC, m.id`, append(append([]any{q, q}, args...), limit)
	},
	strpos:   "strpos",
	snapshot: &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead},
	afterCopy: func(ctx context.Context, tx txn, tables []table) error {
		// Rows came with their ids; the identity sequences must continue
		// after them.
		for _, t := range tables {
			if !t.identity {
				continue
			}
			if _, err := tx.exec(ctx, `SELECT setval(pg_get_serial_sequence('`+t.name+`', 'id'), COALESCE((SELECT max(id) FROM `+t.name+`), 0) + 1, false)`); err != nil {
				return err
			}
		}
		return nil
	},
}

// tsQuery is a tsquery that matches any of words, each quoted so that it is
// read as a word (words hold only letters and digits).
func tsQuery(words []string) string {
	var b strings.Builder
	for _, w := range words {
		if b.Len() > 0 {
			b.WriteString(" | ")
		}
		b.WriteString("'" + w + "'")
	}
	return b.String()
}
