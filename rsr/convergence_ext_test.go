package rsr_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/mat"
)

// denseProblem is the dense-code regime of video re-identification without
// the data: 32 classes of 10 near-identical 12×12 "frames" (geodesic
// perturbations of size 0.05 around a class centre, centres 0.05 apart),
// one atom an exact duplicate of another, and 32 queries drawn like the
// atoms; Stein kernel σ = 0.5. At λ = 1e-3 codes use about 130 of the
// 320 atoms, K's smallest eigenvalues are 0 and 1e-4 of its largest, and
// coordinate descent crawls: the solver before regularised face steps
// left 4 of these 32 codes at its 10000-sweep cap.
func denseProblem(tb testing.TB) (K *mat.SymDense, Kx *mat.Dense) {
	tb.Helper()
	const d, classes, per, queries = 12, 32, 10, 32
	r := rand.New(rand.NewPCG(1, 2))
	randSym := func(s float64) *mat.SymDense {
		x := mat.NewSymDense(d, nil)
		for i := range d {
			for j := i; j < d; j++ {
				x.SetSym(i, j, s*r.NormFloat64())
			}
		}
		return x
	}
	id := mat.NewSymDense(d, nil)
	for i := range d {
		id.SetSym(i, i, 1)
	}
	var atoms, qs []*mat.SymDense
	for range classes {
		centre, err := spd.ExpMap(id, randSym(0.05))
		if err != nil {
			tb.Fatal(err)
		}
		for k := range per + queries/classes + 1 {
			x, err := spd.ExpMap(centre, randSym(0.05))
			if err != nil {
				tb.Fatal(err)
			}
			if k < per {
				atoms = append(atoms, x)
			} else if len(qs) < queries {
				qs = append(qs, x)
			}
		}
	}
	atoms[1] = mat.NewSymDense(d, nil)
	atoms[1].CopySym(atoms[0])
	return steinGrams(tb, spd.SteinKernel{Sigma: 0.5}, atoms, qs)
}

// TestLassoDenseConverges checks that every code of the dense regime
// converges well inside the sweep cap, with the optimality conditions
// recomputed here from K, k and v, and a duplicate atom never active
// together with its twin.
func TestLassoDenseConverges(t *testing.T) {
	K, Kx := denseProblem(t)
	const lambda = 1e-3
	l, err := rsr.NewLasso(K, rsr.LassoOptions{Lambda: lambda, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	codes, certs, err := l.SolveBatch(t.Context(), Kx, ones(Kx.RawMatrix().Rows))
	if err != nil {
		t.Fatal(err)
	}
	n := l.Len()
	var kv mat.VecDense
	for q, c := range certs {
		v := codes.RawRowView(q)
		kx := Kx.RawRowView(q)
		if !c.Converged || c.Sweeps > 1000 {
			t.Errorf("query %d: converged %v after %d sweeps", q, c.Converged, c.Sweeps)
		}
		if c.NonZeros < 50 {
			t.Errorf("query %d: %d non-zeros: not the dense regime", q, c.NonZeros)
		}
		kmax := 0.0
		for _, x := range kx {
			kmax = math.Max(kmax, math.Abs(x))
		}
		bound := 1e-6 * math.Max(lambda, 2*kmax)
		kv.MulVec(K, mat.NewVecDense(n, v))
		worst, l1 := 0.0, 0.0
		for j := range n {
			grad := 2 * (kv.AtVec(j) - kx[j])
			switch {
			case v[j] > 0:
				worst = math.Max(worst, math.Abs(grad+lambda))
			case v[j] < 0:
				worst = math.Max(worst, math.Abs(grad-lambda))
			default:
				worst = math.Max(worst, math.Abs(grad)-lambda)
			}
			l1 += math.Abs(v[j])
		}
		if worst > bound {
			t.Errorf("query %d: KKT violation %g > %g (certificate %g)", q, worst, bound, c.KKT)
		}
		if c.Gap > l1*bound+1e-12 {
			t.Errorf("query %d: duality gap %g > ‖v‖₁·bound = %g", q, c.Gap, l1*bound)
		}
	}
}

// TestLassoLogEuclideanSynthetic is the log-Euclidean baseline of the
// synthetic protocol: 256 atoms, vectorised logarithms of 3×3 matrices, so
// the linear Gram has rank 6 and every active block of more than 6 atoms is
// singular. Every code must converge well inside the sweep cap.
func TestLassoLogEuclideanSynthetic(t *testing.T) {
	o := synth.Options{Classes: 4, Dim: 3, Samples: 512, Train: 0.5, Spread: 1, Variance: 2}
	for seed := uint64(32); seed < 40; seed++ { // seed 35 once caught an accepted blow-up
		train, test := synthetic(t, o, seed)
		vec := func(xs []*mat.SymDense) *mat.Dense {
			m := mat.NewDense(len(xs), spd.VecLen(3), nil)
			for i, x := range xs {
				lx, err := spd.Log(x)
				if err != nil {
					t.Fatal(err)
				}
				if err := spd.VecTo(m.RawRowView(i), lx); err != nil {
					t.Fatal(err)
				}
			}
			return m
		}
		a, q := vec(train.X), vec(test.X)
		var K mat.SymDense
		K.SymOuterK(1, a)
		var kx mat.Dense
		kx.Mul(q, a.T())
		l, err := rsr.NewLasso(&K, rsr.LassoOptions{Lambda: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		for i := range q.RawMatrix().Rows {
			row := q.RawRowView(i)
			_, cert, err := l.Solve(kx.RawRowView(i), mat.Dot(mat.NewVecDense(len(row), row), mat.NewVecDense(len(row), row)))
			if err != nil {
				t.Fatalf("seed %d query %d: %v", seed, i, err)
			}
			if cert.Sweeps > 2000 {
				t.Errorf("seed %d query %d: %d sweeps", seed, i, cert.Sweeps)
			}
		}
	}
}

func ones(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}
