package method

import (
	"container/heap"
	"context"
	"math"

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
// exact order; the rest follow by their bounds.
func airmRanking(ctx context.Context, d *classify.Data, p classify.Pairs, train, test []int, ranks, workers int, scratch *classify.Scratch) (*classify.Outcome, error) {
	// Members of each class by their position in train.
	groups := map[int][]int{}
	for a, j := range train {
		groups[d.Labels[j]] = append(groups[d.Labels[j]], a)
	}
	labels := classify.SortedKeys(groups)
	dim := d.Set.Dim()
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test)), Scores: make([]classify.ItemScore, len(test))}
	// Each worker keeps its classes, their members (one buffer over all
	// of train) and its queue from query to query.
	type state struct {
		anchor  *spd.Anchor
		classes []classState
		q       classQueue
	}
	states := make([]*state, pool.Workers(workers))
	ranks = max(2, ranks)
	err := classify.ForBlocks(ctx, p, test, train, classify.Identity, scratch, func(off int, div *mat.Dense) error {
		n, _ := div.Dims()
		return pool.ForCtx(ctx, n, workers, func(w, qb int) error {
			qi := off + qb
			i := test[qi]
			st := states[w]
			if st == nil {
				a, err := spd.NewAnchor(d.Set.View(i))
				if err != nil {
					return err
				}
				st = &state{anchor: a, classes: make([]classState, len(labels)), q: make(classQueue, 0, len(labels))}
				buf := make([]member, len(train))
				for k, l := range labels {
					n := len(groups[l])
					st.classes[k] = classState{label: l, all: buf[:n:n], dim: dim}
					buf = buf[n:]
				}
				states[w] = st
			}
			st.anchor.Reset(d.Set.View(i))
			st.q = st.q[:0]
			row := div.RawRowView(qb)
			for k, l := range labels {
				c := &st.classes[k]
				for m, a := range groups[l] {
					c.all[m] = member{s: row[a], j: train[a]}
				}
				c.reset()
				st.q = append(st.q, c)
			}
			heap.Init(&st.q)
			ranking := make([]int, 0, len(labels))
			nearest := [2]float64{math.Inf(1), math.Inf(1)}
			for st.q.Len() > 0 && len(ranking) < ranks {
				c := st.q[0]
				if c.resolved() {
					heap.Pop(&st.q)
					if len(ranking) < 2 {
						nearest[len(ranking)] = c.best
					}
					ranking = append(ranking, c.label)
					continue
				}
				dist, err := st.anchor.AIRM(d.Set.View(c.pop()))
				if err != nil {
					return err
				}
				c.best = math.Min(c.best, dist)
				c.bound = c.key()
				heap.Fix(&st.q, 0)
			}
			for st.q.Len() > 0 {
				ranking = append(ranking, heap.Pop(&st.q).(*classState).label)
			}
			out.Ranking[qi] = ranking
			out.Pred[qi] = ranking[0]
			out.Scores[qi] = classify.ItemScore{Label: ranking[0], Second: -1, SCI: math.NaN()}
			if len(ranking) > 1 {
				out.Scores[qi].Second = ranking[1]
			}
			out.Scores[qi].Score, out.Scores[qi].SecondScore = classify.NearestScores(nearest[0], nearest[1])
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// member is a training item and its Stein divergence to the query.
type member struct {
	s float64
	j int
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
// index.
func (c *classState) pop() int {
	if !c.heaped {
		for i := len(c.members)/2 - 1; i >= 0; i-- {
			c.down(i)
		}
		c.heaped = true
	}
	h := c.members
	j := h[0].j
	last := len(h) - 1
	h[0] = h[last]
	c.members = h[:last]
	c.down(0)
	return j
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
