package rsr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x1a550)) }

// featureProblem returns an explicit feature-space problem: atoms Φ (m×n)
// and a query φ, as the Gram matrix K = ΦᵀΦ, k = Φᵀφ and k(x,x) = φᵀφ.
func featureProblem(r *rand.Rand, m, n int) (*mat.SymDense, []float64, float64) {
	phi := mat.NewDense(m, n, nil)
	for i := range m {
		for j := range n {
			phi.Set(i, j, r.NormFloat64())
		}
	}
	x := make([]float64, m)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	K := mat.NewSymDense(n, nil)
	K.SymOuterK(1, phi.T())
	kx := make([]float64, n)
	var kxx float64
	for j := range n {
		for i := range m {
			kx[j] += phi.At(i, j) * x[i]
		}
	}
	for _, v := range x {
		kxx += v * v
	}
	return K, kx, kxx
}

// twinAtoms makes atom 1 an exact duplicate of atom 0: its row and column
// of K and its entry of k.
func twinAtoms(K *mat.SymDense, kx []float64) {
	for j := range K.SymmetricDim() {
		K.SetSym(1, j, K.At(0, j))
	}
	K.SetSym(1, 1, K.At(0, 0))
	kx[1] = kx[0]
}

func objective(K mat.Symmetric, kx []float64, kxx, lambda float64, v []float64) float64 {
	n := len(v)
	f := kxx
	for i := range n {
		f -= 2 * v[i] * kx[i]
		f += lambda * math.Abs(v[i])
		for j := range n {
			f += v[i] * K.At(i, j) * v[j]
		}
	}
	return f
}

// bruteForce enumerates every sign pattern s ∈ {−1,0,1}^n (or {0,1}^n when
// nonneg): on the support S the stationarity condition
// 2K_SS v_S − 2k_S + λ s_S = 0 gives v_S = K_SS⁻¹(k_S − λ s_S/2); the
// optimum is the best sign-consistent candidate.
func bruteForce(K mat.Symmetric, kx []float64, kxx, lambda float64, nonneg bool) ([]float64, float64) {
	n := len(kx)
	best, bestV := math.Inf(1), make([]float64, n)
	choices := []int{-1, 0, 1}
	if nonneg {
		choices = []int{0, 1}
	}
	total := 1
	for range n {
		total *= len(choices)
	}
	for code := range total {
		s := make([]int, n)
		c := code
		var supp []int
		for i := range n {
			s[i] = choices[c%len(choices)]
			c /= len(choices)
			if s[i] != 0 {
				supp = append(supp, i)
			}
		}
		v := make([]float64, n)
		if len(supp) > 0 {
			ks := mat.NewDense(len(supp), len(supp), nil)
			rhs := mat.NewVecDense(len(supp), nil)
			for a, i := range supp {
				rhs.SetVec(a, kx[i]-lambda*float64(s[i])/2)
				for b, j := range supp {
					ks.Set(a, b, K.At(i, j))
				}
			}
			var sol mat.VecDense
			if err := sol.SolveVec(ks, rhs); err != nil {
				continue
			}
			ok := true
			for a, i := range supp {
				v[i] = sol.AtVec(a)
				if v[i]*float64(s[i]) <= 0 {
					ok = false
				}
			}
			if !ok {
				continue
			}
		}
		if f := objective(K, kx, kxx, lambda, v); f < best {
			best, bestV = f, v
		}
	}
	return bestV, best
}

