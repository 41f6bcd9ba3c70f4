// Package gctune sets the garbage collector's heap growth (GOGC) after
// every collection from the heap that the collection found live, so that
// the heap may grow past the live data by a share of it, but by at least
// a fixed amount.
//
// A fixed GOGC cannot serve both kinds of covpipe run. A large one (a
// protocol holding hundreds of megabytes of descriptors and kernel
// blocks, mostly pointer-free float arrays that cost the collector little
// to mark) wants a small growth, which bounds its peak at little more
// than its live data. A small one (the synthetic protocol, a few tens of
// megabytes live) then collects every megabyte or two: at GOGC=25 the
// synthetic protocol runs 13% longer than at Go's default. Growth by
// max(Percent % of the live heap, Floor) gives the first its bound and
// the second its speed.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// minHeap is the Go runtime's minimum heap goal at GOGC=100 (4 MiB): at
// GOGC=g no collection starts below minHeap·g/100, whatever the live heap.
const minHeap = 4 << 20

// Policy is a heap growth rule: after a collection that finds live bytes
// live, the next starts when the heap reaches
//
//	live + max(live·Percent/100, Floor).
type Policy struct {
	// Percent is the growth, in percent of the live heap, of large heaps
	// (GOGC's meaning); it must be positive.
	Percent int
	// Floor is the least growth in bytes, the headroom of small heaps.
	Floor uint64
}

// GOGC returns the GOGC value that gives p's heap goal after a collection
// that found live bytes live: max(Percent, 100·Floor/live), but at most
// 100·Floor/4 MiB, where the runtime's minimum heap goal reaches Floor.
func (p Policy) GOGC(live uint64) int {
	most := int(100 * p.Floor / minHeap)
	if live == 0 {
		return max(p.Percent, most)
	}
	return max(p.Percent, min(most, int(100*p.Floor/live)))
}

// Start sets the collector's growth to p.GOGC of the live heap now and
// again after every collection, until stop is called; stop returns the
// growth to what it was before Start. Only one policy should run in a
// process at a time: a second one overwrites the first's setting.
func Start(p Policy) (stop func()) {
	t := &tuner{policy: p, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.mu.Lock()
	t.last = p.GOGC(t.live())
	prev := debug.SetGCPercent(t.last)
	t.mu.Unlock()
	t.arm()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			t.stopped = true
			debug.SetGCPercent(prev)
		})
	}
}

type tuner struct {
	policy Policy
	mu     sync.Mutex // guards the fields below and the setting itself
	sample []metrics.Sample
	last   int // the GOGC set last
	// stopped is set by stop, after which the tuner sets nothing.
	stopped bool
}

// live is the heap that the last collection found live, in bytes; t.mu
// is held.
func (t *tuner) live() uint64 {
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return t.sample[0].Value.Uint64()
}

// sentinel is an object that nothing references: the collector finds it
// unreachable in the cycle after its allocation, and its cleanup runs.
// Its pointer field, never set, keeps it out of the tiny allocator, which
// packs small pointer-free objects into one block that is freed (and its
// cleanups run) only when all of them are.
type sentinel struct{ _ *tuner }

// arm allocates a sentinel whose cleanup sets the policy's growth for the
// live heap and arms the next, so that the policy runs after every
// collection.
func (t *tuner) arm() {
	runtime.AddCleanup(&sentinel{}, func(t *tuner) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.stopped {
			return
		}
		if g := t.policy.GOGC(t.live()); g != t.last {
			debug.SetGCPercent(g)
			t.last = g
		}
		t.arm()
	}, t)
}
