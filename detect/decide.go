package detect

// Decisions: reconsideration, early execution and the post-completion rules
// of docs/language.md §2.

// checkRecon looks for a reconsideration phrase in line[from:to], which is
// prose (code spans are left out; comments are read), for the actions
// before actions[upto] that are waiting for one.
func (s *Scanner) checkRecon(line []byte, from, to, upto int) {
	if !s.reconOpen || s.reconDone >= upto {
		return
	}
	found := ""
	for _, h := range s.hid {
		if h.end <= from || h.kind != asCode {
			continue
		}
		if h.start >= to {
			break
		}
		if h.start > from {
			if found = s.recon.find(line[from:h.start]); found != "" {
				break
			}
		}
		from = h.end
	}
	if found == "" && from < to {
		found = s.recon.find(line[from:to])
	}
	if found == "" {
		return
	}
	for i := s.reconDone; i < upto; i++ {
		if a := &s.actions[i]; a.lineAction || a.Do {
			a.Phrase = found
		}
	}
	s.reconDone = upto
	s.reconOpen = false
	for i := upto; i < len(s.actions); i++ {
		if a := &s.actions[i]; a.lineAction || a.Do {
			s.reconOpen = true
		}
	}
	// A reconsideration inside the window stops early execution; after it,
	// it withdraws what already ran.
	keep := s.early[:0]
	for _, p := range s.early {
		if s.actions[p.idx].Phrase == "" {
			keep = append(keep, p)
		}
	}
	s.early = keep
	for _, i := range s.fired {
		if s.actions[i].Phrase != "" && !s.actions[i].withdrawn {
			s.withdraw(i)
		}
	}
}

// countEarly advances the confirmation windows by one line.
func (s *Scanner) countEarly(line []byte) {
	if len(s.early) == 0 {
		return
	}
	n := len(line) + 1
	if s.opt.EarlyWindowUnit == Words {
		n = countWords(line)
	}
	keep := s.early[:0]
	for _, p := range s.early {
		if s.line > p.line {
			p.seen += n
		}
		if p.seen >= s.opt.EarlyWindow && s.line > p.line {
			a := &s.actions[p.idx]
			a.Early = true
			s.fired = append(s.fired, p.idx)
			if s.opt.OnEarly != nil {
				s.opt.OnEarly(*a)
			}
			continue
		}
		keep = append(keep, p)
	}
	s.early = keep
}

func (s *Scanner) withdraw(i int) {
	a := &s.actions[i]
	a.withdrawn = true
	if s.opt.OnWithdraw != nil {
		s.opt.OnWithdraw(*a)
	}
}

// decide takes the post-completion decisions of docs/language.md §2.
func (s *Scanner) decide() {
	cancelAt := -1
	for i := range s.actions {
		a := &s.actions[i]
		a.Trailing = a.lineAction && i >= s.proseAfter
		if a.Verb == "cancel" && (a.Trailing || a.Do) && a.Phrase == "" && a.Args == "" && a.Kind == NoContent && !a.badMarker {
			cancelAt = i
		}
	}
	for i := range s.actions {
		a := &s.actions[i]
		a.Executable, a.Reason = false, NoReason
		switch {
		case a.where == asCode:
			a.Reason = InsideCode
		case a.where == asComment:
			a.Reason = InsideComment
		case !a.Trailing && !a.Do:
			a.Reason = MidMessage
			if a.Phrase != "" && a.lineAction {
				a.Reason = Reconsidered
			}
		case a.Phrase != "":
			a.Reason = Reconsidered
		case i < cancelAt:
			a.Reason = Cancelled
		case a.Verb == "":
			a.Reason = UnknownVerb
		case a.badMarker:
			a.Reason = InvalidMarker
		case a.tooLarge:
			a.Reason = TooLarge
		case a.unclosed:
			a.Reason = Unterminated
		default:
			a.Executable = true
		}
	}
}
