package dialect

import (
	"context"
	"strings"
	"sync"

	"github.com/pattern-dialect/dialect/detect"
	"github.com/pattern-dialect/dialect/failures"
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
	vocab    *vocab
	sc       *detect.Scanner
	onResult func(Result)
	span     messageSpan // the message's span, from NewStream to Close

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
	s := &Stream{rt: rt, msg: msg, onResult: onResult, early: map[int]*earlyRun{}, vocab: rt.newVocab()}
	s.ctx, s.span = rt.tel.startMessage(ctx, msg)
	opt := rt.detect
	if opt.EarlyExecution {
		opt.ReadOnly = s.readOnly
		opt.OnEarly = s.startEarly
		opt.OnWithdraw = s.withdraw
	}
	s.sc = detect.NewScanner(s.vocab, opt)
	return s
}

// Write feeds the next piece of the message. It never fails before Close.
func (s *Stream) Write(p []byte) (int, error) {
	s.text.Write(p)
	return s.sc.Write(p)
}

// SetModel names the model that wrote the message, for a stream that
// learns it only from the stream itself (an API's first chunk). Call it
// before Close.
func (s *Stream) SetModel(model string) { s.msg.Model = model }

// WriteString is Write for a string.
func (s *Stream) WriteString(p string) (int, error) { return s.Write([]byte(p)) }

// Close ends the message, runs what it decided and returns every result.
// Early results are reused, not run again; withdrawn ones are dropped.
// The agent is checked as Run checks it.
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
	if err := checkAgent(s.msg.Agent); err != nil {
		s.rt.tel.endMessage(s.span, s.msg, nil, err)
		return nil, err
	}
	results, err := s.rt.runActions(s.ctx, s.msg, s.vocab, s.sc.Actions(), s.earlyResult)
	s.rt.tel.endMessage(s.span, s.msg, results, err)
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
	if checkAgent(s.msg.Agent) != nil {
		return false
	}
	var r Result
	it, err := s.rt.parse(s.ctx, s.vocab, a, s.rt.blocks, &r)
	return err == nil && it.ReadOnly()
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
		r := s.rt.describe(s.vocab, &a, 0)
		rec := s.rt.tel.startAction(s.ctx)
		run.fail, _ = s.rt.runOne(rec.ctx, msg, s.vocab, &a, &r) // a halt is never read-only
		s.rt.tel.endAction(rec, msg, &a, rawAction(msg.Text, &a), &r)
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

// Detector reads a message that arrives in pieces, as Detect reads a whole
// one: it finds the actions and resolves their verbs, running nothing.
type Detector struct {
	rt    *Runtime
	vocab *vocab
	sc    *detect.Scanner
}

// NewDetector returns a Detector for one message; Reset starts the next.
func (rt *Runtime) NewDetector() *Detector {
	d := &Detector{rt: rt}
	d.Reset()
	return d
}

// Write feeds the next piece of the message.
func (d *Detector) Write(p []byte) (int, error) { return d.sc.Write(p) }

// Close ends the message and returns what Detect returns for it.
func (d *Detector) Close() []Result {
	d.sc.Close()
	return d.rt.describeAll(d.vocab, d.sc.Actions())
}

// Reset makes the Detector ready for another message.
func (d *Detector) Reset() {
	d.vocab = d.rt.newVocab()
	d.sc = detect.NewScanner(d.vocab, d.rt.detect)
}
