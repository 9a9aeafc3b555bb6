package store

import (
	"context"
	"database/sql"
)

// The conversation log's full-text index on SQLite is written lazily
// (store/4): logging a message writes its row only, and the index catches
// up, in bulk, with every message not in it yet before a conversation
// search (SearchMessages) and while a batched writer is idle. FTS5
// tokenises and stems every word of a message, which costs five to
// twenty-five times the row itself (BenchmarkMessageLog); a logging proxy
// would otherwise pay that on every answer. messages_fts_mark holds the
// highest id the index has caught up to: every message at or below it is
// in the index, none above it (the triggers of store/4 keep that true for
// the rare row written at or below the mark). PostgreSQL computes its
// tsvector in the server as a row is written and has nothing to catch up.

// catchUpRows is the most messages one catch-up transaction indexes
// before a search: one statement for all of them, which FTS5 writes as
// few segments (its pending terms are flushed at about 1 MB and at the
// commit), without holding SQLite's write lock for long (about 0.1 s).
const catchUpRows = 1024

// catchUpMessages brings the conversation log's index up to the newest
// message committed when it is called, by this process or any other, in
// transactions of at most catchUpRows messages. A search that follows it
// sees every message logged before it.
func (s *sqlStore) catchUpMessages(ctx context.Context) error {
	if !s.flavor.lazyMessageIndex {
		return nil
	}
	mark, top, err := s.messageMark(ctx)
	for err == nil && mark < top {
		mark, err = s.indexMessages(ctx, top, catchUpRows)
	}
	return err
}

// messageMark returns the index's mark and the newest message's id (0
// when there is none).
func (s *sqlStore) messageMark(ctx context.Context) (mark, top int64, err error) {
	err = s.queryRow(ctx, `SELECT (SELECT mark FROM messages_fts_mark), (SELECT COALESCE(max(id), 0) FROM messages)`).Scan(&mark, &top)
	return mark, top, err
}

// indexMessages indexes, in one write transaction, the messages above the
// mark up to id upTo, at most limit of them, and moves the mark past
// them. It returns the mark after it.
func (s *sqlStore) indexMessages(ctx context.Context, upTo int64, limit int) (int64, error) {
	var mark int64
	err := s.write(ctx, func(tx txn) (err error) {
		mark, err = indexMessagesTx(ctx, tx, upTo, limit)
		return err
	})
	return mark, err
}

// indexMessagesTx indexes in tx, in one statement, the messages above the
// mark up to id upTo, at most limit of them, moves the mark past them and
// returns it. The mark is read in the transaction: another process may
// have caught up meanwhile, and the mark never moves back (a message
// indexed twice corrupts the index).
func indexMessagesTx(ctx context.Context, tx txn, upTo int64, limit int) (int64, error) {
	var mark int64
	if err := tx.queryRow(ctx, `SELECT mark FROM messages_fts_mark`).Scan(&mark); err != nil {
		return 0, err
	}
	if mark >= upTo {
		return mark, nil
	}
	var hi sql.NullInt64
	if err := tx.queryRow(ctx, `SELECT max(id) FROM (SELECT id FROM messages WHERE id > ? AND id <= ? ORDER BY id LIMIT ?)`,
		mark, upTo, limit).Scan(&hi); err != nil {
		return 0, err
	}
	next := upTo // no message left in (mark, upTo]: they were deleted
	if hi.Valid {
		next = hi.Int64
		if _, err := tx.exec(ctx, `INSERT INTO messages_fts (rowid, content) SELECT id, content FROM messages WHERE id > ? AND id <= ?`,
			mark, next); err != nil {
			return 0, err
		}
	}
	if _, err := tx.exec(ctx, `UPDATE messages_fts_mark SET mark = ?`, next); err != nil {
		return 0, err
	}
	return next, nil
}

// indexSome indexes at most limit messages above the mark, in one
// transaction, and reports whether more remain: the step of a batched
// writer's catch-up while it is idle.
func (s *sqlStore) indexSome(ctx context.Context, limit int) (more bool, err error) {
	if !s.flavor.lazyMessageIndex {
		return false, nil
	}
	mark, top, err := s.messageMark(ctx)
	if err != nil || mark >= top {
		return false, err
	}
	mark, err = s.indexMessages(ctx, top, limit)
	return err == nil && mark < top, err
}