func TestLassoAgainstBruteForce(t *testing.T) {
	r := newRand(1)
	for trial := range 200 {
		n := 1 + trial%4
		K, kx, kxx := featureProblem(r, 6, n)
		lambda := []float64{0, 0.1, 1, 3, 10}[trial%5] * r.Float64() * 2
		nonneg := trial%3 == 0
		l, err := NewLasso(K, LassoOptions{Lambda: lambda, Tol: 1e-10, NonNegative: nonneg})
		if err != nil {
			t.Fatal(err)
		}
		v, cert, err := l.Solve(kx, kxx)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		wantV, wantF := bruteForce(K, kx, kxx, lambda, nonneg)
		if math.Abs(cert.Objective-wantF) > 1e-8*math.Max(1, math.Abs(wantF)) {
			t.Fatalf("trial %d (n=%d λ=%g nonneg=%v): objective %.12g, brute force %.12g", trial, n, lambda, nonneg, cert.Objective, wantF)
		}
		if got := objective(K, kx, kxx, lambda, v); math.Abs(got-cert.Objective) > 1e-10*math.Max(1, math.Abs(got)) {
			t.Fatalf("trial %d: certificate objective %g, recomputed %g", trial, cert.Objective, got)
		}
		for i := range v {
			if math.Abs(v[i]-wantV[i]) > 1e-5*math.Max(1, math.Abs(wantV[i])) {
				t.Fatalf("trial %d: v = %v, brute force %v", trial, v, wantV)
			}
		}
	}
}

