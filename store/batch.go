package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pattern-dialect/dialect/failures"
)

// Batched is a Store whose conversation log (LogMessage) and failure log
// writes are queued and written by one goroutine, many to a transaction,
// instead of one transaction each: a server that logs every message (the
// proxy) answers without waiting for SQLite's single writer, and on
// PostgreSQL makes one transaction of many. LogMessage
// returns once queued; a failure log write waits for the transaction that
// carries it (its results, such as ids, are read inside it), but shares
// that transaction with every write queued meanwhile. The queue is bounded: when it is full, a write waits for
// room, so nothing is dropped. Reads of what is queued (SearchMessages,
// LastMessage, the failure log's queries) first wait for the queue to be
// written, so a caller always reads its own writes. Close writes
// everything queued before closing the store.
//
// On SQLite the conversation log's full-text index is not written with
// the messages (store/4): it catches up before a conversation search,
// and the writer catches it up while it is idle (nothing queued for
// indexIdle), idleRows messages to a transaction, stopping as soon as a
// write is queued, so that under load the index costs the requests
// nothing until maxBehind messages wait for it.
//
// LogMessage returns id 0 at once; a write that fails later, or the idle
// catch-up of the index failing, is reported to the onError function
// given to NewBatched.
type Batched struct {
	Store
	s       *sqlStore
	log     *failures.Log
	q       chan item
	flushes chan chan struct{}
	done    chan struct{}
	onError func(error)

	mu     sync.RWMutex // held for reading while queueing, for writing by Close
	closed bool
}

// ErrClosed is returned by writes to a Batched store after Close.
var ErrClosed = errors.New("store: closed")

// NewBatched wraps s, which must come from Open, with a queue of room
// writes. onError (nil: ignored) receives the errors of queued writes.
func NewBatched(s Store, room int, onError func(error)) (*Batched, error) {
	ss, ok := s.(*sqlStore)
	if !ok {
		return nil, fmt.Errorf("store: batching needs a store from Open, got %T", s)
	}
	if room < 1 {
		room = 1
	}
	if onError == nil {
		onError = func(error) {}
	}
	b := &Batched{Store: s, s: ss, q: make(chan item, room), flushes: make(chan chan struct{}),
		done: make(chan struct{}), onError: onError}
	b.log = failures.New(batchDB{b})
	go b.writer()
	return b, nil
}

// item is one queued write: a message to log, or fn; done, when not
// nil, receives its error once its transaction ended.
type item struct {
	msg  *Message
	fn   func(*sql.Tx) error
	done chan error
}

// maxBatch is the most queued writes put in one transaction.
const maxBatch = 512

// linger is how long the writer waits for more messages, up to
// lingerFill of them, before it writes a batch that no one waits for.
// Each transaction costs a commit and writes the full-text index's
// pending terms as a new segment, which later merges read again: a real
// answer costs 560 µs of CPU alone in its transaction, 230 µs in one of
// 8, 175 µs in one of 64 and 150 µs in one of 512
// (BenchmarkMessageLog). A proxy answering a few hundred requests a
// second would otherwise write one or two per transaction. Nothing waits
// for a message (LogMessage returns at once; readers, Close and failure
// log writes end the wait), so the delay costs no one time.
const (
	linger     = 100 * time.Millisecond
	lingerFill = 64
)

// indexIdle is how long the writer waits with nothing queued, after
// writing messages, before it catches the conversation log's index up,
// idleRows messages to a transaction (about 40 ms of CPU each on real
// answers), looking at the queue between transactions. Under load the
// writer is never idle that long (it writes at least every linger), so
// the index waits for a pause, a search or maxBehind.
//
// maxBehind is the most messages the index lets wait under sustained
// load: past it, the writer indexes after each batch as many messages as
// the batch held, so that a search never has more than maxBehind +
// maxBatch to catch up with (about 1.4 s of CPU on real answers).
const (
	indexIdle = 250 * time.Millisecond
	idleRows  = 256
	maxBehind = 10000
)

