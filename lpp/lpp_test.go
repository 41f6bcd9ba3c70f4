package lpp

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// blobs returns n points in R^m (columns of X) drawn around c class
// centres spaced by sep, with labels i mod c.
func blobs(m, n, c int, sep float64, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(m, n, nil)
	labels := make([]int, n)
	for i := range n {
		labels[i] = i % c
		for r := range m {
			centre := 0.0
			if r == labels[i]%m {
				centre = sep * float64(1+labels[i]/m)
			}
			x.Set(r, i, centre+rng.NormFloat64()+0.3*float64(r))
		}
	}
	return x, labels
}

// linearKernel returns Aᵀ B for columns of samples.
func linearKernel(a, b *mat.Dense) *mat.Dense {
	var k mat.Dense
	k.Mul(a.T(), b)
	return &k
}

// rbfKernel returns exp(−γ‖a_i − b_j‖²) for columns a_i, b_j.
func rbfKernel(a, b *mat.Dense, gamma float64) *mat.Dense {
	m, na := a.Dims()
	_, nb := b.Dims()
	k := mat.NewDense(na, nb, nil)
	for i := range na {
		for j := range nb {
			var d float64
			for r := range m {
				d += (a.At(r, i) - b.At(r, j)) * (a.At(r, i) - b.At(r, j))
			}
			k.Set(i, j, math.Exp(-gamma*d))
		}
	}
	return k
}

func sym(k *mat.Dense) *mat.SymDense {
	n, _ := k.Dims()
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 0.5*(k.At(i, j)+k.At(j, i)))
		}
	}
	return s
}

// linearLPP solves He and Niyogi's LPP in input space for columns x,
// independently of Fit: the graph by brute force on Euclidean distances,
// then the non-symmetric eigenproblem (X D Xᵀ + ρI)⁻¹ X L Xᵀ v = λ v by
// mat.Eigen. It returns the eigenvalues ascending and the directions
// (columns) and the data mean it projects around (zero unless centred).
func linearLPP(t *testing.T, x *mat.Dense, labels []int, o Options) ([]float64, *mat.Dense, []float64) {
	m, n := x.Dims()
	mean := make([]float64, m)
	xc := mat.DenseCopyOf(x)
	if o.Center {
		for r := range m {
			mean[r] = floats.Sum(mat.Row(nil, r, x)) / float64(n)
			for i := range n {
				xc.Set(r, i, x.At(r, i)-mean[r])
			}
		}
	}
	dist := func(i, j int) float64 {
		var d float64
		for r := range m {
			d += (x.At(r, i) - x.At(r, j)) * (x.At(r, i) - x.At(r, j))
		}
		return d
	}
	k := cmp.Or(o.Neighbours, DefaultNeighbours)
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for i := range n {
		type nb struct {
			j int
			d float64
		}
		var nbs []nb
		for j := range n {
			if j != i && (!o.Supervised || labels[i] == labels[j]) {
				nbs = append(nbs, nb{j, dist(i, j)})
			}
		}
		sort.SliceStable(nbs, func(a, b int) bool { return nbs[a].d < nbs[b].d })
		for _, e := range nbs[:min(k, len(nbs))] {
			adj[i][e.j], adj[e.j][i] = true, true
		}
	}
	heat := o.HeatT
	if heat == 0 {
		var s float64
		var c int
		for i := range n {
			for j := range n {
				if adj[i][j] {
					s += dist(i, j)
					c++
				}
			}
		}
		heat = s / float64(c)
	}
	w := mat.NewDense(n, n, nil)
	d := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			if adj[i][j] {
				w.Set(i, j, math.Exp(-dist(i, j)/heat))
			}
		}
		d.Set(i, i, floats.Sum(mat.Row(nil, i, w)))
	}
	var l, a, b, tmp mat.Dense
	l.Sub(d, w)
	tmp.Mul(xc, &l)
	a.Mul(&tmp, xc.T())
	tmp.Mul(xc, d)
	b.Mul(&tmp, xc.T())
	rho := cmp.Or(o.Ridge, DefaultRidge) * mat.Trace(&b) / float64(m)
	for r := range m {
		b.Set(r, r, b.At(r, r)+rho)
	}
	var binvA mat.Dense
	if err := binvA.Solve(&b, &a); err != nil {
		t.Fatal(err)
	}
	var e mat.Eigen
	if !e.Factorize(&binvA, mat.EigenRight) {
		t.Fatal("eigen failed")
	}
	vals := e.Values(nil)
	var vecs mat.CDense
	e.VectorsTo(&vecs)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return cmp.Compare(real(vals[i]), real(vals[j])) })
	lam := make([]float64, m)
	v := mat.NewDense(m, m, nil)
	for c, i := range order {
		lam[c] = real(vals[i])
		for r := range m {
			v.Set(r, c, real(vecs.At(r, i)))
		}
	}
	return lam, v, mean
}

