package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/internal/postgres"
	"github.com/pattern-dialect/dialect/internal/sqlite"
)

// Kind says which memory a block belongs to.
type Kind string

// The two memories.
const (
	Archival Kind = "archival" // long-term, searched and read on demand (/recall)
	Working  Kind = "working"  // always in the prompt (/context)
)

// ErrNotFound is returned (wrapped) when a block, pending action or output
// does not exist.
var ErrNotFound = errors.New("not found")

// Block is one memory block at its current version.
type Block struct {
	ID      int64
	Kind    Kind
	Name    string
	Content string
	Version int
	Created time.Time
	Updated time.Time
}

// Version is one recorded state of a block: the content after Op.
type Version struct {
	Version int
	Op      string // "create", "replace", "append", "patch", "delete", ...
	Content string
	At      time.Time
}

// Edit is how Update changes a block's content. It gets the current
// content and whether the block exists, and returns the new content. An
// error leaves the block unchanged and is returned by Update.
type Edit func(old string, exists bool) (string, error)

// Hit is one search result.
type Hit struct {
	Block
	Snippet string  // the matching passage, terms in [brackets]
	Score   float64 // lower is better: bm25 on SQLite, -ts_rank on PostgreSQL
}

// SearchOptions narrow a search. Zero values mean no bound.
type SearchOptions struct {
	Limit  int       // default 10
	Since  time.Time // updated at or after
	Before time.Time // updated before
}

// Store is the runtime's state: memory blocks with their history,
// conversations and sessions, the approval queue with its standing rules,
// and the failure log. Implementations are safe for concurrent use, and
// many processes may share one store.
type Store interface {
	// Get returns the block kind/name, or an error wrapping ErrNotFound.
	Get(ctx context.Context, kind Kind, name string) (Block, error)
	// Names lists the names of kind's blocks, sorted.
	Names(ctx context.Context, kind Kind) ([]string, error)
	// Blocks returns every block of kind, by name.
	Blocks(ctx context.Context, kind Kind) ([]Block, error)
	// Update changes kind/name in one transaction: it reads the block,
	// calls edit, and writes the result as a new version recorded with op.
	// A block that does not exist is created when edit accepts that.
	// Nothing is written if edit fails; its error is returned.
	Update(ctx context.Context, kind Kind, name, op string, edit Edit) (Block, error)
	// Insert stores content as a new block named memory-N (the next free
	// N) and returns it.
	Insert(ctx context.Context, kind Kind, content string) (Block, error)
	// Delete removes kind/name, recording its last content as a "delete"
	// version so that history keeps it.
	Delete(ctx context.Context, kind Kind, name string) error
	// History returns every recorded version of kind/name, oldest first,
	// including those of a deleted block of that name.
	History(ctx context.Context, kind Kind, name string) ([]Version, error)
	// Search finds kind's blocks ("" for both kinds) matching any of the
	// query's words, best first, with a snippet.
	Search(ctx context.Context, kind Kind, query string, o SearchOptions) ([]Hit, error)

	// LogMessage records a conversation message for /search in
	// conversations and @last.message.
	LogMessage(ctx context.Context, m Message) (int64, error)
	// SearchMessages finds logged messages matching any of query's
	// words, best first.
	SearchMessages(ctx context.Context, query string, q MessageQuery) ([]MessageHit, error)
	// LastMessage returns the session's latest message (of role, when not
	// empty), or an error wrapping ErrNotFound.
	LastMessage(ctx context.Context, session, role string) (Message, error)
	// RecordOutput records an action's output for @last.output.
	RecordOutput(ctx context.Context, o Output) error
	// LastOutput returns the session's latest recorded output, or an
	// error wrapping ErrNotFound.
	LastOutput(ctx context.Context, session string) (Output, error)
	// SetState sets a session's value for key; "" removes it.
	SetState(ctx context.Context, session, key, value string) error
	// State returns a session's value for key, "" when unset.
	State(ctx context.Context, session, key string) (string, error)

	// Enqueue adds p to the approval queue and returns its id.
	Enqueue(ctx context.Context, p Pending) (int64, error)
	// PendingList lists the queue, oldest first: only the actions in
	// status, or all of them when status is "".
	PendingList(ctx context.Context, status Status) ([]Pending, error)
	// GetPending returns one queued action, or an error wrapping
	// ErrNotFound.
	GetPending(ctx context.Context, id int64) (Pending, error)
	// Decide moves a pending action to status, exactly once: a second
	// decision gets an error wrapping ErrDecided.
	Decide(ctx context.Context, id int64, status Status, by, note string) (Pending, error)
	// SetResult records what a decided action's execution gave.
	SetResult(ctx context.Context, id int64, result string) error
	// AddRule records a standing rule for agent/verb/target ("*" matches
	// any), replacing an earlier rule for the same triple.
	AddRule(ctx context.Context, agent, verb, target string, d Decision, by string) error
	// Rule returns the standing verdict for agent/verb/target, the most
	// specific rule winning; ok is false when no rule applies.
	Rule(ctx context.Context, agent, verb, target string) (d Decision, ok bool, err error)

	// Failures returns the failure log kept in the same store.
	Failures() *failures.Log
	// Location names where the store is, for messages: a file path, or
	// a postgres:// URL without its password.
	Location() string
	// Close releases the store.
	Close() error
}

// Open opens the store at location, creating it and applying its
// migrations when needed. A postgres:// or postgresql:// URL selects
// PostgreSQL (the URL takes pgx's parameters, and pool_max_conns for the
// size of the connection pool); anything else is a SQLite file path; ""
// means DefaultPath.
func Open(ctx context.Context, location string) (Store, error) {
	if location == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		location = p
	}
	if postgres.IsLocation(location) {
		return openPostgres(ctx, location)
	}
	return openSQLite(ctx, location)
}

// DefaultPath returns the location used when none is named: $DIALECT_DB
// if set (a file path or a postgres:// URL), else $XDG_STATE_HOME/dialect/dialect.db, else
// ~/.local/state/dialect/dialect.db. It creates nothing.
func DefaultPath() (string, error) { return sqlite.DefaultPath() }

// Put sets kind/name to content, creating the block if needed.
func Put(ctx context.Context, s Store, kind Kind, name, content string) (Block, error) {
	return s.Update(ctx, kind, name, "replace", func(string, bool) (string, error) { return content, nil })
}

// Append adds content on a new line at the end of kind/name, creating the
// block if needed.
func Append(ctx context.Context, s Store, kind Kind, name, content string) (Block, error) {
	return s.Update(ctx, kind, name, "append", func(old string, exists bool) (string, error) {
		if !exists || old == "" {
			return content, nil
		}
		return strings.TrimRight(old, "\n") + "\n" + content, nil
	})
}

// Move renames kind/name to toKind/toName (archive: working → archival;
// load: archival → working), recording a version on both sides. With keep,
// the source stays (a copy).
func Move(ctx context.Context, s Store, kind Kind, name string, toKind Kind, toName string, keep bool) (Block, error) {
	src, err := s.Get(ctx, kind, name)
	if err != nil {
		return Block{}, err
	}
	b, err := s.Update(ctx, toKind, toName, "from "+string(kind)+" "+name, func(string, bool) (string, error) { return src.Content, nil })
	if err != nil || keep {
		return b, err
	}
	return b, s.Delete(ctx, kind, name)
}
