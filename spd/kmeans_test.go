package spd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// kmClusters returns n matrices in len(sizes) well-separated clusters,
// cluster c holding sizes[c] matrices s_c² A_c E A_cᵀ around the base point
// s_c² A_c A_cᵀ, with E within e^{±0.15} of I and scales s_c far apart,
// interleaved so that the labels are not sorted. It returns the set, the
// matrices and the true labels.
func kmClusters(t testing.TB, seed uint64, d int, sizes []int) (*Set, []*mat.SymDense, []int) {
	r := newRand(seed)
	var ms []*mat.SymDense
	var truth []int
	bases := make([]*mat.Dense, len(sizes))
	for c := range bases {
		bases[c] = randInvertible(r, d)
		bases[c].Scale(math.Pow(25, float64(c)-1), bases[c]) // 1/25, 1, 25
	}
	total := 0
	for _, n := range sizes {
		total += n
	}
	for k := 0; len(ms) < total; k++ {
		c := (k*7 + k/3) % len(sizes)
		if kmCount(truth, c) == sizes[c] {
			continue
		}
		ms = append(ms, congr(bases[c], randSPD(r, d, 0.15)))
		truth = append(truth, c)
	}
	set := mustSet(t, ms)
	return set, ms, truth
}

func kmCount(v []int, x int) int {
	var n int
	for _, y := range v {
		if y == x {
			n++
		}
	}
	return n
}

// kmSamePartition reports whether two labellings define the same partition:
// equal up to a bijection of the labels.
func kmSamePartition(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	ab, ba := map[int]int{}, map[int]int{}
	for i := range a {
		if x, ok := ab[a[i]]; ok && x != b[i] {
			return false
		}
		if y, ok := ba[b[i]]; ok && y != a[i] {
			return false
		}
		ab[a[i]], ba[b[i]] = b[i], a[i]
	}
	return true
}

// kmCost returns d_g² or S through the package's public Distance.
func kmCost(t testing.TB, m Metric, x, y mat.Symmetric) float64 {
	v, err := Distance(m, x, y)
	if err != nil {
		t.Fatal(err)
	}
	if m == AIRMMetric {
		return v * v
	}
	return v
}

func kmMembers(assign []int, c int) []int {
	var idx []int
	for i, a := range assign {
		if a == c {
			idx = append(idx, i)
		}
	}
	return idx
}

// kmCheckResult checks what every result must satisfy: K non-empty
// clusters, and Objective = Σ_i c(X_i, C_{a(i)}) recomputed by Distance.
func kmCheckResult(t *testing.T, m Metric, k int, ms []*mat.SymDense, res *KMeansResult) {
	t.Helper()
	if len(res.Centroids) != k || len(res.Assign) != len(ms) {
		t.Fatalf("%d centroids and %d labels, want %d and %d", len(res.Centroids), len(res.Assign), k, len(ms))
	}
	var obj float64
	for i, a := range res.Assign {
		if a < 0 || a >= k {
			t.Fatalf("label %d of element %d out of range", a, i)
		}
		obj += kmCost(t, m, ms[i], res.Centroids[a])
	}
	for c := range k {
		if len(kmMembers(res.Assign, c)) == 0 {
			t.Errorf("cluster %d is empty", c)
		}
	}
	assertClose(t, "Objective", res.Objective, obj, 1e-9)
}

var kmMetrics = []Metric{AIRMMetric, SteinMetric}