// steinProblem returns a Stein Gram matrix over random SPD matrices and the
// kernel vector of a further query.
func steinProblem(t testing.TB, seed uint64, n, d int) (*mat.SymDense, []float64) {
	r := newRand(seed)
	ms := make([]*mat.SymDense, n+1)
	for i := range ms {
		g := mat.NewDense(d, d+2, nil)
		for a := range d {
			for b := range d + 2 {
				g.Set(a, b, r.NormFloat64())
			}
		}
		ms[i] = mat.NewSymDense(d, nil)
		ms[i].SymOuterK(1, g)
	}
	set, err := spd.NewSet(ms)
	if err != nil {
		t.Fatal(err)
	}
	k := spd.SteinKernel{Sigma: 0.5 * float64(d)}
	K, err := k.GramSym(context.Background(), set.Subset(seq(0, n)), nil)
	if err != nil {
		t.Fatal(err)
	}
	kx, err := k.Gram(context.Background(), set.Subset([]int{n}), set.Subset(seq(0, n)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return K, kx.RawRowView(0)
}

func seq(a, b int) []int {
	out := make([]int, 0, b-a)
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

// TestLassoKKT checks the optimality conditions at the returned code on a
// 200-atom Stein problem, recomputed here from K, k and v.
func TestLassoKKT(t *testing.T) {
	K, kx := steinProblem(t, 2, 200, 5)
	for _, nonneg := range []bool{false, true} {
		for _, lambda := range []float64{1e-3, 1e-2, 0.1} {
			const tol = 1e-8
			l, err := NewLasso(K, LassoOptions{Lambda: lambda, Tol: tol, NonNegative: nonneg})
			if err != nil {
				t.Fatal(err)
			}
			v, cert, err := l.Solve(kx, 1)
			if err != nil {
				t.Fatal(err)
			}
			kmax := 0.0
			for _, x := range kx {
				kmax = math.Max(kmax, math.Abs(x))
			}
			bound := tol * math.Max(lambda, 2*kmax)
			var kv mat.VecDense
			kv.MulVec(K, mat.NewVecDense(len(v), v))
			worst := 0.0
			for j := range v {
				grad := 2 * (kv.AtVec(j) - kx[j])
				var viol float64
				switch {
				case v[j] > 0:
					viol = math.Abs(grad + lambda)
				case v[j] < 0:
					if nonneg {
						t.Fatalf("negative coefficient %g under NonNegative", v[j])
					}
					viol = math.Abs(grad - lambda)
				case nonneg:
					viol = math.Max(0, -grad-lambda)
				default:
					viol = math.Max(0, math.Abs(grad)-lambda)
				}
				worst = math.Max(worst, viol)
			}
			if worst > bound {
				t.Errorf("λ=%g nonneg=%v: KKT violation %g > %g (certificate says %g)", lambda, nonneg, worst, bound, cert.KKT)
			}
			var l1 float64
			for _, x := range v {
				l1 += math.Abs(x)
			}
			if cert.Gap > l1*bound+1e-12 {
				t.Errorf("λ=%g nonneg=%v: duality gap %g > ‖v‖₁·tol = %g", lambda, nonneg, cert.Gap, l1*bound)
			}
			if cert.NonZeros == 0 || cert.NonZeros == len(v) {
				t.Logf("λ=%g: %d non-zeros", lambda, cert.NonZeros)
			}
		}
	}
}

func TestLassoLeastSquares(t *testing.T) {
	r := newRand(3)
	for _, n := range []int{1, 3, 8, 20} {
		K, kx, kxx := featureProblem(r, 40, n)
		l, err := NewLasso(K, LassoOptions{Lambda: 0, Tol: 1e-12, MaxSweeps: 100000})
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := l.Solve(kx, kxx)
		if err != nil {
			t.Fatal(err)
		}
		var want mat.VecDense
		if err := want.SolveVec(K, mat.NewVecDense(n, kx)); err != nil {
			t.Fatal(err)
		}
		for i := range v {
			if math.Abs(v[i]-want.AtVec(i)) > 1e-5*math.Max(1, math.Abs(want.AtVec(i))) {
				t.Errorf("n=%d: v[%d] = %g, least squares %g", n, i, v[i], want.AtVec(i))
			}
		}
	}
}

// TestGapBoundsSuboptimality checks that the certificate's duality gap of
// an unconverged code really bounds its distance to the optimum.
func TestGapBoundsSuboptimality(t *testing.T) {
	K, kx := steinProblem(t, 4, 80, 4)
	for _, nonneg := range []bool{false, true} {
		opt, _ := NewLasso(K, LassoOptions{Lambda: 0.01, Tol: 1e-12, NonNegative: nonneg})
		_, best, err := opt.Solve(kx, 1)
		if err != nil {
			t.Fatal(err)
		}
		// A warm start far from the code, so that neither the homotopy
		// (cold starts only) nor one sweep solves it.
		rough, _ := NewLasso(K, LassoOptions{Lambda: 0.01, MaxSweeps: 1, NonNegative: nonneg})
		v := make([]float64, len(kx))
		for j := range v {
			v[j] = 0.05
		}
		cert, err := rough.SolveTo(v, kx, 1, rough.NewWorkspace())
		if !errors.Is(err, ErrNoConvergence) {
			t.Fatalf("one sweep converged (%v): the test needs an unconverged code", err)
		}
		sub := cert.Objective - best.Objective
		if sub < -1e-12 || sub > cert.Gap*(1+1e-9)+1e-15 {
			t.Errorf("nonneg=%v: suboptimality %g not within [0, gap=%g]", nonneg, sub, cert.Gap)
		}
		if cert.Gap <= 0 {
			t.Errorf("unconverged code with zero gap")
		}
	}
}

func TestLassoWarmStart(t *testing.T) {
	K, kx := steinProblem(t, 5, 100, 4)
	l, _ := NewLasso(K, LassoOptions{Lambda: 0.02, Tol: 1e-9})
	v, cold, err := l.Solve(kx, 1)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := l.SolveTo(v, kx, 1, l.NewWorkspace())
	if err != nil {
		t.Fatal(err)
	}
	if warm.Sweeps >= cold.Sweeps || warm.Sweeps > 3 {
		t.Errorf("warm start took %d sweeps, cold %d", warm.Sweeps, cold.Sweeps)
	}
}

func TestLassoBatchMatchesSingle(t *testing.T) {
	K, _ := steinProblem(t, 6, 60, 3)
	r := newRand(7)
	kx := mat.NewDense(9, 60, nil)
	for i := range 9 {
		for j := range 60 {
			kx.Set(i, j, r.Float64())
		}
	}
	kxx := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1}
	l, _ := NewLasso(K, LassoOptions{Lambda: 0.05, Workers: 1})
	ref, _, err := l.SolveBatch(context.Background(), kx, kxx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 4} {
		lw, _ := NewLasso(K, LassoOptions{Lambda: 0.05, Workers: w})
		got, _, err := lw.SolveBatch(context.Background(), kx, kxx)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, ref) {
			t.Errorf("workers=%d: codes differ from workers=1", w)
		}
	}
	v, _, _ := l.Solve(kx.RawRowView(4), 1)
	if !mat.Equal(mat.NewVecDense(60, v), ref.RowView(4)) {
		t.Error("batch row differs from a single solve")
	}
}

// hugeGram claims to be a 50,000×50,000 Gram matrix without storage.
type hugeGram struct{}

func (hugeGram) Dims() (int, int)    { return 50000, 50000 }
func (h hugeGram) T() mat.Matrix     { return h }
func (hugeGram) At(_, _ int) float64 { return 1 }

func TestLassoErrors(t *testing.T) {
	K := mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1})
	good := LassoOptions{Lambda: 0.1}
	l, _ := NewLasso(K, good)
	tests := []struct {
		name string
		fn   func() error
	}{
		{"negative lambda", func() error { _, err := NewLasso(K, LassoOptions{Lambda: -1}); return err }},
		{"NaN lambda", func() error { _, err := NewLasso(K, LassoOptions{Lambda: math.NaN()}); return err }},
		{"bad tol", func() error { _, err := NewLasso(K, LassoOptions{Tol: 2}); return err }},
		{"nil K", func() error { _, err := NewLasso(nil, good); return err }},
		{"empty K", func() error { _, err := NewLasso(&mat.Dense{}, good); return err }},
		{"non-square K", func() error { _, err := NewLasso(mat.NewDense(2, 3, nil), good); return err }},
		{"NaN in K", func() error {
			_, err := NewLasso(mat.NewDense(2, 2, []float64{1, math.NaN(), math.NaN(), 1}), good)
			return err
		}},
		{"Inf in symmetric K", func() error {
			_, err := NewLasso(mat.NewSymDense(2, []float64{1, math.Inf(1), 0, 1}), good)
			return err
		}},
		{"asymmetric K", func() error { _, err := NewLasso(mat.NewDense(2, 2, []float64{1, 0.2, 0.3, 1}), good); return err }},
		{"zero diagonal", func() error { _, err := NewLasso(mat.NewSymDense(2, []float64{1, 0, 0, 0}), good); return err }},
		{"short kx", func() error { _, _, err := l.Solve([]float64{1}, 1); return err }},
		{"NaN kx", func() error { _, _, err := l.Solve([]float64{1, math.NaN()}, 1); return err }},
		{"NaN kxx", func() error { _, _, err := l.Solve([]float64{1, 1}, math.NaN()); return err }},
		{"nil workspace", func() error { _, err := l.SolveTo(make([]float64, 2), []float64{1, 1}, 1, nil); return err }},
		{"negative warm start under NonNegative", func() error {
			nn, _ := NewLasso(K, LassoOptions{NonNegative: true})
			_, err := nn.SolveTo([]float64{-1, 0}, []float64{1, 1}, 1, nn.NewWorkspace())
			return err
		}},
		{"lambda ratio 1", func() error { _, err := NewLasso(K, LassoOptions{LambdaRatio: 1}); return err }},
		{"negative lambda ratio", func() error { _, err := NewLasso(K, LassoOptions{LambdaRatio: -0.1}); return err }},
		{"NaN lambda ratio", func() error { _, err := NewLasso(K, LassoOptions{LambdaRatio: math.NaN()}); return err }},
		{"lambda and ratio", func() error { _, err := NewLasso(K, LassoOptions{Lambda: 0.1, LambdaRatio: 0.1}); return err }},
		{"K of 50,000 atoms", func() error {
			_, err := NewLasso(hugeGram{}, good)
			if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "K: a 50000×50000 Gram matrix is copied, about 18.6 GiB, over the memory limit of 4 GiB") {
				return fmt.Errorf("not the memory error: %v", err)
			}
			return err
		}},
		{"batch sizes", func() error {
			_, _, err := l.SolveBatch(context.Background(), mat.NewDense(3, 2, nil), []float64{1})
			return err
		}},
		{"batch columns", func() error {
			_, _, err := l.SolveBatch(context.Background(), mat.NewDense(1, 3, nil), []float64{1})
			return err
		}},
	}
	for _, tc := range tests {
		if err := tc.fn(); !errors.Is(err, ErrInput) {
			t.Errorf("%s: got %v, want ErrInput", tc.name, err)
		}
	}
}