// writer writes what is queued: every write waiting, up to maxBatch, and
// those that arrive within linger (up to lingerFill), in one transaction; each write that is
// not a message in a savepoint, so that one failing write loses only
// itself. It returns once the queue is closed and written.
func (b *Batched) writer() {
	defer close(b.done)
	batch := make([]item, 0, maxBatch)
	var waiting []chan struct{}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	idle := time.NewTimer(time.Hour)
	idle.Stop()
	behind := false // messages written since the index last caught up
	open := true
	for open || len(waiting) > 0 {
		waits := false // a write in the batch has a caller waiting for it
		// Wait for a first write or a flush; after indexIdle without
		// either, catch the index up.
		if open {
			var idleC <-chan time.Time
			if behind {
				idle.Reset(indexIdle)
				idleC = idle.C
			}
			select {
			case it, ok := <-b.q:
				if ok {
					batch = append(batch, it)
					waits = it.done != nil
				}
				open = ok
			case f := <-b.flushes:
				waiting = append(waiting, f)
			case <-idleC:
				behind = b.indexWhileIdle()
				continue
			}
			idle.Stop()
		}
		// Take what else is queued; wait up to linger for more while
		// no one waits.
		timer.Reset(linger)
	more:
		for open && len(batch) < maxBatch {
			// Take what is queued without waiting.
			select {
			case it, ok := <-b.q:
				if !ok {
					open = false
					break more
				}
				batch = append(batch, it)
				waits = waits || it.done != nil
				continue
			default:
			}
			if waits || len(waiting) > 0 || len(batch) == 0 || len(batch) >= lingerFill {
				break more
			}
			select {
			case it, ok := <-b.q:
				if !ok {
					open = false
					break more
				}
				batch = append(batch, it)
				waits = it.done != nil
			case f := <-b.flushes:
				waiting = append(waiting, f)
			case <-timer.C:
				break more
			}
		}
		timer.Stop()
		logged := 0
		if len(batch) > 0 {
			logged = b.write(batch)
			behind = behind || logged > 0
			batch = batch[:0]
		}
		if len(b.q) == 0 || !open {
			for _, f := range waiting {
				close(f)
			}
			waiting = waiting[:0]
		}
		if logged > 0 && open {
			b.indexIfFarBehind(logged)
		}
	}
}

// indexIfFarBehind indexes as many messages as the writer has just
// logged, idleRows at least, when more than maxBehind are waiting for the
// index: under sustained load the writer is never idle, and the backlog
// a search would catch up with stays bounded.
func (b *Batched) indexIfFarBehind(logged int) {
	if !b.s.flavor.lazyMessageIndex {
		return
	}
	ctx := context.Background()
	mark, top, err := b.s.messageMark(ctx)
	if err == nil && top-mark > maxBehind {
		_, err = b.s.indexMessages(ctx, top, max(logged, idleRows))
	}
	if err != nil {
		b.onError(fmt.Errorf("store: indexing the conversation log: %w", err))
	}
}

// indexWhileIdle catches the conversation log's index up, idleRows
// messages to a transaction, until it is up to date or a write is
// queued; it reports whether it stopped behind.
func (b *Batched) indexWhileIdle() bool {
	for len(b.q) == 0 {
		more, err := b.s.indexSome(context.Background(), idleRows)
		if err != nil {
			b.onError(fmt.Errorf("store: indexing the conversation log: %w", err))
			return false
		}
		if !more {
			return false
		}
	}
	return true
}

// write writes batch in one transaction and returns how many messages it
// logged.
func (b *Batched) write(batch []item) (logged int) {
	ctx := context.Background()
	errs := make([]error, len(batch))
	err := b.s.db.Write(ctx, func(tx *sql.Tx) error {
		clear(errs)
		for i := 0; i < len(batch); {
			if batch[i].msg != nil {
				n := 1
				for n < maxRows && i+n < len(batch) && batch[i+n].msg != nil {
					n++
				}
				if err := insertMessages(ctx, txn{tx, b.s.db.Rebind}, batch[i:i+n], errs[i:i+n]); err != nil {
					return err
				}
				i += n
				continue
			}
			if _, err := tx.ExecContext(ctx, "SAVEPOINT q"); err != nil {
				return err
			}
			if errs[i] = batch[i].fn(tx); errs[i] != nil {
				if _, err := tx.ExecContext(ctx, "ROLLBACK TO q"); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, "RELEASE q"); err != nil {
				return err
			}
			i++
		}
		return nil
	})
	for i, it := range batch {
		e := errs[i]
		if err != nil {
			e = err
		}
		if it.msg != nil && e == nil {
			logged++
		}
		switch {
		case it.done != nil:
			it.done <- e
		case e != nil:
			b.onError(fmt.Errorf("store: queued write lost: %w", e))
		}
	}
	return logged
}

