package spd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/covpipe/covpipe/internal/dense"
	"github.com/covpipe/covpipe/internal/pool"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// KMeansOptions configure KMeans.
type KMeansOptions struct {
	K       int     // number of clusters, 1 <= K <= set.Len()
	Metric  Metric  // AIRMMetric (centroids: Karcher means, objective Σ d_g²) or SteinMetric (centroids: the Stein / Jensen–Bregman log-det mean, objective Σ S); other metrics are an error
	MaxIter int     // iteration cap; 0 means 100
	Tol     float64 // stop when the objective's relative decrease is below Tol; 0 means 1e-6
	Seed    uint64  // k-means++ seeding (D² sampling with the metric)
	Workers int     // the assignment step's parallelism; 0 means GOMAXPROCS; results do not depend on it
	// OnIteration, if not nil, is called with the centroids (copies) of
	// iteration 0 (the k-means++ seeds) and after each update step, so
	// that callers can trace the run (the paper's Fig. 7); an error it
	// returns stops KMeans with that error.
	OnIteration func(iteration int, centroids []*mat.SymDense) error
}

// KMeansResult is the outcome of KMeans.
type KMeansResult struct {
	Centroids  []*mat.SymDense
	Assign     []int   // cluster of each element
	Objective  float64 // Σ over elements of d_g² (AIRM) or S (Stein) to their centroid
	Iterations int
	Converged  bool
	Reseeded   int // empty clusters re-seeded (with the element farthest from its centroid)
	// UnconvergedMeans counts the cluster means, over all iterations,
	// that reached their iteration cap before their tolerance (their last
	// iterate is the centroid).
	UnconvergedMeans int
}

// KMeans partitions the matrices of set into o.K clusters by Riemannian
// k-means: Lloyd's algorithm (S. P. Lloyd, "Least squares quantization in
// PCM", IEEE Trans. Inf. Theory 1982) with the Euclidean distance and mean
// replaced by those of the chosen geometry. It decreases the
// objective
//
//	J = Σ_i c(X_i, C_{a(i)}),  c = d_g² (AIRMMetric) or S (SteinMetric),
//
// over the assignment a and the centroids C_k by alternating
//
//	assignment  a(i) ← argmin_k c(X_i, C_k)  (ties to the lowest k),
//	update      C_k ← argmin_C Σ_{a(i)=k} c(X_i, C),
//
// where the minimiser of the update is the Karcher mean of the cluster
// under the AIRM (KarcherMean; Pennec et al. 2006) and its Stein mean
// under S (SteinMean; Cherian et al. 2013). Neither step increases J. The
// paper's Section 4 (and Algorithm 1) initialises a dictionary "by
// Riemannian clustering using the Karcher mean": the centroids of
// KMeans with AIRMMetric.
//
// The centroids are seeded by k-means++ (Arthur and Vassilvitskii,
// "k-means++: The Advantages of Careful Seeding", SODA 2007): the first is
// an element drawn uniformly, each further one an element drawn with
// probability proportional to its cost c to the nearest centroid so far
// (d_g², Arthur and Vassilvitskii's D², or S), from a PCG generator seeded with
// o.Seed. A cluster left empty by an assignment is re-seeded with the
// element farthest (largest c) from its centroid among those whose
// cluster keeps another element, so every cluster of the result is
// non-empty; Reseeded counts these events.
//
// An iteration is one update and one assignment step; Iterations counts
// them. The iteration stops after o.MaxIter of them, or earlier, with
// Converged set, when an assignment changes nothing or J decreases by less
// than o.Tol·J. The means use the defaults of KarcherMean and SteinMean; one
// that reaches its own iteration cap keeps its last iterate, and
// UnconvergedMeans counts them. The returned
// centroids are the means of the returned clusters and Objective is J for
// them. The assignment step (and the seeding's distances and the cluster
// means) run on o.Workers goroutines, each with its own Workspace and
// without allocating per element; every number of the result is the same
// for any o.Workers.
//
// It returns an error wrapping ErrEmpty for a nil or empty set,
// ErrParameter for K outside [1, set.Len()], a metric other than
// AIRMMetric and SteinMetric, or a negative MaxIter, Tol or Workers, and
// the errors of the means and distances (ErrNotSPD, ErrNotFinite) should
// a computation fail. Once ctx is cancelled it returns an error wrapping
// ctx.Err() within an element's distances or a cluster's mean iteration.
func KMeans(ctx context.Context, set *Set, o KMeansOptions) (*KMeansResult, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
	return kmeans(ctx, set, o, nil)
}

