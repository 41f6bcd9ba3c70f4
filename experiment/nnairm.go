package experiment

import (
	"container/heap"
	"math"
	"sort"

	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/spd"
)

// nnAIRM is the nearest neighbour under the affine-invariant Riemannian
// metric; classes rank by their nearest member.
//
// It is exact but evaluates few AIRM distances: by Property 1 (Sra 2012),
// S(X, Y) <= d_g²(X, Y)/8, so √(8 S) is a lower bound on d_g computable
// from the Stein divergences the data already caches. Each class keeps its
// members sorted by S; a priority queue orders classes by a lower bound on
// their nearest member's distance, min(best found, √(8 S) of the next
// unvisited member), and a class is emitted once its exact minimum is no
// larger than every other bound. The first Split.Ranks classes (at least
// one) come out in exact order; the rest follow by their bounds.
type nnAIRM struct{ memo *selections }

func newNNAIRM(c MethodConfig) (Method, error) {
	if err := unused(c); err != nil {
		return nil, err
	}
	return nnAIRM{memo: &selections{}}, nil
}

func (m nnAIRM) Classify(s *Split) (*Outcome, error) {
	return withRidgeSelection(s, m.memo, func(d *Data, train, test []int) (*Outcome, error) {
		div, err := d.SteinDivergences()
		if err != nil {
			return nil, err
		}
		groups := byClass(d.Labels, train)
		labels := sortedKeys(groups)
		out := &Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test))}
		type state struct {
			anchor *spd.Anchor
			q      classQueue
		}
		states := make([]*state, pool.Workers(s.Workers))
		ranks := max(1, s.Ranks)
		err = pool.ForErr(len(test), s.Workers, func(w, qi int) error {
			st := states[w]
			if st == nil {
				a, err := spd.NewAnchor(d.Set.View(test[qi]))
				if err != nil {
					return err
				}
				st = &state{anchor: a}
				states[w] = st
			}
			i := test[qi]
			st.anchor.Reset(d.Set.View(i))
			st.q = st.q[:0]
			for _, l := range labels {
				members := append([]int(nil), groups[l]...)
				sort.SliceStable(members, func(a, b int) bool { return div.At(i, members[a]) < div.At(i, members[b]) })
				c := &classState{label: l, members: members, best: math.Inf(1)}
				c.bound = c.key(div, i)
				st.q = append(st.q, c)
			}
			heap.Init(&st.q)
			var ranking []int
			for st.q.Len() > 0 && len(ranking) < ranks {
				c := st.q[0]
				if c.resolved(div, i) {
					heap.Pop(&st.q)
					ranking = append(ranking, c.label)
					continue
				}
				dist, err := st.anchor.AIRM(d.Set.View(c.members[c.next]))
				if err != nil {
					return err
				}
				c.next++
				c.best = math.Min(c.best, dist)
				c.bound = c.key(div, i)
				heap.Fix(&st.q, 0)
			}
			for st.q.Len() > 0 {
				ranking = append(ranking, heap.Pop(&st.q).(*classState).label)
			}
			out.Ranking[qi] = ranking
			out.Pred[qi] = ranking[0]
			return nil
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	})
}

// classState tracks one class's nearest-member search for one query.
type classState struct {
	label   int
	members []int   // ascending Stein divergence to the query
	next    int     // first member whose AIRM distance is unknown
	best    float64 // smallest AIRM distance found
	bound   float64 // lower bound on the class's nearest distance
}

// lower returns the Property 1 bound √(8 S) on the AIRM distance of the
// next unvisited member, shrunk by a relative 1e-9 so that round-off in S
// cannot make it exceed the true distance.
func (c *classState) lower(div interface{ At(i, j int) float64 }, q int) float64 {
	if c.next == len(c.members) {
		return math.Inf(1)
	}
	return math.Sqrt(8*div.At(q, c.members[c.next])) * (1 - 1e-9)
}

func (c *classState) key(div interface{ At(i, j int) float64 }, q int) float64 {
	return math.Min(c.best, c.lower(div, q))
}

// resolved reports that best is the class's exact nearest distance.
func (c *classState) resolved(div interface{ At(i, j int) float64 }, q int) bool {
	return c.best <= c.lower(div, q)
}

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
