package daemon

import (
	"context"
	"testing"
	"time"
)

// TestMemoryIsReturnedOnlyAfterEnoughWasAllocated specifies when a look
// returns freed memory: after more than returnAfter bytes were allocated
// since the last return, counted from that return.
func TestMemoryIsReturnedOnlyAfterEnoughWasAllocated(t *testing.T) {
	cases := []struct {
		name string
		// allocated is the process's allocation count at each look.
		allocated []uint64
		want      []bool
	}{
		{"an idle daemon returns nothing", []uint64{0, 0, 0}, []bool{false, false, false}},
		{"a little allocation is left to the runtime", []uint64{1 << 20, returnAfter}, []bool{false, false}},
		{"a turn's worth is returned at the next look", []uint64{returnAfter + 1}, []bool{true}},
		{"and counted afresh after it", []uint64{returnAfter + 1, 2 * returnAfter, 2*returnAfter + 2}, []bool{true, false, true}},
		{"small allocations add up between looks", []uint64{10 << 20, 20 << 20}, []bool{false, true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var now uint64
			released := 0
			m := &memoryReturner{allocated: func() uint64 { return now }, release: func() { released++ }}
			for i, total := range c.allocated {
				now = total
				before := released
				if got := m.look(); got != c.want[i] || (released > before) != got {
					t.Fatalf("look %d at %d bytes allocated: returned %v (release called %d times), want %v",
						i, total, got, released-before, c.want[i])
				}
			}
		})
	}
}

// TestMemoryReturnerLooksAtEachTickUntilItsContextEnds checks that run
// looks once per tick and stops with its context.
func TestMemoryReturnerLooksAtEachTickUntilItsContextEnds(t *testing.T) {
	looked := make(chan struct{})
	m := &memoryReturner{
		allocated: func() uint64 { looked <- struct{}{}; return 0 },
		release:   func() {},
	}
	ticks := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.run(ctx, ticks); close(done) }()
	for range 3 {
		ticks <- time.Time{}
		<-looked
	}
	cancel()
	<-done
}