func TestKMeansRecoversSeparatedClusters(t *testing.T) {
	for _, m := range kmMetrics {
		for _, d := range []int{2, 4} {
			t.Run(fmt.Sprintf("%v/d=%d", m, d), func(t *testing.T) {
				set, ms, truth := kmClusters(t, uint64(40+d), d, []int{7, 10, 13})
				res, err := KMeans(context.Background(), set, KMeansOptions{K: 3, Metric: m, Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				if !kmSamePartition(res.Assign, truth) {
					t.Fatalf("assignment %v, want the partition %v", res.Assign, truth)
				}
				if !res.Converged || res.Reseeded != 0 {
					t.Errorf("converged %v after %d iterations, %d re-seeded; want converged, none re-seeded", res.Converged, res.Iterations, res.Reseeded)
				}
				kmCheckResult(t, m, 3, ms, res)
				// A fixed point of Lloyd's algorithm: every element is
				// nearest to its own centroid (brute force).
				for i, x := range ms {
					own := kmCost(t, m, x, res.Centroids[res.Assign[i]])
					for c, cen := range res.Centroids {
						if v := kmCost(t, m, x, cen); v < own {
							t.Errorf("element %d: cost %.6g to centroid %d < %.6g to its own", i, v, c, own)
						}
					}
				}
			})
		}
	}
}

// karcherGradient returns ‖Σ_i log(C^{−1/2} X_i C^{−1/2})‖_F through gonum's
// EigenSym, independently of the package's matrix functions.
func karcherGradient(c *mat.SymDense, xs []*mat.SymDense) float64 {
	ci := mat.DenseCopyOf(eigenFn(c, func(l float64) float64 { return 1 / math.Sqrt(l) }))
	d := c.SymmetricDim()
	sum := mat.NewSymDense(d, nil)
	for _, x := range xs {
		sum.AddSym(sum, eigenFn(congr(ci, x), math.Log))
	}
	return mat.Norm(sum, 2)
}

func TestKMeansAIRMCentroidsAreKarcherMeans(t *testing.T) {
	sep, sepMs, _ := kmClusters(t, 50, 3, []int{6, 9, 5})
	rnd, rndMs := randSet(t, 51, 40, 3)
	for _, tc := range []struct {
		name    string
		set     *Set
		ms      []*mat.SymDense
		k, iter int
	}{
		{"separated", sep, sepMs, 3, 0},
		{"random", rnd, rndMs, 4, 0},
		// Stopped by the cap while the assignment still changes: the final
		// update must still make the centroids the means.
		{"random, capped", rnd, rndMs, 6, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := KMeans(context.Background(), tc.set, KMeansOptions{K: tc.k, Metric: AIRMMetric, Seed: 3, MaxIter: tc.iter})
			if err != nil {
				t.Fatal(err)
			}
			kmCheckResult(t, AIRMMetric, tc.k, tc.ms, res)
			for c, cen := range res.Centroids {
				var xs []*mat.SymDense
				for _, i := range kmMembers(res.Assign, c) {
					xs = append(xs, tc.ms[i])
				}
				want, _, err := KarcherMean(context.Background(), xs, nil)
				if err != nil {
					t.Fatal(err)
				}
				assertSymClose(t, fmt.Sprintf("centroid %d vs KarcherMean", c), cen, want, 1e-10)
				if g := karcherGradient(cen, xs); g > 1e-8 {
					t.Errorf("centroid %d: Riemannian gradient ‖Σ log(C^{-1/2} X_i C^{-1/2})‖ = %.3g", c, g)
				}
			}
		})
	}
}

func TestKMeansSteinCentroidsAreSteinMeans(t *testing.T) {
	rnd, ms := randSet(t, 52, 40, 3)
	for _, iter := range []int{0, 1} {
		res, err := KMeans(context.Background(), rnd, KMeansOptions{K: 5, Metric: SteinMetric, Seed: 4, MaxIter: iter})
		if err != nil {
			t.Fatal(err)
		}
		kmCheckResult(t, SteinMetric, 5, ms, res)
		for c, cen := range res.Centroids {
			idx := kmMembers(res.Assign, c)
			var xs []*mat.SymDense
			for _, i := range idx {
				xs = append(xs, ms[i])
			}
			if gap := steinGradientGap(t, cen, xs, nil); gap > 1e-9 {
				t.Errorf("MaxIter %d, centroid %d: Stein mean condition off by %.3g", iter, c, gap)
			}
		}
	}
}

func TestKMeansWorkersDoNotChangeResult(t *testing.T) {
	set, _ := randSet(t, 53, 90, 4)
	for _, m := range kmMetrics {
		var ref *KMeansResult
		for _, w := range []int{1, 2, 3} {
			res, err := KMeans(context.Background(), set, KMeansOptions{K: 6, Metric: m, Seed: 5, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = res
				if res.Iterations < 2 {
					t.Fatalf("%v: %d iterations: too few to test", m, res.Iterations)
				}
				continue
			}
			if res.Objective != ref.Objective || res.Iterations != ref.Iterations || res.Converged != ref.Converged || res.Reseeded != ref.Reseeded {
				t.Errorf("%v, %d workers: objective %v, %d iterations, converged %v, %d re-seeded; 1 worker: %v, %d, %v, %d",
					m, w, res.Objective, res.Iterations, res.Converged, res.Reseeded, ref.Objective, ref.Iterations, ref.Converged, ref.Reseeded)
			}
			for i := range res.Assign {
				if res.Assign[i] != ref.Assign[i] {
					t.Fatalf("%v, %d workers: element %d in cluster %d, 1 worker: %d", m, w, i, res.Assign[i], ref.Assign[i])
				}
			}
			for c := range res.Centroids {
				if !mat.Equal(res.Centroids[c], ref.Centroids[c]) {
					t.Fatalf("%v, %d workers: centroid %d differs from 1 worker's", m, w, c)
				}
			}
		}
	}
}

func TestKMeansSeedsDifferClustersAgree(t *testing.T) {
	set, _, truth := kmClusters(t, 54, 3, []int{8, 8, 8})
	for _, m := range kmMetrics {
		seedings := map[string]bool{}
		for seed := range uint64(8) {
			var tr kmeansTrace
			res, err := kmeans(context.Background(), set, KMeansOptions{K: 3, Metric: m, Seed: seed}, &tr)
			if err != nil {
				t.Fatal(err)
			}
			seedings[fmt.Sprint(tr.seeds)] = true
			if !kmSamePartition(res.Assign, truth) {
				t.Errorf("%v, seed %d: assignment %v, want the partition %v", m, seed, res.Assign, truth)
			}
			again, err := kmeans(context.Background(), set, KMeansOptions{K: 3, Metric: m, Seed: seed}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if again.Objective != res.Objective {
				t.Errorf("%v, seed %d: objective %v then %v: not deterministic", m, seed, res.Objective, again.Objective)
			}
		}
		if len(seedings) < 4 {
			t.Errorf("%v: 8 seeds gave only %d distinct k-means++ seedings", m, len(seedings))
		}
	}
}

func TestKMeansObjectiveNonIncreasing(t *testing.T) {
	set, _ := randSet(t, 55, 120, 3)
	for _, m := range kmMetrics {
		var tr kmeansTrace
		res, err := kmeans(context.Background(), set, KMeansOptions{K: 7, Metric: m, Seed: 6, Tol: 1e-12}, &tr)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.objectives) < 4 {
			t.Fatalf("%v: only %d objective values: too few to test", m, len(tr.objectives))
		}
		for i := 1; i < len(tr.objectives); i++ {
			if prev, cur := tr.objectives[i-1], tr.objectives[i]; cur > prev*(1+1e-12) {
				t.Errorf("%v: objective rose from %.17g to %.17g at step %d", m, prev, cur, i)
			}
		}
		if last := tr.objectives[len(tr.objectives)-1]; last != res.Objective {
			t.Errorf("%v: last traced objective %v, result %v", m, last, res.Objective)
		}
		// The same through the public API: more iterations never end higher.
		prev := math.Inf(1)
		for it := 1; it <= res.Iterations; it++ {
			r, err := KMeans(context.Background(), set, KMeansOptions{K: 7, Metric: m, Seed: 6, Tol: 1e-12, MaxIter: it})
			if err != nil {
				t.Fatal(err)
			}
			if r.Objective > prev*(1+1e-12) {
				t.Errorf("%v: MaxIter %d ends at %.17g > %.17g for MaxIter %d", m, it, r.Objective, prev, it-1)
			}
			prev = r.Objective
		}
	}
}

func TestKMeansEdgeCases(t *testing.T) {
	set, ms := randSet(t, 56, 9, 3)
	for _, m := range kmMetrics {
		// K = n: every element is its own cluster.
		res, err := KMeans(context.Background(), set, KMeansOptions{K: 9, Metric: m, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		kmCheckResult(t, m, 9, ms, res)
		if res.Objective > 1e-20 || !res.Converged {
			t.Errorf("%v, K = n: objective %v, converged %v; want 0, true", m, res.Objective, res.Converged)
		}
		// K = 1: the mean of everything.
		res, err = KMeans(context.Background(), set, KMeansOptions{K: 1, Metric: m, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		kmCheckResult(t, m, 1, ms, res)
		var want *mat.SymDense
		if m == AIRMMetric {
			want, _, err = KarcherMean(context.Background(), ms, nil)
		} else {
			want, _, err = SteinMean(context.Background(), ms, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		assertSymClose(t, fmt.Sprintf("%v, K = 1: centroid", m), res.Centroids[0], want, 1e-10)
		if !res.Converged || res.Iterations != 1 {
			t.Errorf("%v, K = 1: converged %v after %d iterations, want after 1", m, res.Converged, res.Iterations)
		}
	}
	// Identical matrices: k-means++ runs out of distinct elements and the
	// empty clusters are re-seeded.
	x := randSPD(newRand(57), 3, 1)
	dup := mustSet(t, []*mat.SymDense{x, x, x, x, x})
	for _, m := range kmMetrics {
		res, err := KMeans(context.Background(), dup, KMeansOptions{K: 3, Metric: m, Seed: 8})
		if err != nil {
			t.Fatal(err)
		}
		kmCheckResult(t, m, 3, []*mat.SymDense{x, x, x, x, x}, res)
		// A Stein centroid of copies of x is their mean, x up to
		// round-off, and S(x, C) = log det((x+C)/2) − ½(log det x +
		// log det C) for a C ulps from x is the round-off of the
		// log-determinants, not exactly 0.
		tol := 1e-20
		if m == SteinMetric {
			tol = 1e-14
		}
		if res.Reseeded < 2 || res.Objective > tol {
			t.Errorf("%v, duplicates: %d re-seeded, objective %v; want >= 2 and 0", m, res.Reseeded, res.Objective)
		}
	}
}

func TestKMeansReseed(t *testing.T) {
	for _, tc := range []struct {
		name       string
		k          int
		assign     []int
		cost       []float64
		wantAssign []int
		wantCount  int
	}{
		{"farthest moves", 3, []int{0, 0, 0, 1}, []float64{1, 5, 3, 0}, []int{0, 2, 0, 1}, 1},
		{"singletons stay", 3, []int{0, 0, 1}, []float64{1, 2, 9}, []int{0, 2, 1}, 1},
		{"ties to the lowest index", 2, []int{0, 0, 0}, []float64{4, 4, 1}, []int{1, 0, 0}, 1},
		{"three empty", 4, []int{1, 1, 1, 1}, []float64{3, 1, 2, 5}, []int{2, 1, 3, 0}, 3},
		{"none empty", 2, []int{0, 1, 1}, []float64{7, 1, 2}, []int{0, 1, 1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &kmeansState{k: tc.k}
			got := s.reseed(tc.assign, tc.cost)
			if got != tc.wantCount || fmt.Sprint(tc.assign) != fmt.Sprint(tc.wantAssign) {
				t.Errorf("re-seeded %d, assignment %v; want %d, %v", got, tc.assign, tc.wantCount, tc.wantAssign)
			}
		})
	}
}

func TestKMeansAssignmentAllocatesNothingPerItem(t *testing.T) {
	for _, m := range kmMetrics {
		allocs := make(map[int]float64)
		for _, n := range []int{10, 100} {
			set, _ := randSet(t, 58, n, 4)
			s := &kmeansState{set: set, metric: m, k: 3, d: 4, workers: 1,
				cent: make([]float64, 3*16), chol: make([]float64, 3*16), logdet: make([]float64, 3),
				ws: make([]*Workspace, 1), views: make([]mat.SymDense, 1)}
			assign, cost := make([]int, n), make([]float64, n)
			if err := s.seed(context.Background(), 1, assign, cost, nil); err != nil {
				t.Fatal(err)
			}
			allocs[n] = testing.AllocsPerRun(5, func() {
				if err := s.assign(context.Background(), assign, cost); err != nil {
					t.Fatal(err)
				}
			})
		}
		if allocs[100] > allocs[10] || allocs[10] > 2 {
			t.Errorf("%v: assignment step allocates %v times for 10 elements, %v for 100", m, allocs[10], allocs[100])
		}
	}
}

func TestKMeansErrors(t *testing.T) {
	set, _ := randSet(t, 59, 5, 3)
	ok := KMeansOptions{K: 2, Metric: AIRMMetric}
	with := func(f func(*KMeansOptions)) KMeansOptions {
		o := ok
		f(&o)
		return o
	}
	for _, tc := range []struct {
		name string
		set  *Set
		o    KMeansOptions
		want error
	}{
		{"nil set", nil, ok, ErrEmpty},
		{"empty set", &Set{}, ok, ErrEmpty},
		{"K = 0", set, with(func(o *KMeansOptions) { o.K = 0 }), ErrParameter},
		{"K < 0", set, with(func(o *KMeansOptions) { o.K = -2 }), ErrParameter},
		{"K > n", set, with(func(o *KMeansOptions) { o.K = 6 }), ErrParameter},
		{"no metric", set, with(func(o *KMeansOptions) { o.Metric = 0 }), ErrParameter},
		{"logeuclid", set, with(func(o *KMeansOptions) { o.Metric = LogEuclideanMetric }), ErrParameter},
		{"thompson", set, with(func(o *KMeansOptions) { o.Metric = ThompsonMetric }), ErrParameter},
		{"invalid metric", set, with(func(o *KMeansOptions) { o.Metric = 99 }), ErrParameter},
		{"negative MaxIter", set, with(func(o *KMeansOptions) { o.MaxIter = -1 }), ErrParameter},
		{"negative Tol", set, with(func(o *KMeansOptions) { o.Tol = -1e-3 }), ErrParameter},
		{"NaN Tol", set, with(func(o *KMeansOptions) { o.Tol = math.NaN() }), ErrParameter},
		{"infinite Tol", set, with(func(o *KMeansOptions) { o.Tol = math.Inf(1) }), ErrParameter},
		{"negative Workers", set, with(func(o *KMeansOptions) { o.Workers = -1 }), ErrParameter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := KMeans(context.Background(), tc.set, tc.o)
			if !errors.Is(err, tc.want) || res != nil {
				t.Fatalf("result %v, error %v; want nil, %v", res, err, tc.want)
			}
		})
	}
}

// BenchmarkKMeans clusters 512 random 5×5 SPD matrices (eigenvalues
// log-uniform in [e^{−1.5}, e^{1.5}]) into K = 32 clusters, as the paper's
// synthetic dictionary experiment does, with both metrics.
func BenchmarkKMeans(b *testing.B) {
	set, _ := randSet(b, 60, 512, 5)
	for _, m := range kmMetrics {
		b.Run(m.String(), func(b *testing.B) {
			var res *KMeansResult
			for b.Loop() {
				var err error
				res, err = KMeans(context.Background(), set, KMeansOptions{K: 32, Metric: m, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Iterations), "iters")
		})
	}
}

// TestKMeansOnIteration checks the trace hook: it sees the seeds, then the
// centroids of every update.
func TestKMeansOnIteration(t *testing.T) {
	set, _ := randSet(t, 56, 90, 3)
	var seen [][]*mat.SymDense
	res, err := KMeans(context.Background(), set, KMeansOptions{K: 5, Metric: SteinMetric, Seed: 2, Tol: 1e-12, OnIteration: func(it int, c []*mat.SymDense) error {
		if it != len(seen) {
			t.Errorf("iteration %d reported after %d", it, len(seen))
		}
		seen = append(seen, c)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != res.Iterations+1 {
		t.Fatalf("%d reports for %d iterations", len(seen), res.Iterations)
	}
	// Iteration 0 reports the k-means++ seeds: elements of the set.
	for c, seed := range seen[0] {
		found := false
		for i := range set.Len() {
			found = found || mat.Equal(seed, set.View(i))
		}
		if !found {
			t.Errorf("seed %d is not an element of the set", c)
		}
	}
	// Later reports are means, not elements.
	if mat.Equal(seen[1][0], seen[0][0]) && mat.Equal(seen[1][1], seen[0][1]) {
		t.Error("the first update reported the seeds again")
	}
	stop := errors.New("stop")
	if _, err := KMeans(context.Background(), set, KMeansOptions{K: 5, Metric: SteinMetric, Seed: 2, OnIteration: func(int, []*mat.SymDense) error { return stop }}); !errors.Is(err, stop) {
		t.Errorf("the hook's error: %v", err)
	}
}
