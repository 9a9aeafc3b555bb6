package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

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
// LogMessage returns id 0 at once; a write that fails later is reported
// to the onError function given to NewBatched.
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

// item is one queued write; done, when not nil, receives its error once
// its transaction ended.
type item struct {
	fn   func(*sql.Tx) error
	done chan error
}

// maxBatch is the most queued writes put in one transaction.
const maxBatch = 512

// writer writes what is queued: it takes every write waiting, up to
// maxBatch, into one transaction, each in a savepoint so that one failing
// write loses only itself.
func (b *Batched) writer() {
	defer close(b.done)
	batch := make([]item, 0, maxBatch)
	var waiting []chan struct{}
	for {
		select {
		case fn, ok := <-b.q:
			if !ok {
				return
			}
			batch = append(batch, fn)
		case f := <-b.flushes:
			waiting = append(waiting, f)
		}
	more:
		for len(batch) < maxBatch {
			select {
			case fn, ok := <-b.q:
				if !ok {
					break more
				}
				batch = append(batch, fn)
			default:
				break more
			}
		}
		if len(batch) > 0 {
			b.write(batch)
			batch = batch[:0]
		}
		if len(b.q) == 0 {
			for _, f := range waiting {
				close(f)
			}
			waiting = waiting[:0]
		}
	}
}

func (b *Batched) write(batch []item) {
	ctx := context.Background()
	errs := make([]error, len(batch))
	err := b.s.db.Write(ctx, func(tx *sql.Tx) error {
		clear(errs)
		for i, it := range batch {
			if _, err := tx.ExecContext(ctx, "SAVEPOINT q"); err != nil {
				return err
			}
			if errs[i] = it.fn(tx); errs[i] != nil {
				if _, err := tx.ExecContext(ctx, "ROLLBACK TO q"); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, "RELEASE q"); err != nil {
				return err
			}
		}
		return nil
	})
	for i, it := range batch {
		e := errs[i]
		if err != nil {
			e = err
		}
		switch {
		case it.done != nil:
			it.done <- e
		case e != nil:
			b.onError(fmt.Errorf("store: queued write lost: %w", e))
		}
	}
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
	return 0, b.enqueue(ctx, item{fn: func(tx *sql.Tx) error {
		_, err := txn{tx, b.s.db.Rebind}.exec(context.Background(), `INSERT INTO messages (session, role, agent, model, content, at) VALUES (?, ?, ?, ?, ?, ?)`,
			m.Session, m.Role, m.Agent, m.Model, m.Content, m.At.UnixMilli())
		return err
	}})
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

func (d batchDB) Rebind(query string) string { return d.b.s.db.Rebind(query) }

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