// sameUpToScale reports the largest deviation of u from s·v with the
// least-squares s, relative to ‖u‖.
func sameUpToScale(u, v []float64) float64 {
	s := floats.Dot(u, v) / floats.Dot(v, v)
	var e float64
	for i := range u {
		e = max(e, math.Abs(u[i]-s*v[i]))
	}
	return e / floats.Norm(u, 2)
}

// TestLinearKernelIsLPP checks kernel LPP with the linear kernel against
// He and Niyogi's LPP solved in input space: the same eigenvalues, and the
// same embeddings of training items and of new queries, up to scale.
func TestLinearKernelIsLPP(t *testing.T) {
	x, labels := blobs(3, 40, 3, 2, 1)
	q, _ := blobs(3, 15, 3, 2, 2)
	for _, o := range []Options{
		{Dims: 2},
		{Dims: 2, Center: true},
		{Dims: 2, Center: true, Supervised: true, Neighbours: 3},
		{Dims: 3, HeatT: math.Inf(1), Neighbours: 7},
		{Dims: 1, Center: true, HeatT: 4, Ridge: 1e-3},
	} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			p, err := Fit(context.Background(), sym(linearKernel(x, x)), labels, o)
			if err != nil {
				t.Fatal(err)
			}
			if p.Rank() != 3 {
				t.Errorf("rank %d, want 3", p.Rank())
			}
			lam, v, mean := linearLPP(t, x, labels, o)
			got := p.Values()
			for c := range o.Dims {
				if math.Abs(got[c]-lam[c]) > 1e-9*(1+lam[c]) {
					t.Errorf("λ_%d = %.12g, input-space LPP %.12g", c, got[c], lam[c])
				}
			}
			for _, pts := range []*mat.Dense{x, q} {
				y, err := p.Transform(linearKernel(pts, x))
				if err != nil {
					t.Fatal(err)
				}
				_, n := pts.Dims()
				for c := range o.Dims {
					want := make([]float64, n)
					for i := range n {
						for r := range 3 {
							want[i] += v.At(r, c) * (pts.At(r, i) - mean[r])
						}
					}
					if e := sameUpToScale(mat.Col(nil, c, y), want); e > 1e-7 {
						t.Errorf("component %d: embedding differs from input-space LPP by %.3g", c, e)
					}
				}
			}
		})
	}
}

// TestEigenResidual checks the solution against the generalised
// eigen-equation K L K a = λ (K D K + ρ K) a, the normalisation
// aᵀ (K D K + ρ K) a = 1 and the conjugacy of distinct directions, on a
// full-rank Gaussian kernel.
func TestEigenResidual(t *testing.T) {
	x, labels := blobs(2, 30, 3, 3, 3)
	k := sym(rbfKernel(x, x, 0.5))
	for _, o := range []Options{{Dims: 4}, {Dims: 3, Supervised: true, Neighbours: 4}} {
		p, err := Fit(context.Background(), k, labels, o)
		if err != nil {
			t.Fatal(err)
		}
		if p.Rank() != 30 {
			t.Fatalf("rank %d, want 30", p.Rank())
		}
		w, _ := graph(k, labels, o)
		var l, d mat.Dense
		d.Apply(func(i, j int, _ float64) float64 {
			if i != j {
				return 0
			}
			return rowSum(w.RawSymmetric(), i, 30)
		}, w)
		l.Sub(&d, w)
		var klk, kdk, tmp mat.Dense
		tmp.Mul(k, &l)
		klk.Mul(&tmp, k)
		tmp.Mul(k, &d)
		kdk.Mul(&tmp, k)
		var rhs mat.Dense
		rhs.Scale(p.Rho(), k)
		rhs.Add(&kdk, &rhs)
		a := p.Coefficients()
		var la, ra, g mat.Dense
		la.Mul(&klk, a)
		ra.Mul(&rhs, a)
		g.Mul(a.T(), &ra)
		for c, lam := range p.Values() {
			if lam < -1e-12 || lam >= 1 {
				t.Errorf("λ_%d = %g outside [0, 1)", c, lam)
			}
			var res, scale float64
			for i := range 30 {
				res = max(res, math.Abs(la.At(i, c)-lam*ra.At(i, c)))
				scale = max(scale, math.Abs(ra.At(i, c)))
			}
			if res > 1e-8*scale {
				t.Errorf("%+v: direction %d: residual %.3g (scale %.3g)", o, c, res, scale)
			}
			for c2 := range p.Dims() {
				want := 0.0
				if c == c2 {
					want = 1
				}
				if math.Abs(g.At(c, c2)-want) > 1e-8 {
					t.Errorf("%+v: aᵀ B a [%d, %d] = %g, want %g", o, c, c2, g.At(c, c2), want)
				}
			}
		}
		if off := p.Offset(); floats.Norm(off, 2) != 0 {
			t.Errorf("uncentred offset %v", off)
		}
	}
}

