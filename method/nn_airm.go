package method

import (
	"container/heap"
	"context"
	"math"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// airmRanking ranks the classes of train for each test item by their
// nearest member under the affine-invariant Riemannian metric.
//
// It is exact but evaluates few AIRM distances: spd.AIRMLowerBound, a
// sharpening of Property 1 (Sra 2012, S(X, Y) <= d_g²(X, Y)/8), bounds d_g
// from below by the Stein divergences the data already caches. Each class visits its
// members in ascending S; a priority queue orders classes by a lower bound
// on their nearest member's distance, min(best found, the bound of the next
// unvisited member), and a class is emitted once its exact minimum is no
// larger than every other bound. The first ranks classes (at least two,
// whose distances score the answer: classify.NearestScores) come out in
// exact order; the rest follow by their bounds. A worker searches
// airmLanes queries in lockstep and computes the distances they ask for
// together (spd.AIRMPairs), bit for bit one at a time, so that each
// query's search and answer are those it has alone.
func airmRanking(ctx context.Context, d *classify.Data, p classify.Pairs, train, test []int, ranks, workers int, scratch *classify.Scratch) (*classify.Outcome, error) {
	// Members of each class by their position in train.
	groups := map[int][]int{}
	for a, j := range train {
		groups[d.Labels[j]] = append(groups[d.Labels[j]], a)
	}
	labels := classify.SortedKeys(groups)
	dim := d.Set.Dim()
	// Each training item factorised once for all the queries (a
	// spd.Target); one that NewTarget refuses leaves the search to
	// Anchor.AIRM, which names what is wrong with it.
	targets := make([]*spd.Target, len(train))
	all := true
	for a, j := range train {
		var err error
		if targets[a], err = spd.NewTarget(d.Set.View(j)); err != nil {
			targets[a], all = nil, false
		}
	}
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test)), Scores: make([]classify.ItemScore, len(test))}
	// Each worker keeps airmLanes searches, one query each, from chunk to
	// chunk; they run in lockstep, each asking for one distance at a
	// time, so that the distances are computed airmLanes pairs at once
	// (spd.AIRMPairs), bit for bit one at a time: each query's search,
	// and so its answer, is the same as alone.
	type state struct {
		lanes []*airmSearch
		wait  []*airmSearch // the lanes of the pairs below
		as    []*spd.Anchor
		ts    []*spd.Target
		dist  []float64
	}
	states := make([]*state, pool.Workers(workers))
	ranks = max(2, ranks)
	err := classify.ForBlocks(ctx, p, test, train, classify.Identity, scratch, func(off int, div *mat.Dense) error {
		n, _ := div.Dims()
		chunks := (n + airmChunk - 1) / airmChunk
		return pool.ForCtx(ctx, chunks, workers, func(w, ch int) error {
			st := states[w]
			if st == nil {
				st = &state{lanes: make([]*airmSearch, airmLanes)}
				for k := range st.lanes {
					st.lanes[k] = newAIRMSearch(groups, labels, len(train), dim)
				}
				states[w] = st
			}
			next, end := ch*airmChunk, min(n, (ch+1)*airmChunk)
			for {
				st.wait, st.as, st.ts = st.wait[:0], st.as[:0], st.ts[:0]
				for _, l := range st.lanes {
					for !l.waiting {
						if !l.active {
							if next == end {
								break
							}
							if err := l.begin(d, train, test, off, next, div.RawRowView(next), ranks); err != nil {
								return err
							}
							next++
						}
						if !l.step() {
							l.finish(out, off)
						}
					}
					if l.waiting {
						st.wait, st.as, st.ts = append(st.wait, l), append(st.as, l.anchor), append(st.ts, targets[l.a])
					}
				}
				if len(st.wait) == 0 {
					return nil
				}
				st.dist = slices.Grow(st.dist[:0], len(st.wait))[:len(st.wait)]
				if all {
					if err := spd.AIRMPairs(st.dist, st.as, st.ts); err != nil {
						return err
					}
				} else {
					for i, l := range st.wait {
						var err error
						if st.ts[i] != nil {
							st.dist[i], err = l.anchor.AIRMTarget(st.ts[i])
						} else {
							st.dist[i], err = l.anchor.AIRM(d.Set.View(train[l.a]))
						}
						if err != nil {
							return err
						}
					}
				}
				for i, l := range st.wait {
					l.feed(st.dist[i])
				}
			}
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// airmLanes is the number of queries that a worker of airmRanking
// searches in lockstep: the eight lanes of spd.AIRMPairs.
const airmLanes = 8

// airmChunk is the number of queries a worker of airmRanking takes at a
// time, many times airmLanes, so that few batches run with lanes idle at
// a chunk's end.
const airmChunk = 128

// airmSearch is one query's search of airmRanking: the classes, their
// members (one buffer over all of train) and the queue, reused from
// query to query, and where the search stands.
type airmSearch struct {
	anchor  *spd.Anchor
	classes []classState
	q       classQueue
	// qb is the query's position in its block, ranks the classes to
	// emit in exact order.
	qb, ranks int
	ranking   []int
	nearest   [2]float64
	// active: a query is under way; waiting: it asks for the distance
	// to the member at position a of train, of class c.
	active, waiting bool
	c               *classState
	a               int
}

func newAIRMSearch(groups map[int][]int, labels []int, n, dim int) *airmSearch {
	l := &airmSearch{classes: make([]classState, len(labels)), q: make(classQueue, 0, len(labels))}
	buf := make([]member, n)
	for k, lb := range labels {
		m := len(groups[lb])
		l.classes[k] = classState{label: lb, all: buf[:m:m], dim: dim, group: groups[lb]}
		buf = buf[m:]
	}
	return l
}

// begin starts the search of the query at position qb of the block at
// offset off of test, whose Stein divergences to train are row.
func (l *airmSearch) begin(d *classify.Data, train, test []int, off, qb int, row []float64, ranks int) error {
	x := d.Set.View(test[off+qb])
	if l.anchor == nil {
		a, err := spd.NewAnchor(x)
		if err != nil {
			return err
		}
		l.anchor = a
	}
	l.anchor.Reset(x)
	l.q = l.q[:0]
	for k := range l.classes {
		c := &l.classes[k]
		for m, a := range c.group {
			c.all[m] = member{s: row[a], j: train[a], a: a}
		}
		c.reset()
		l.q = append(l.q, c)
	}
	heap.Init(&l.q)
	l.qb, l.ranks, l.active = qb, ranks, true
	l.ranking = make([]int, 0, len(l.classes))
	l.nearest = [2]float64{math.Inf(1), math.Inf(1)}
	return nil
}

// step advances the search: it emits the classes that are resolved and
// reports true, waiting, when it needs the distance to the next member
// of the class at the queue's head, false when the first ranks classes
// are out.
func (l *airmSearch) step() bool {
	for l.q.Len() > 0 && len(l.ranking) < l.ranks {
		c := l.q[0]
		if c.resolved() {
			heap.Pop(&l.q)
			if len(l.ranking) < 2 {
				l.nearest[len(l.ranking)] = c.best
			}
			l.ranking = append(l.ranking, c.label)
			continue
		}
		l.c, l.a, l.waiting = c, c.pop(), true
		return true
	}
	return false
}

// feed gives the search the distance it waits for.
func (l *airmSearch) feed(dist float64) {
	c := l.c
	c.best = math.Min(c.best, dist)
	c.bound = c.key()
	heap.Fix(&l.q, 0)
	l.waiting = false
}

// finish ranks the classes left by their bounds and writes the query's
// answer into out (the block at offset off).
func (l *airmSearch) finish(out *classify.Outcome, off int) {
	ranking := l.ranking
	for l.q.Len() > 0 {
		ranking = append(ranking, heap.Pop(&l.q).(*classState).label)
	}
	qi := off + l.qb
	out.Ranking[qi] = ranking
	out.Pred[qi] = ranking[0]
	out.Scores[qi] = classify.ItemScore{Label: ranking[0], Second: -1, SCI: math.NaN()}
	if len(ranking) > 1 {
		out.Scores[qi].Second = ranking[1]
	}
	out.Scores[qi].Score, out.Scores[qi].SecondScore = classify.NearestScores(l.nearest[0], l.nearest[1])
	l.active, l.ranking = false, nil
}

// member is a training item, j, at position a of train, and its Stein
// divergence to the query.
type member struct {
	s    float64
	j, a int
}

// less orders members by divergence, ties by index.
func (a member) less(b member) bool { return a.s < b.s || (a.s == b.s && a.j < b.j) }

// classState tracks one class's nearest-member search for one query. Most
// classes are settled after a member or two, so the unvisited members are
// kept in a binary min-heap (O(n) to build) rather than sorted, and most
// are never visited at all: the heap is built at the first pop, and until
// then only the least member, which the bound needs, is found.
type classState struct {
	label   int
	group   []int    // the positions in train of the class's members
	all     []member // the class's members, filled in for each query
	members []member // the unvisited members of all, least first; a min-heap once heaped
	heaped  bool
	best    float64 // smallest AIRM distance found
	bound   float64 // lower bound on the class's nearest distance
	dim     int     // d of the d×d matrices
}

// reset starts the search over all: every member unvisited, none found.
func (c *classState) reset() {
	c.members, c.best, c.heaped = c.all, math.Inf(1), false
	h := c.members
	least := 0
	for i := 1; i < len(h); i++ {
		if h[i].less(h[least]) {
			least = i
		}
	}
	if len(h) > 0 {
		h[0], h[least] = h[least], h[0]
	}
	c.bound = c.key()
}

// pop removes the unvisited member of least divergence and returns its
// position in train.
func (c *classState) pop() int {
	if !c.heaped {
		for i := len(c.members)/2 - 1; i >= 0; i-- {
			c.down(i)
		}
		c.heaped = true
	}
	h := c.members
	a := h[0].a
	last := len(h) - 1
	h[0] = h[last]
	c.members = h[:last]
	c.down(0)
	return a
}

func (c *classState) down(i int) {
	h := c.members
	for {
		m := 2*i + 1
		if m >= len(h) {
			return
		}
		if r := m + 1; r < len(h) && h[r].less(h[m]) {
			m = r
		}
		if !h[m].less(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// lower returns spd.AIRMLowerBound on the AIRM distance of the next
// unvisited member, shrunk by a relative 1e-9 so that round-off in S cannot
// make it exceed the true distance.
func (c *classState) lower() float64 {
	if len(c.members) == 0 {
		return math.Inf(1)
	}
	return spd.AIRMLowerBound(c.members[0].s, c.dim) * (1 - 1e-9)
}

func (c *classState) key() float64 { return math.Min(c.best, c.lower()) }

// resolved reports that best is the class's exact nearest distance.
func (c *classState) resolved() bool { return c.best <= c.lower() }

// classQueue is a min-heap of classes by bound, ties by label.
type classQueue []*classState

func (h classQueue) Len() int { return len(h) }
func (h classQueue) Less(a, b int) bool {
	if h[a].bound != h[b].bound {
		return h[a].bound < h[b].bound
	}
	return h[a].label < h[b].label
}
func (h classQueue) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *classQueue) Push(x any)   { *h = append(*h, x.(*classState)) }
func (h *classQueue) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