// maxRows is the most messages one INSERT statement writes (eight
// parameters each, under SQLite's oldest limit of 999).
const maxRows = 120

// insertMessages writes the messages of items in one statement. One
// statement, not one per message, because every statement that writes
// the full-text index opens a savepoint on it, and FTS5 writes its
// pending terms to disk as a new segment at each one: per message, that
// flush and the merges it sets off cost more than the message itself.
// The statement runs under a savepoint, so that when it fails (a failed
// statement aborts a PostgreSQL transaction) it is undone alone and each
// message is tried by itself: one bad row loses only itself. errs
// receives each one's error; the error returned is the transaction's.
func insertMessages(ctx context.Context, tx txn, items []item, errs []error) error {
	var q strings.Builder
	q.WriteString(`INSERT INTO messages (session, role, agent, model, content, at, tags, project) VALUES `)
	args := make([]any, 0, 8*len(items))
	for i, it := range items {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
		m := it.msg
		args = append(args, m.Session, m.Role, m.Agent, m.Model, m.Content, m.At.UnixMilli(), joinTags(NormTags(m.Tags)), NormProject(m.Project))
	}
	if _, err := tx.exec(ctx, "SAVEPOINT m"); err != nil {
		return err
	}
	_, err := tx.exec(ctx, q.String(), args...)
	if err != nil {
		if _, rerr := tx.exec(ctx, "ROLLBACK TO m"); rerr != nil {
			return rerr
		}
	}
	if _, rerr := tx.exec(ctx, "RELEASE m"); rerr != nil {
		return rerr
	}
	if err == nil || len(items) == 1 {
		errs[0] = err
		return nil
	}
	for i := range items {
		if err := insertMessages(ctx, tx, items[i:i+1], errs[i:i+1]); err != nil {
			return err
		}
	}
	return nil
}

// enqueue queues it, waiting for room.
func (b *Batched) enqueue(ctx context.Context, it item) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return ErrClosed
	}
	select {
	case b.q <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Flush waits until every write queued before it is written.
func (b *Batched) Flush(ctx context.Context) error {
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return nil
	}
	f := make(chan struct{})
	select {
	case b.flushes <- f:
	case <-ctx.Done():
		b.mu.RUnlock()
		return ctx.Err()
	}
	b.mu.RUnlock()
	select {
	case <-f:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// LogMessage implements Store: the message is queued; the id is 0.
func (b *Batched) LogMessage(ctx context.Context, m Message) (int64, error) {
	if m.At.IsZero() {
		m.At = b.s.now()
	}
	return 0, b.enqueue(ctx, item{msg: &m})
}

// SearchMessages implements Store, after the queued writes.
func (b *Batched) SearchMessages(ctx context.Context, query string, q MessageQuery) ([]MessageHit, error) {
	if err := b.Flush(ctx); err != nil {
		return nil, err
	}
	return b.Store.SearchMessages(ctx, query, q)
}

// LastMessage implements Store, after the queued writes.
func (b *Batched) LastMessage(ctx context.Context, session, role string) (Message, error) {
	if err := b.Flush(ctx); err != nil {
		return Message{}, err
	}
	return b.Store.LastMessage(ctx, session, role)
}

// Failures implements Store: the failure log, its writes queued.
func (b *Batched) Failures() *failures.Log { return b.log }

// Close writes everything queued, then closes the store.
func (b *Batched) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	close(b.q)
	b.mu.Unlock()
	<-b.done
	b.log.Close()
	return b.Store.Close()
}

// batchDB is the failure log's database: its writes queued, its reads
// after them.
type batchDB struct{ b *Batched }

func (d batchDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := d.b.Flush(ctx); err != nil {
		return nil, err
	}
	return d.b.s.db.QueryContext(ctx, query, args...)
}

func (d batchDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	d.b.Flush(ctx) // a failed flush shows in the row's own error
	return d.b.s.db.QueryRowContext(ctx, query, args...)
}

func (d batchDB) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return d.b.s.db.PrepareContext(ctx, query)
}

func (d batchDB) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	done := make(chan error, 1)
	if err := d.b.enqueue(ctx, item{fn: fn, done: done}); err != nil {
		return err
	}
	return <-done
}

func (d batchDB) Rebind(query string) string { return d.b.s.db.Rebind(query) }