// kmeansTrace records the course of a k-means run for tests.
type kmeansTrace struct {
	seeds      []int     // the elements k-means++ chose, in order
	objectives []float64 // J after each assignment step, and after a final update
}

// kmeansState holds the centroids of a run and the per-worker buffers.
type kmeansState struct {
	set     *Set
	metric  Metric
	k, d    int
	workers int
	cent    []float64        // K centroids, full row-major d×d blocks
	chol    []float64        // their upper Cholesky factors, C = UᵀU
	logdet  []float64        // their log-determinants
	ws      []*Workspace     // per worker
	views   []mat.SymDense   // per worker: an element, for Workspace.whitenedEigen
	means   []*steinMeanWork // per worker (Stein update)
	// unconverged counts the means that reached their iteration cap.
	unconverged atomic.Int64
}

func (o *KMeansOptions) check(set *Set) error {
	switch {
	case set == nil || set.n == 0:
		return fmt.Errorf("%w: no matrices", ErrEmpty)
	case o.K < 1 || o.K > set.n:
		return fmt.Errorf("%w: K = %d must be in [1, %d] (the number of matrices)", ErrParameter, o.K, set.n)
	case o.Metric != AIRMMetric && o.Metric != SteinMetric:
		return fmt.Errorf("%w: metric %v (k-means takes airm or stein)", ErrParameter, o.Metric)
	case o.MaxIter < 0:
		return fmt.Errorf("%w: iteration cap %d must be >= 0", ErrParameter, o.MaxIter)
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 0):
		return fmt.Errorf("%w: tolerance %v must be finite and >= 0", ErrParameter, o.Tol)
	case o.Workers < 0:
		return fmt.Errorf("%w: workers %d must be >= 0", ErrParameter, o.Workers)
	}
	return nil
}

