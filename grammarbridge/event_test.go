package grammarbridge

import (
	"math"
	"testing"
	"unsafe"
)

// TestEventPacking checks that an event is 16 bytes and that what an
// evBegin and an evNum keep in a and b comes back whole: every bit of the
// number (negative zero, NaN, the largest and smallest), and the
// alternative's id next to the parent's slot.
func TestEventPacking(t *testing.T) {
	if n := unsafe.Sizeof(event{}); n != 16 {
		t.Errorf("an event is %d bytes, want 16", n)
	}
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1.5, 3e300, math.SmallestNonzeroFloat64, math.MaxFloat64, math.Inf(-1), math.NaN()} {
		ev := numEvent(7, v)
		if ev.kind != evNum || ev.slot != 7 || math.Float64bits(ev.num()) != math.Float64bits(v) {
			t.Errorf("numEvent(7, %v): kind %d slot %d num %v", v, ev.kind, ev.slot, ev.num())
		}
	}
	for _, c := range []struct{ alt, slot int32 }{{0, -1}, {1, 0}, {math.MaxInt32, 63}} {
		ev := beginEvent(c.alt, c.slot)
		if ev.kind != evBegin || ev.alt() != c.alt || ev.slot != c.slot {
			t.Errorf("beginEvent(%d, %d): kind %d alt %d slot %d", c.alt, c.slot, ev.kind, ev.alt(), ev.slot)
		}
	}
}