// TestSeparates checks that on two well-separated classes the 1-D
// embedding puts every query of one class on one side of every query of
// the other.
func TestSeparates(t *testing.T) {
	x, labels := blobs(2, 40, 2, 6, 4)
	q, qlabels := blobs(2, 200, 2, 6, 5)
	for _, o := range []Options{
		{Dims: 1, Center: true, Supervised: true},
		{Dims: 1, Center: true, Supervised: true, Neighbours: 100},
		{Dims: 1, Center: true},
	} {
		p, err := Fit(context.Background(), sym(rbfKernel(x, x, 0.1)), labels, o)
		if err != nil {
			t.Fatal(err)
		}
		y, err := p.Transform(rbfKernel(q, x, 0.1))
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
		for i, l := range qlabels {
			lo[l], hi[l] = min(lo[l], y.At(i, 0)), max(hi[l], y.At(i, 0))
		}
		if !(hi[0] < lo[1] || hi[1] < lo[0]) {
			t.Errorf("%+v: class ranges [%.3g, %.3g] and [%.3g, %.3g] overlap", o, lo[0], hi[0], lo[1], hi[1])
		}
	}
}

func TestDeterministic(t *testing.T) {
	x, labels := blobs(4, 60, 5, 2, 6)
	k := sym(rbfKernel(x, x, 0.3))
	o := Options{Dims: 4, Center: true, Supervised: true}
	p1, err := Fit(context.Background(), k, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := Fit(context.Background(), k, labels, o)
	if !mat.Equal(p1.Coefficients(), p2.Coefficients()) || !slices.Equal(p1.Offset(), p2.Offset()) || !slices.Equal(p1.Values(), p2.Values()) {
		t.Error("two fits differ")
	}
}

func TestErrors(t *testing.T) {
	x, labels := blobs(2, 10, 2, 3, 7)
	k := sym(rbfKernel(x, x, 0.5))
	nan := mat.DenseCopyOf(k)
	nan.Set(2, 3, math.NaN())
	single := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, tc := range []struct {
		name   string
		k      mat.Symmetric
		labels []int
		o      Options
		want   string
	}{
		{"one item", mat.NewSymDense(1, []float64{1}), nil, Options{Dims: 1}, "1 training items"},
		{"labels", k, labels[:4], Options{Dims: 1, Supervised: true}, "4 labels for a 10×10"},
		{"no dims", k, nil, Options{}, "0 dimensions"},
		{"dims > n", k, nil, Options{Dims: 11}, "11 dimensions, want in [1, 10]"},
		{"NaN", sym(nan), nil, Options{Dims: 1}, "entry (2, 3) = NaN"},
		{"neighbours", k, nil, Options{Dims: 1, Neighbours: -1}, "-1 neighbours"},
		{"heat", k, nil, Options{Dims: 1, HeatT: -1}, "heat t = -1"},
		{"ridge", k, nil, Options{Dims: 1, Ridge: math.NaN()}, "ridge = NaN"},
		{"rank tol", k, nil, Options{Dims: 1, RankTol: 1}, "rank tolerance"},
		{"rank", sym(linearKernel(x, x)), nil, Options{Dims: 3}, "numerical rank 2"},
		{"no edges", k, single, Options{Dims: 1, Supervised: true}, "no edges"},
		{"zero kernel", mat.NewSymDense(3, nil), nil, Options{Dims: 1}, "no positive eigenvalue"},
	} {
		_, err := Fit(context.Background(), tc.k, tc.labels, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	p, err := Fit(context.Background(), k, labels, Options{Dims: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Transform(mat.NewDense(3, 9, nil)); err == nil || !strings.Contains(err.Error(), "length 9, want 10") {
		t.Errorf("short kernel rows: %v", err)
	}
	if err := p.TransformTo(mat.NewDense(3, 1, nil), mat.NewDense(3, 10, nil)); err == nil || !strings.Contains(err.Error(), "destination 3×1") {
		t.Errorf("small destination: %v", err)
	}
}

// BenchmarkFitProject fits on 320 training items of 32 classes (Gaussian
// kernel, supervised, centred, 31 directions) and projects 5000 queries.
func BenchmarkFitProject(b *testing.B) {
	x, labels := blobs(8, 320, 32, 3, 8)
	q, _ := blobs(8, 5000, 32, 3, 9)
	k := sym(rbfKernel(x, x, 0.1))
	kq := rbfKernel(q, x, 0.1)
	o := Options{Dims: 31, Center: true, Supervised: true}
	b.Run("fit-320", func(b *testing.B) {
		for b.Loop() {
			if _, err := Fit(context.Background(), k, labels, o); err != nil {
				b.Fatal(err)
			}
		}
	})
	p, err := Fit(context.Background(), k, labels, o)
	if err != nil {
		b.Fatal(err)
	}
	dst := mat.NewDense(5000, 31, nil)
	b.Run("project-5000", func(b *testing.B) {
		for b.Loop() {
			if err := p.TransformTo(dst, kq); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func ExampleFit() {
	// Four points on a line, two per class; the Gram matrix of the linear
	// kernel k(x, y) = x·y.
	xs := []float64{-2, -1, 1, 2}
	k := mat.NewSymDense(4, nil)
	for i := range xs {
		for j := i; j < 4; j++ {
			k.SetSym(i, j, xs[i]*xs[j])
		}
	}
	p, err := Fit(context.Background(), k, []int{0, 0, 1, 1}, Options{Dims: 1, Center: true, Supervised: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Transform the training items (their kernel rows are the rows of K)
	// and x = 3, whose kernel row is 3·x_i. The embedding is y = c·x: each
	// class is one edge of weight e⁻¹ (t = 1, the mean squared distance),
	// so yᵀ D y = 10 e⁻¹ c² = 1 gives |c| = 0.521 (the ridge is 1e-6 of it).
	y, _ := p.Transform(mat.NewDense(5, 4, append(mat.DenseCopyOf(k).RawMatrix().Data, -6, -3, 3, 6)))
	for i := range 5 {
		fmt.Printf("%.3f\n", y.At(i, 0))
	}
	// Output:
	// 1.043
	// 0.521
	// -0.521
	// -1.043
	// -1.564

}

// TestSymEigen checks Fit's eigendecomposition against gonum's
// mat.EigenSym on Gram matrices of Fit's sizes, at unit scale and at
// 2^±600 (symEigen's power-of-two scaling): the values ascending and
// within 1e-12 relative of gonum's, and each column of u a unit
// eigenvector, ‖Ku − λu‖ within 1e-12 of ‖K‖.
func TestSymEigen(t *testing.T) {
	for _, n := range []int{2, 40, 213} {
		x, _ := blobs(8, n, 4, 3, uint64(n))
		k0 := sym(rbfKernel(x, x, 0.1))
		for _, e := range []int{0, 600, -600} {
			k := mat.NewSymDense(n, nil)
			for i := range n {
				for j := i; j < n; j++ {
					k.SetSym(i, j, math.Ldexp(k0.At(i, j), e))
				}
			}
			vals, u, ok := symEigen(k)
			if !ok {
				t.Fatalf("n=%d 2^%d: failed", n, e)
			}
			var ref mat.EigenSym
			if !ref.Factorize(k0, false) {
				t.Fatalf("n=%d: gonum failed", n)
			}
			want := ref.Values(nil)
			norm := math.Ldexp(want[n-1], e)
			for j := range n {
				if j > 0 && vals[j] < vals[j-1] {
					t.Fatalf("n=%d 2^%d: values not ascending at %d", n, e, j)
				}
				if d := math.Abs(vals[j] - math.Ldexp(want[j], e)); d > 1e-12*norm {
					t.Errorf("n=%d 2^%d: value %d = %g, gonum %g", n, e, j, vals[j], math.Ldexp(want[j], e))
				}
				var res, unit float64
				for i := range n {
					var s float64
					for l := range n {
						s += k.At(i, l) * u.At(l, j)
					}
					res = max(res, math.Abs(s-vals[j]*u.At(i, j)))
					unit += u.At(i, j) * u.At(i, j)
				}
				if res > 1e-12*norm || math.Abs(unit-1) > 1e-12 {
					t.Errorf("n=%d 2^%d: pair %d: residual %.3g (‖K‖ %.3g), ‖u‖² − 1 = %.3g", n, e, j, res, norm, unit-1)
				}
			}
		}
	}
	bad := mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1})
	if _, _, ok := symEigen(bad); ok {
		t.Error("NaN entry: reported success")
	}
}
