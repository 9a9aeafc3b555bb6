package dialect

import (
	"context"
	"strings"
	"sync"

	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/failures"
	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/verbs"
)

// Stream runs the actions of one message that arrives in pieces, such as a
// model's streamed answer. Write the text as it comes, in chunks of any
// size; Close when the message is complete. Decisions never depend on where
// the chunks split.
//
// By default every action is decided and run at Close. With
// [detect] early_execution, a /do action whose intent is read-only runs as
// soon as its confirmation window passes; a later reconsideration or
// cancel withdraws it, and its result is then discarded, never delivered.
type Stream struct {
	rt       *Runtime
	ctx      context.Context
	msg      Message
	text     strings.Builder // the message so far
	sc       *detect.Scanner
	onResult func(Result)

	mu     sync.Mutex
	early  map[int]*earlyRun // by the action's span start
	closed bool
}

// earlyRun is an action started before the message ended.
type earlyRun struct {
	done      chan struct{}
	res       Result
	fail      *failures.Failure // what to log, if it failed
	withdrawn bool
}

// NewStream starts a stream for msg (whose Text is ignored: write the text
// to the stream). onResult, if not nil, receives every result at Close, in
// message order (an early action's too: only then is it known not to be
// withdrawn); Close also returns them all.
func (rt *Runtime) NewStream(ctx context.Context, msg Message, onResult func(Result)) *Stream {
	s := &Stream{rt: rt, ctx: ctx, msg: msg, onResult: onResult, early: map[int]*earlyRun{}}
	opt := rt.DetectOptions()
	if opt.EarlyExecution {
		opt.ReadOnly = s.readOnly
		opt.OnEarly = s.startEarly
		opt.OnWithdraw = s.withdraw
	}
	s.sc = detect.NewScanner(rt.vocab, opt)
	return s
}

// Write feeds the next piece of the message. It never fails before Close.
func (s *Stream) Write(p []byte) (int, error) {
	s.text.Write(p)
	return s.sc.Write(p)
}

// WriteString is Write for a string.
func (s *Stream) WriteString(p string) (int, error) { return s.Write([]byte(p)) }

// Close ends the message, runs what it decided and returns every result.
// Early results are reused, not run again; withdrawn ones are dropped.
func (s *Stream) Close() ([]Result, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil
	}
	s.closed = true
	s.mu.Unlock()
	s.sc.Close()
	s.msg.Text = s.text.String()
	results, err := s.rt.runActions(s.ctx, s.msg, s.sc.Actions(), s.earlyResult)
	if s.onResult != nil {
		for _, r := range results {
			s.onResult(r)
		}
	}
	return results, err
}

// readOnly tells the scanner whether an action may run early: it parses
// the action and asks its intent.
func (s *Stream) readOnly(a *detect.Action) bool {
	it, err := s.parse(s.ctx, a)
	return err == nil && it.ReadOnly()
}

func (s *Stream) parse(ctx context.Context, a *detect.Action) (intent.Intent, error) {
	in := verbs.Input{Token: a.Token, Args: a.Args, Content: a.Content, Kind: verbs.ContentKind(a.Kind), Marker: a.Marker, Blocks: blockLookup{s.rt.store}}
	_, it, err := s.rt.registry.ParseAction(ctx, a.Token, a.Verb, in)
	return it, err
}

// startEarly runs a cleared action in the background.
func (s *Stream) startEarly(a detect.Action) {
	run := &earlyRun{done: make(chan struct{})}
	s.mu.Lock()
	s.early[a.Span.Start] = run
	s.mu.Unlock()
	msg := s.msg
	msg.Text = s.text.String()
	go func() {
		defer close(run.done)
		r := Result{Line: a.Span.Line, Token: a.Token, Verb: a.Verb, Chain: a.Chain}
		run.fail = s.rt.runOne(s.ctx, msg, &a, nil, &r)
		run.res = r
	}()
}

// withdraw marks an early action's result as discarded.
func (s *Stream) withdraw(a detect.Action) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if run := s.early[a.Span.Start]; run != nil {
		run.withdrawn = true
	}
}

// earlyResult returns the run of an action that already started early,
// or nil; it waits for one still running.
func (s *Stream) earlyResult(a *detect.Action) *earlyRun {
	s.mu.Lock()
	run := s.early[a.Span.Start]
	s.mu.Unlock()
	if run == nil || run.withdrawn {
		return nil
	}
	<-run.done
	return run
}