// TestLambdaMax checks the closed form of λ_max on random problems,
// explicit feature-space ones (kernel values of both signs) and Stein ones,
// with and without the sign constraint: at λ_max(x) the code is all zero,
// at 0.99·λ_max(x) it is not, and LambdaRatio solves at ratio·λ_max(x).
func TestLambdaMax(t *testing.T) {
	for seed := range uint64(12) {
		var K *mat.SymDense
		var kx []float64
		kxx := 1.0
		if seed%2 == 0 {
			K, kx, kxx = featureProblem(newRand(seed), 6, 7)
		} else {
			K, kx = steinProblem(t, seed, 7, 3)
		}
		for _, nonneg := range []bool{false, true} {
			lmax := LambdaMax(kx, nonneg)
			if lmax == 0 {
				continue // no atom correlates positively: zero for every λ
			}
			for _, tc := range []struct {
				factor float64
				zero   bool
			}{{1, true}, {1.5, true}, {0.99, false}, {0.5, false}} {
				l, err := NewLasso(K, LassoOptions{Lambda: tc.factor * lmax, NonNegative: nonneg, Tol: 1e-9})
				if err != nil {
					t.Fatal(err)
				}
				v, _, err := l.Solve(kx, kxx)
				if err != nil {
					t.Fatal(err)
				}
				if allZero(v) != tc.zero {
					t.Errorf("seed %d nonneg %v: λ = %g·λ_max: all-zero code %v, want %v (v = %.3g)", seed, nonneg, tc.factor, allZero(v), tc.zero, v)
				}
				// An independent check of the claim: brute force over sign
				// patterns agrees on whether 0 is the minimiser.
				if bv, _ := bruteForce(K, kx, kxx, tc.factor*lmax, nonneg); allZero(bv) != tc.zero {
					t.Errorf("seed %d nonneg %v: brute force at %g·λ_max: zero %v", seed, nonneg, tc.factor, allZero(bv))
				}
			}
			// LambdaRatio: the same code as the absolute λ it stands for.
			rl, err := NewLasso(K, LassoOptions{LambdaRatio: 0.3, NonNegative: nonneg, Tol: 1e-9})
			if err != nil {
				t.Fatal(err)
			}
			al, _ := NewLasso(K, LassoOptions{Lambda: 0.3 * lmax, NonNegative: nonneg, Tol: 1e-9})
			rv, rc, err := rl.Solve(kx, kxx)
			if err != nil {
				t.Fatal(err)
			}
			av, ac, _ := al.Solve(kx, kxx)
			if rc.Lambda != 0.3*lmax || ac.Lambda != 0.3*lmax {
				t.Errorf("seed %d: certificates report λ %g and %g, want %g", seed, rc.Lambda, ac.Lambda, 0.3*lmax)
			}
			for j := range rv {
				if rv[j] != av[j] {
					t.Errorf("seed %d nonneg %v: ratio code %v differs from absolute code %v", seed, nonneg, rv, av)
					break
				}
			}
		}
	}
}

