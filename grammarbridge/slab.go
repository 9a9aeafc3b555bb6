package grammarbridge

import "unsafe"

// slab hands out values of type T from chunks, so that the many small
// nodes of a syntax tree or a compiled grammar cost one allocation a
// chunk rather than one each. Compiling discord.agr made 18,500
// allocations; the collector's share of a compile follows their number
// and bytes.
//
// A chunk lives as long as any value in it, so a slab is for values that
// live and die together: the nodes of one parse, the alternatives and
// parts of one compiled grammar. The zero slab is ready to use.
type slab[T any] struct{ free []T }

// slabChunk is the number of values a chunk holds.
const slabChunk = 64

// new returns a pointer to a zero T.
func (s *slab[T]) new() *T {
	if len(s.free) == 0 {
		s.free = make([]T, slabChunk)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// make returns a slice of n zero Ts whose capacity is n, so an append
// to it never writes into its neighbours' room. A slice longer than a
// quarter chunk gets an allocation of its own.
func (s *slab[T]) make(n int) []T {
	if n > slabChunk/4 {
		return make([]T, n)
	}
	if len(s.free) < n {
		s.free = make([]T, slabChunk)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// strSlab hands out strings from byte chunks, as slab does values: one
// allocation a chunk rather than one a string. The bytes handed out
// are never written again (a chunk is only appended to), and every
// string can be read textPad bytes past its end, in its chunk or its
// own allocation: topObj copies the ops' texts with copyText. The zero
// strSlab is ready to use.
type strSlab struct{ free []byte }

// strChunk is the size of a strSlab's chunk.
const strChunk = 4096

// str returns a string of b's bytes.
func (s *strSlab) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > strChunk/4 {
		c := append(make([]byte, 0, len(b)+textPad), b...)
		return unsafe.String(&c[0], len(b))
	}
	if cap(s.free)-len(s.free) < len(b)+textPad {
		s.free = make([]byte, 0, strChunk)
	}
	start := len(s.free)
	s.free = append(s.free, b...)
	return unsafe.String(&s.free[start], len(b))
}

// clone returns a copy of xs made by make (nil for none).
func (s *slab[T]) clone(xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	out := s.make(len(xs))
	copy(out, xs)
	return out
}

// pop returns a copy, made by make, of what a list gathered on stack
// *stk from base, and takes it off the stack: a list is gathered there
// while its length is unknown and copied out once, at its final length.
func (s *slab[T]) pop(stk *[]T, base int) []T {
	out := s.clone((*stk)[base:])
	clear((*stk)[base:]) // the stack keeps no pointer of it
	*stk = (*stk)[:base]
	return out
}