func kmeans(ctx context.Context, set *Set, o KMeansOptions, tr *kmeansTrace) (*KMeansResult, error) {
	if err := o.check(set); err != nil {
		return nil, fmt.Errorf("k-means: %w", err)
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	if o.Tol == 0 {
		o.Tol = 1e-6
	}
	n, d, k := set.n, set.d, o.K
	w := min(pool.Workers(o.Workers), n) // ForErr runs at most n workers (K <= n)
	s := &kmeansState{
		set: set, metric: o.Metric, k: k, d: d, workers: w,
		cent:   make([]float64, k*d*d),
		chol:   make([]float64, k*d*d),
		logdet: make([]float64, k),
		ws:     make([]*Workspace, w),
		views:  make([]mat.SymDense, w),
		means:  make([]*steinMeanWork, w),
	}
	assign := make([]int, n)
	cost := make([]float64, n)
	if err := s.seed(ctx, o.Seed, assign, cost, tr); err != nil {
		return nil, fmt.Errorf("k-means: seeding: %w", err)
	}
	res := &KMeansResult{Assign: assign}
	report := func(iteration int) error {
		if o.OnIteration == nil {
			return nil
		}
		return o.OnIteration(iteration, s.centroids())
	}
	if err := report(0); err != nil {
		return nil, err
	}
	res.Reseeded += s.reseed(assign, cost)
	obj := floats.Sum(cost)
	tr.objective(obj)
	prev := make([]int, n)
	members := make([][]int, k)
	changed := true
	for res.Iterations < o.MaxIter {
		if err := s.update(ctx, assign, members); err != nil {
			return nil, fmt.Errorf("k-means: iteration %d: %w", res.Iterations+1, err)
		}
		if err := report(res.Iterations + 1); err != nil {
			return nil, err
		}
		copy(prev, assign)
		if err := s.assign(ctx, assign, cost); err != nil {
			return nil, fmt.Errorf("k-means: iteration %d: %w", res.Iterations+1, err)
		}
		res.Reseeded += s.reseed(assign, cost)
		res.Iterations++
		last := obj
		obj = floats.Sum(cost)
		tr.objective(obj)
		changed = !slices.Equal(prev, assign)
		if !changed || last-obj <= o.Tol*last {
			res.Converged = true
			break
		}
	}
	if changed {
		// Make the centroids the means of the returned clusters.
		if err := s.update(ctx, assign, members); err != nil {
			return nil, fmt.Errorf("k-means: final update: %w", err)
		}
		if err := s.costs(ctx, assign, cost); err != nil {
			return nil, fmt.Errorf("k-means: final update: %w", err)
		}
		obj = floats.Sum(cost)
		tr.objective(obj)
	}
	res.Objective = obj
	res.Centroids = s.centroids()
	res.UnconvergedMeans = int(s.unconverged.Load())
	return res, nil
}

// centroids returns copies of the current centroids.
func (s *kmeansState) centroids() []*mat.SymDense {
	out := make([]*mat.SymDense, s.k)
	dd := s.d * s.d
	for c := range out {
		out[c] = mat.NewSymDense(s.d, append([]float64(nil), s.cent[c*dd:(c+1)*dd]...))
	}
	return out
}

func (tr *kmeansTrace) objective(j float64) {
	if tr != nil {
		tr.objectives = append(tr.objectives, j)
	}
}

// setCentroid makes centroid c the full row-major matrix src (or, with src
// nil, what its slot already holds) and factorises it.
func (s *kmeansState) setCentroid(c int, src []float64) error {
	dd := s.d * s.d
	dst := s.cent[c*dd : (c+1)*dd]
	if src != nil {
		copy(dst, src)
	}
	u := s.chol[c*dd : (c+1)*dd]
	copy(u, dst)
	ld, ok := dense.CholLogDet(u, s.d)
	if !ok {
		return fmt.Errorf("centroid %d: %w: Cholesky factorisation failed", c, ErrNotSPD)
	}
	s.logdet[c] = ld
	return nil
}

// cost returns c(X_i, C_c) on worker w: d_g² from the generalised
// eigenvalues of the pair (AIRM), or S from one Cholesky factorisation
// with the cached log-determinants (Stein). It allocates nothing.
func (s *kmeansState) cost(w, i, c int) (float64, error) {
	if s.ws[w] == nil {
		s.ws[w] = NewWorkspace(s.d)
	}
	ws := s.ws[w]
	dd := s.d * s.d
	if s.metric == SteinMetric {
		v, ok := steinEntry(ws.a, s.set.block(i), s.cent[c*dd:(c+1)*dd], s.d, s.set.logdet[i], s.logdet[c])
		if !ok {
			return 0, fmt.Errorf("Stein divergence of matrix %d and centroid %d: %w: Cholesky factorisation of (X+C)/2 failed", i, c, ErrNotSPD)
		}
		return v, nil
	}
	x := &s.views[w]
	x.SetRawSymmetric(blas64.Symmetric{N: s.d, Stride: s.d, Data: s.set.block(i), Uplo: blas.Upper})
	if err := ws.whitenedEigen(s.chol[c*dd:(c+1)*dd], x); err != nil {
		return 0, fmt.Errorf("AIRM distance of matrix %d and centroid %d: %w", i, c, err)
	}
	var v float64
	for _, l := range ws.vals {
		lg := ws.genLog(l)
		v += lg * lg
	}
	return v, nil
}

// seed chooses the centroids by k-means++ and leaves in assign and cost
// the nearest centroid of each element and the cost to it, as the
// assignment step would.
func (s *kmeansState) seed(ctx context.Context, seed uint64, assign []int, cost []float64, tr *kmeansTrace) error {
	n := s.set.n
	rng := rand.New(rand.NewPCG(seed, 0x4b4d45414e53)) // "KMEANS"
	chosen := make([]bool, n)
	for i := range cost {
		cost[i] = math.Inf(1)
	}
	pick := rng.IntN(n)
	for c := range s.k {
		if c > 0 {
			pick = s.sample(rng, cost, chosen)
		}
		chosen[pick] = true
		if tr != nil {
			tr.seeds = append(tr.seeds, pick)
		}
		if err := s.setCentroid(c, s.set.block(pick)); err != nil {
			return err
		}
		err := pool.ForCtx(ctx, n, s.workers, func(w, i int) error {
			v, err := s.cost(w, i, c)
			if err != nil {
				return err
			}
			if v < cost[i] {
				cost[i], assign[i] = v, c
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sample draws an element not chosen yet with probability proportional to
// its cost (D² sampling), or the first element not chosen when every such
// element has cost 0 (it coincides with a centroid).
func (s *kmeansState) sample(rng *rand.Rand, cost []float64, chosen []bool) int {
	var total float64
	free := -1 // K <= n leaves an element not chosen
	for i, v := range cost {
		if !chosen[i] {
			total += v
			if free < 0 {
				free = i
			}
		}
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return free
	}
	u := rng.Float64() * total
	var acc float64
	for i, v := range cost {
		if chosen[i] || v == 0 {
			continue
		}
		acc += v
		free = i
		if acc > u {
			break
		}
	}
	return free // the last element of positive cost when u rounded up to total
}

// assign is the assignment step: each element goes to its nearest
// centroid, in parallel.
func (s *kmeansState) assign(ctx context.Context, assign []int, cost []float64) error {
	return pool.ForCtx(ctx, s.set.n, s.workers, func(w, i int) error {
		best, bc := math.Inf(1), 0
		for c := range s.k {
			v, err := s.cost(w, i, c)
			if err != nil {
				return err
			}
			if v < best {
				best, bc = v, c
			}
		}
		assign[i], cost[i] = bc, best
		return nil
	})
}

// costs recomputes each element's cost to its assigned centroid.
func (s *kmeansState) costs(ctx context.Context, assign []int, cost []float64) error {
	return pool.ForCtx(ctx, s.set.n, s.workers, func(w, i int) error {
		v, err := s.cost(w, i, assign[i])
		cost[i] = v
		return err
	})
}

// reseed gives each empty cluster, in order, the element farthest from its
// centroid (largest cost, ties to the lowest index) among those whose
// cluster has another element. The element is its cluster's mean, so its
// cost becomes 0 (the update step that follows makes it the centroid). It
// returns the number of clusters re-seeded.
func (s *kmeansState) reseed(assign []int, cost []float64) int {
	count := make([]int, s.k)
	for _, c := range assign {
		count[c]++
	}
	reseeded := 0
	for c, m := range count {
		if m > 0 {
			continue
		}
		far := -1
		for i, v := range cost {
			if count[assign[i]] > 1 && (far < 0 || v > cost[far]) {
				far = i
			}
		}
		// K <= n guarantees a cluster with two elements while one is empty.
		count[assign[far]]--
		count[c] = 1
		assign[far], cost[far] = c, 0
		reseeded++
	}
	return reseeded
}

// update is the update step: each centroid becomes the mean of its
// cluster (all clusters are non-empty), clusters in parallel. A mean
// iteration that reaches its cap keeps its last iterate.
func (s *kmeansState) update(ctx context.Context, assign []int, members [][]int) error {
	for c := range members {
		members[c] = members[c][:0]
	}
	for i, c := range assign {
		members[c] = append(members[c], i)
	}
	dd := s.d * s.d
	def, _ := (*MeanOptions)(nil).resolve(200) // SteinMean's defaults
	return pool.ForCtx(ctx, s.k, s.workers, func(w, c int) error {
		idx := members[c]
		if s.metric == SteinMetric {
			if s.means[w] == nil {
				s.means[w] = newSteinMeanWork(s.d)
			}
			m := s.means[w]
			if _, err := m.mean(ctx, s.set.Data(), idx, nil, def.Tol, def.MaxIter, 1); errors.Is(err, ErrNoConvergence) {
				s.unconverged.Add(1)
			} else if err != nil {
				return fmt.Errorf("Stein mean of cluster %d: %w", c, err)
			}
			return s.setCentroid(c, m.x)
		}
		xs := make([]*mat.SymDense, len(idx))
		for j, i := range idx {
			xs[j] = s.set.View(i)
		}
		m, _, err := KarcherMean(ctx, xs, &MeanOptions{Workers: 1})
		if errors.Is(err, ErrNoConvergence) {
			s.unconverged.Add(1)
		} else if err != nil {
			return fmt.Errorf("Karcher mean of cluster %d: %w", c, err)
		}
		loadFull(s.cent[c*dd:(c+1)*dd], s.d, m)
		return s.setCentroid(c, nil)
	})
}