// TestLassoLowRankGram checks convergence and optimality when atoms far
// outnumber the feature dimensions (a rank-6 Gram matrix of 120 atoms,
// with exact duplicates), where coordinate descent alone crawls.
func TestLassoLowRankGram(t *testing.T) {
	r := newRand(9)
	for trial := range 20 {
		K, kx, kxx := featureProblem(r, 6, 120)
		twinAtoms(K, kx)
		for _, nonneg := range []bool{false, true} {
			l, err := NewLasso(K, LassoOptions{Lambda: 0.05, Tol: 1e-8, NonNegative: nonneg})
			if err != nil {
				t.Fatal(err)
			}
			v, cert, err := l.Solve(kx, kxx)
			if err != nil {
				t.Fatalf("trial %d nonneg=%v: %v", trial, nonneg, err)
			}
			if cert.Sweeps > 1000 {
				t.Errorf("trial %d: %d sweeps", trial, cert.Sweeps)
			}
			if got := objective(K, kx, kxx, 0.05, v); math.Abs(got-cert.Objective) > 1e-9*math.Max(1, got) {
				t.Errorf("objective %g, recomputed %g", cert.Objective, got)
			}
		}
	}
}

// TestNewtonSolvesFace runs the feature-sign phase alone from a point
// with the optimal sign pattern, perturbed, plus a spurious atom of small
// weight, on problems with an exact duplicate atom (so K_AA is singular
// whenever both twins are in the support, and the regularised face solve
// must cope). Newton steps never add atoms, so the test checks what they
// promise: a lower objective, and the stationarity of the face they end on,
// 2(Kv − k)_j + λ sign(v_j) = 0 on the support; and that most runs reach
// the brute-force optimum, the spurious atom dropped.
func TestNewtonSolvesFace(t *testing.T) {
	r := newRand(11)
	tried, reached := 0, 0
	for trial := range 300 {
		K, kx, kxx := featureProblem(r, 4, 6)
		twinAtoms(K, kx)
		lambda := 0.2 + r.Float64()
		want, wantF := bruteForce(K, kx, kxx, lambda, false)
		spurious := -1
		for j, x := range want {
			if x == 0 && j > 1 {
				spurious = j
			}
		}
		if allZero(want) || spurious < 0 {
			continue
		}
		tried++
		l, err := NewLasso(K, LassoOptions{Lambda: lambda, Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		ws := l.NewWorkspace()
		v := make([]float64, 6)
		for j, x := range want {
			v[j] = x * (1 + 0.3*r.Float64())
		}
		if want[0] != 0 { // split the weight over both twins
			v[1], v[0] = 0.5*v[0], 0.5*v[0]
		}
		v[spurious] = 0.01 * (r.Float64() - 0.5)
		l.gradient(ws.g, v)
		before := l.objective(v, kx, kxx, ws.g)
		if !l.newton(v, kx, kxx, ws, before, 1e-12) {
			t.Fatalf("trial %d: no Newton step from %v (optimum %v)", trial, v, want)
		}
		var kv mat.VecDense
		kv.MulVec(K, mat.NewVecDense(6, v))
		for j, x := range v {
			if x == 0 {
				continue
			}
			if g := 2*(kv.AtVec(j)-kx[j]) + math.Copysign(lambda, x); math.Abs(g) > 1e-8 {
				t.Errorf("trial %d: face gradient %g at atom %d (v = %v)", trial, g, j, v)
			}
		}
		got := objective(K, kx, kxx, lambda, v)
		if got >= before || got < wantF-1e-9*math.Max(1, math.Abs(wantF)) {
			t.Errorf("trial %d: objective %.12g after Newton, %.12g before, optimum %.12g", trial, got, before, wantF)
		}
		if math.Abs(got-wantF) <= 1e-9*math.Max(1, math.Abs(wantF)) && v[spurious] == 0 {
			reached++
		}
	}
	if tried < 50 || 2*reached < tried {
		t.Errorf("%d of %d runs reached the optimum", reached, tried)
	}
}

// TestNewLassoCopiesViews checks that a Gram matrix given as a strided
// view of a larger dense matrix gives the same solver as the symmetric
// matrix of its values.
func TestNewLassoCopiesViews(t *testing.T) {
	K, kx := steinProblem(t, 8, 30, 3)
	big := mat.NewDense(40, 45, nil)
	view := big.Slice(5, 35, 7, 37).(*mat.Dense)
	view.Copy(K)
	for _, src := range []mat.Matrix{K, view} {
		l, err := NewLasso(src, LassoOptions{Lambda: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			for j := range 30 {
				if got, want := l.k[i*30+j], K.At(i, j); got != want {
					t.Fatalf("%T: K[%d][%d] = %v, want %v", src, i, j, got, want)
				}
			}
		}
		if _, _, err := l.Solve(kx, 1); err != nil {
			t.Fatal(err)
		}
	}
}
