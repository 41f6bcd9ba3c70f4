package tsc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// solvers are the barrier methods that every test of a code runs with.
var solvers = []Solver{PrimalBarrier, DualBarrier}

// randSPD returns GGᵀ + 0.1 I for a d×(d+2) standard normal G.
func randSPD(rng *rand.Rand, d int) *mat.SymDense {
	g := mat.NewDense(d, d+2, nil)
	for i := range d {
		for j := range d + 2 {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	s := mat.NewSymDense(d, nil)
	s.SymOuterK(1, g)
	for i := range d {
		s.SetSym(i, i, s.At(i, i)+0.1)
	}
	return s
}

// problem is the MAXDET problem of a query written independently of the
// package: atoms whitened by the symmetric S^{-1/2} (not the Cholesky
// factor), objective, constraint and residuals with gonum's mat.
type problem struct {
	d      int
	lambda float64
	b      []*mat.SymDense // S^{-1/2} A_i S^{-1/2}
}

func newProblem(t testing.TB, atoms []*mat.SymDense, query *mat.SymDense, lambda float64) *problem {
	t.Helper()
	w, err := spd.InvSqrt(query)
	if err != nil {
		t.Fatal(err)
	}
	d := query.SymmetricDim()
	p := &problem{d: d, lambda: lambda}
	for _, a := range atoms {
		var wa, b mat.Dense
		wa.Mul(w, a)
		b.Mul(&wa, w)
		s := mat.NewSymDense(d, nil)
		for i := range d {
			for j := i; j < d; j++ {
				s.SetSym(i, j, 0.5*(b.At(i, j)+b.At(j, i)))
			}
		}
		p.b = append(p.b, s)
	}
	return p
}

func (p *problem) sum(x []float64) *mat.SymDense {
	m := mat.NewSymDense(p.d, nil)
	for i, xi := range x {
		m.AddSym(m, scaled(xi, p.b[i]))
	}
	return m
}

func scaled(a float64, s *mat.SymDense) *mat.SymDense {
	var out mat.SymDense
	out.ScaleSym(a, s)
	return &out
}

// f is the objective, +Inf where Σ x_i B_i is singular.
func (p *problem) f(x []float64) float64 {
	m := p.sum(x)
	var ch mat.Cholesky
	if !ch.Factorize(m) {
		return math.Inf(1)
	}
	var s float64
	for i, xi := range x {
		s += xi * (mat.Trace(p.b[i]) + p.lambda)
	}
	return s - ch.LogDet()
}

// slack returns the smallest eigenvalue of I − Σ x_i B_i.
func (p *problem) slack(x []float64) float64 {
	r := p.sum(x)
	r.ScaleSym(-1, r)
	for i := range p.d {
		r.SetSym(i, i, r.At(i, i)+1)
	}
	var e mat.EigenSym
	if !e.Factorize(r, false) {
		panic("eigen")
	}
	return e.Values(nil)[0]
}

// check fails t unless the code x of problem name is non-negative
// (positive when positive is set), feasible to within tol and of the
// objective objective, recomputed here; it returns the recomputed one.
func (p *problem) check(t *testing.T, name string, x []float64, objective float64, positive bool, tol float64) float64 {
	t.Helper()
	for _, v := range x {
		if !(v > 0 || v == 0 && !positive) {
			t.Fatalf("%s: code %v not positive", name, x)
		}
	}
	if s := p.slack(x); s < -tol {
		t.Errorf("%s: λ_min(I − Σ x B) = %g", name, s)
	}
	f := p.f(x)
	if math.Abs(f-objective) > 1e-9*(1+math.Abs(f)) {
		t.Errorf("%s: objective %v, recomputed %v", name, objective, f)
	}
	return f
}

func (p *problem) feasible(x []float64) bool {
	for _, v := range x {
		if v < 0 {
			return false
		}
	}
	return p.slack(x) > 0 && !math.IsInf(p.f(x), 1)
}

// projectedGradient minimises f over the feasible set by gradient steps
// projected onto x >= 0, backtracking until the point is strictly feasible
// and the objective decreases.
func (p *problem) projectedGradient(x []float64, iters int) []float64 {
	n := len(x)
	g := make([]float64, n)
	y := make([]float64, n)
	step := 1.0
	fx := p.f(x)
	for range iters {
		var ch mat.Cholesky
		ch.Factorize(p.sum(x))
		var minv mat.SymDense
		ch.InverseTo(&minv)
		for i := range n {
			var tr float64
			for a := range p.d {
				for b := range p.d {
					tr += minv.At(a, b) * p.b[i].At(b, a)
				}
			}
			g[i] = mat.Trace(p.b[i]) + p.lambda - tr
		}
		step *= 2
		for ; step > 1e-20; step /= 2 {
			var dd float64
			for i := range n {
				y[i] = math.Max(0, x[i]-step*g[i])
				dd += (y[i] - x[i]) * g[i]
			}
			if p.feasible(y) {
				if fy := p.f(y); fy <= fx+1e-4*dd {
					copy(x, y)
					fx = fy
					break
				}
			}
		}
	}
	return x
}

func tinyCases() []struct {
	n, d   int
	lambda float64
	seed   uint64
} {
	var cs []struct {
		n, d   int
		lambda float64
		seed   uint64
	}
	seed := uint64(1)
	for _, n := range []int{2, 3, 4} {
		for _, d := range []int{2, 3} {
			if n > d*(d+1)/2 {
				continue // strictly convex only for independent atoms
			}
			for _, l := range []float64{0, 0.1, 1, 5, 20, 100} {
				cs = append(cs, struct {
					n, d   int
					lambda float64
					seed   uint64
				}{n, d, l, seed})
				seed++
			}
		}
	}
	return cs
}

// randAtoms returns n matrices of randSPD.
func randAtoms(rng *rand.Rand, n, d int) []*mat.SymDense {
	atoms := make([]*mat.SymDense, n)
	for i := range atoms {
		atoms[i] = randSPD(rng, d)
	}
	return atoms
}

func tinyProblem(t testing.TB, n, d int, seed uint64) ([]*mat.SymDense, *mat.SymDense) {
	rng := rand.New(rand.NewPCG(seed, 99))
	return randAtoms(rng, n, d), randSPD(rng, d)
}

// newCoder builds the Coder of atoms, failing t on an error.
func newCoder(t testing.TB, atoms []*mat.SymDense, o Options) *Coder {
	t.Helper()
	set, err := spd.NewSet(atoms)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCoder(set, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func code(t testing.TB, atoms []*mat.SymDense, query *mat.SymDense, o Options) ([]float64, Certificate, *Coder) {
	t.Helper()
	c := newCoder(t, atoms, o)
	x, cert, err := c.Solve(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	if o.Solver != AutoSolver && cert.Solver != o.Solver {
		t.Errorf("solved by %v, want %v (%+v)", cert.Solver, o.Solver, cert)
	}
	return x, cert, c
}

// TestTinyAgainstProjectedGradient compares codes on tiny problems with
// projected gradient descent on the independently written objective: the
// same point, feasibility, and a gap that bounds the suboptimality.
func TestTinyAgainstProjectedGradient(t *testing.T) {
	matched := make(map[Solver]int)
	for _, tc := range tinyCases() {
		atoms, query := tinyProblem(t, tc.n, tc.d, tc.seed)
		p := newProblem(t, atoms, query, tc.lambda)
		start := make([]float64, tc.n)
		for i := range start {
			start[i] = 1e-3
		}
		ref := p.projectedGradient(start, 20000)
		fr := p.f(ref)
		for _, solver := range solvers {
			name := fmt.Sprintf("%v, n=%d d=%d λ=%v", solver, tc.n, tc.d, tc.lambda)
			x, cert, _ := code(t, atoms, query, Options{Lambda: tc.lambda, Solver: solver})
			if !cert.Converged || !(cert.Gap >= 0) || cert.Gap > 1e-6 {
				t.Errorf("%s: %+v", name, cert)
			}
			fx := p.check(t, name, x, cert.Objective, false, 1e-9)
			// The reference is feasible, so f(ref) >= f* >= f(x) − Gap.
			if fx-fr > cert.Gap+1e-12 {
				t.Errorf("%s: f(x) − f(ref) = %g exceeds the gap %g", name, fx-fr, cert.Gap)
			}
			// Projection handles x >= 0 only: where Σ x B ⪯ I is active it
			// stalls on the boundary, so compare points where it is not.
			if p.slack(x) < 1e-3 {
				continue
			}
			matched[solver]++
			if fr-fx > 1e-7 {
				t.Errorf("%s: f(x) = %v, projected gradient %v", name, fx, fr)
			}
			for i := range x {
				if math.Abs(x[i]-ref[i]) > 1e-3 {
					t.Errorf("%s: x = %v, projected gradient %v", name, x, ref)
					break
				}
			}
		}
	}
	for _, solver := range solvers {
		if matched[solver] < 8 {
			t.Errorf("%v: only %d problems with an inactive constraint compared", solver, matched[solver])
		}
	}
}

// TestTwoAtomsAgainstGrid compares two-atom codes with a dense grid
// search refined around its best feasible point; λ = 0 puts the optimum
// on the boundary Σ x B = I's face, where projected gradient is slow.
func TestTwoAtomsAgainstGrid(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		for _, l := range []float64{0, 0.5} {
			d := 2 + int(seed%2)
			atoms, query := tinyProblem(t, 2, d, 100+seed)
			p := newProblem(t, atoms, query, l)
			// Each x_i <= 1/λ_min(B_i) on the feasible set.
			hi := make([]float64, 2)
			for i := range hi {
				var e mat.EigenSym
				e.Factorize(p.b[i], false)
				hi[i] = 1 / e.Values(nil)[0]
			}
			best, bf := []float64{0, 0}, math.Inf(1)
			lo := []float64{0, 0}
			const k = 200
			for range 6 {
				step := []float64{(hi[0] - lo[0]) / k, (hi[1] - lo[1]) / k}
				for a := 0; a <= k; a++ {
					for b := 0; b <= k; b++ {
						y := []float64{lo[0] + float64(a)*step[0], lo[1] + float64(b)*step[1]}
						if y[0] < 0 || y[1] < 0 || p.slack(y) < 0 {
							continue
						}
						if f := p.f(y); f < bf {
							best, bf = y, f
						}
					}
				}
				for i := range 2 {
					lo[i], hi[i] = math.Max(0, best[i]-5*step[i]), best[i]+5*step[i]
				}
			}
			for _, solver := range solvers {
				x, cert, _ := code(t, atoms, query, Options{Lambda: l, Solver: solver})
				fx := p.f(x)
				if fx-bf > cert.Gap+1e-12 || bf-fx > 1e-5 {
					t.Errorf("%v, seed %d λ=%v: f(x) = %.12g, grid %.12g, gap %g", solver, seed, l, fx, bf, cert.Gap)
				}
				if math.Abs(x[0]-best[0]) > 1e-3 || math.Abs(x[1]-best[1]) > 1e-3 {
					t.Errorf("%v, seed %d λ=%v: x = %v, grid %v", solver, seed, l, x, best)
				}
			}
		}
	}
}

// TestSingleAtomClosedForm checks one atom against
// x* = min(d/(tr B + λ), 1/λ_max(B)): the unconstrained minimiser of
// x(tr B + λ) − d log x, clipped to the constraint xB ⪯ I.
func TestSingleAtomClosedForm(t *testing.T) {
	forSolvers(t, singleAtomClosedForm)
}

func singleAtomClosedForm(t *testing.T, solver Solver) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, tc := range []struct {
		d      int
		lambda float64
		scale  float64
	}{
		{2, 0, 1}, {3, 0.5, 1}, {3, 0, 0.01}, {3, 2, 0.01}, {5, 0.1, 100}, {17, 1, 1},
	} {
		a := randSPD(rng, tc.d)
		q := randSPD(rng, tc.d)
		q.ScaleSym(tc.scale, q)
		x, cert, _ := code(t, []*mat.SymDense{a}, q, Options{Lambda: tc.lambda, Solver: solver})
		p := newProblem(t, []*mat.SymDense{a}, q, tc.lambda)
		var e mat.EigenSym
		e.Factorize(p.b[0], false)
		vals := e.Values(nil)
		want := math.Min(float64(tc.d)/(mat.Trace(p.b[0])+tc.lambda), 1/vals[tc.d-1])
		if math.Abs(x[0]-want) > 1e-6*want || !cert.Converged {
			t.Errorf("d=%d λ=%v scale %v: x = %v, want %v (%+v)", tc.d, tc.lambda, tc.scale, x[0], want, cert)
		}
	}
}

// TestQueryIsAtom codes a query equal to one of the atoms with λ = 0:
// that atom alone reconstructs it exactly (D_Burg = 0, the least possible).
func TestQueryIsAtom(t *testing.T) {
	forSolvers(t, queryIsAtom)
}

// forSolvers runs test once per solver, as a subtest named by it.
func forSolvers(t *testing.T, test func(*testing.T, Solver)) {
	for _, solver := range solvers {
		t.Run(solver.String(), func(t *testing.T) { test(t, solver) })
	}
}

func queryIsAtom(t *testing.T, solver Solver) {
	for _, d := range []int{3, 5} {
		rng := rand.New(rand.NewPCG(uint64(d), 3))
		var atoms []*mat.SymDense
		class := make([]int, 40)
		for i := range 40 {
			atoms = append(atoms, randSPD(rng, d))
			class[i] = i % 4
		}
		const k = 13
		x, cert, c := code(t, atoms, atoms[k], Options{Solver: solver})
		if !cert.Converged {
			t.Fatalf("d=%d: %+v", d, cert)
		}
		for i, v := range x {
			if i == k && math.Abs(v-1) > 1e-3 || i != k && v > 1e-3 {
				t.Fatalf("d=%d: x[%d] = %g, want x = e_%d (%v)", d, i, v, k, x)
			}
		}
		res := make([]float64, 4)
		if err := c.ClassResidualsTo(res, atoms[k], x, class, c.NewWorkspace()); err != nil {
			t.Fatal(err)
		}
		for j, r := range res {
			if j == class[k] && r > 1e-6 || j != class[k] && r <= res[class[k]] {
				t.Errorf("d=%d: residuals %v, want class %d's ≈ 0 and least", d, res, class[k])
			}
		}
	}
}

// TestClassResiduals checks the residuals against the unwhitened formula
// tr(S⁻¹X_k) − log det(S⁻¹X_k) − d, X_k = Σ_{class k} x_i A_i, and +Inf
// for a class without weight.
func TestClassResiduals(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const d, n = 4, 12
	var atoms []*mat.SymDense
	class := make([]int, n)
	x := make([]float64, n)
	for i := range n {
		atoms = append(atoms, randSPD(rng, d))
		class[i] = i % 3 // class 3 has no atom
		x[i] = rng.Float64()
	}
	x[2], x[5], x[8], x[11] = 0, 0, 0, 0 // class 2 has no weight
	q := randSPD(rng, d)
	set, _ := spd.NewSet(atoms)
	c, err := NewCoder(set, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := make([]float64, 4)
	if err := c.ClassResidualsTo(res, q, x, class, c.NewWorkspace()); err != nil {
		t.Fatal(err)
	}
	var sinv mat.SymDense
	var ch mat.Cholesky
	ch.Factorize(q)
	ch.InverseTo(&sinv)
	for k := range 4 {
		xk := mat.NewSymDense(d, nil)
		for i := range n {
			if class[i] == k {
				xk.AddSym(xk, scaled(x[i], atoms[i]))
			}
		}
		var want float64
		var cx mat.Cholesky
		if !cx.Factorize(xk) {
			want = math.Inf(1)
		} else {
			var prod mat.Dense
			prod.Mul(&sinv, xk)
			want = mat.Trace(&prod) - (cx.LogDet() - ch.LogDet()) - d
		}
		if !(math.Abs(res[k]-want) <= 1e-9*(1+math.Abs(want))) && res[k] != want {
			t.Errorf("class %d: residual %v, want %v", k, res[k], want)
		}
	}
}

// TestCongruenceInvariance checks that coding G A_i Gᵀ against G S Gᵀ
// gives the same code for any invertible G: the problem lives on the
// whitened atoms.
func TestCongruenceInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const d = 3
	var atoms, moved []*mat.SymDense
	g := mat.NewDense(d, d, nil)
	for i := range d * d {
		g.Set(i/d, i%d, rng.NormFloat64())
	}
	move := func(a *mat.SymDense) *mat.SymDense {
		var ga, gag mat.Dense
		ga.Mul(g, a)
		gag.Mul(&ga, g.T())
		s := mat.NewSymDense(d, nil)
		for i := range d {
			for j := i; j < d; j++ {
				s.SetSym(i, j, 0.5*(gag.At(i, j)+gag.At(j, i)))
			}
		}
		return s
	}
	for range 20 {
		a := randSPD(rng, d)
		atoms, moved = append(atoms, a), append(moved, move(a))
	}
	q := randSPD(rng, d)
	x, _, _ := code(t, atoms, q, Options{Lambda: 0.3})
	y, _, _ := code(t, moved, move(q), Options{Lambda: 0.3})
	for i := range x {
		if math.Abs(x[i]-y[i]) > 1e-5 {
			t.Fatalf("codes differ under congruence: %v vs %v", x, y)
		}
	}
}

// TestCertificateLarge checks feasibility and the certificate on a
// problem of the size of the synthetic protocol's dictionaries.
func TestCertificateLarge(t *testing.T) {
	forSolvers(t, certificateLarge)
}

func certificateLarge(t *testing.T, solver Solver) {
	for _, d := range []int{3, 6} {
		rng := rand.New(rand.NewPCG(uint64(d), 11))
		atoms := randAtoms(rng, 120, d)
		q := randSPD(rng, d)
		for _, l := range []float64{0, 0.05, 1} {
			x, cert, _ := code(t, atoms, q, Options{Lambda: l, Solver: solver})
			p := newProblem(t, atoms, q, l)
			if !cert.Converged || cert.Gap > 1e-7*(1+cert.Objective) || cert.Dual > cert.Objective {
				t.Errorf("d=%d λ=%v: %+v", d, l, cert)
			}
			if s := p.slack(x); s < -1e-9 {
				t.Errorf("d=%d λ=%v: λ_min(I − Σ x B) = %g", d, l, s)
			}
			for _, v := range x {
				if !(v >= 0) {
					t.Fatalf("d=%d λ=%v: negative coefficient %v", d, l, v)
				}
			}
			// No feasible perturbation improves on f(x) by more than the gap.
			f := p.f(x)
			y := append([]float64(nil), x...)
			for i := range y {
				y[i] = math.Max(0, y[i]+1e-4*rng.NormFloat64())
			}
			if p.feasible(y) && p.f(y) < f-cert.Gap-1e-12 {
				t.Errorf("d=%d λ=%v: perturbation beats the certified code: %v < %v − %v", d, l, p.f(y), f, cert.Gap)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	set, _ := spd.NewSet([]*mat.SymDense{randSPD(rng, 3), randSPD(rng, 3)})
	for _, o := range []Options{{Lambda: -1}, {Lambda: math.NaN()}, {Tol: 2}, {Factor: 1}, {MaxIter: -1}, {Solver: -1}, {Solver: DualBarrier + 1}} {
		if _, err := NewCoder(set, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	c, _ := NewCoder(set, Options{})
	bad := mat.NewSymDense(3, []float64{1, 2, 0, 2, 1, 0, 0, 0, 1})
	nan := mat.NewSymDense(3, []float64{1, 0, 0, 0, math.NaN(), 0, 0, 0, 1})
	for _, tc := range []struct {
		q    *mat.SymDense
		want error
	}{{bad, spd.ErrNotSPD}, {nan, spd.ErrNotFinite}, {randSPD(rng, 4), spd.ErrDimension}} {
		if _, _, err := c.Solve(context.Background(), tc.q); !errors.Is(err, tc.want) {
			t.Errorf("query %v: error %v, want %v", mat.Formatted(tc.q), err, tc.want)
		}
	}
	if err := c.ClassResidualsTo(make([]float64, 2), randSPD(rng, 3), []float64{1, 1}, []int{0, 2}, c.NewWorkspace()); err == nil {
		t.Error("class index out of range accepted")
	}
}

// TestCheckLambda checks CheckLambda against NewCoder: a λ is valid for
// one exactly when the other takes it.
func TestCheckLambda(t *testing.T) {
	atoms, err := spd.NewSet([]*mat.SymDense{mat.NewSymDense(2, []float64{2, 0, 0, 1})})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lambda float64
		ok     bool
	}{{0, true}, {0.1, true}, {1e6, true}, {-1e-12, false}, {math.NaN(), false}, {math.Inf(1), false}} {
		err := CheckLambda(tc.lambda)
		if (err == nil) != tc.ok {
			t.Errorf("CheckLambda(%v) = %v, want ok %v", tc.lambda, err, tc.ok)
		}
		if _, cerr := NewCoder(atoms, Options{Lambda: tc.lambda}); (cerr == nil) != (err == nil) {
			t.Errorf("λ = %v: CheckLambda %v but NewCoder %v", tc.lambda, err, cerr)
		}
	}
}

// TestSolvePaths checks the Newton solve on both of its paths, the N×N
// factorisation (N <= 2m) and the QR of Ũ (N > 2m): against gonum's dense
// Cholesky solve of I + ŨŨᵀ when Ũ's columns span two orders of
// magnitude, and by a backward-stable residual when they span eight, as
// large t makes them (there the reference is no more accurate than the
// code under test).
func TestSolvePaths(t *testing.T) {
	const d = 3 // 2m = 12
	for _, tc := range []struct {
		n      int
		spread int // Ũ's columns are scaled by up to 10^spread
	}{{5, 2}, {12, 2}, {13, 2}, {50, 2}, {5, 8}, {13, 8}, {50, 8}, {200, 8}} {
		n := tc.n
		rng := rand.New(rand.NewPCG(uint64(n), 5))
		c := newCoder(t, randAtoms(rng, n, d), Options{})
		ws := c.NewWorkspace()
		k := 2 * ws.m
		u := mat.NewDense(n, k, nil)
		for i := range n {
			for j := range k {
				u.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(j%(tc.spread+1))))
			}
		}
		r := make([]float64, n)
		for i := range r {
			r[i] = rng.NormFloat64()
		}
		copy(ws.us, u.RawMatrix().Data)
		copy(ws.y, r)
		if !c.solve(ws) {
			t.Fatalf("N=%d: solve failed", n)
		}
		var a mat.SymDense
		a.SymOuterK(1, u)
		for i := range n {
			a.SetSym(i, i, a.At(i, i)+1)
		}
		if tc.spread > 2 {
			// ‖(I + ŨŨᵀ)y − r‖ within a small multiple of ε‖I + ŨŨᵀ‖‖y‖.
			var res mat.VecDense
			y := mat.NewVecDense(n, ws.y)
			res.MulVec(&a, y)
			res.SubVec(&res, mat.NewVecDense(n, r))
			if bound := 1e3 * 0x1p-52 * mat.Norm(&a, 2) * mat.Norm(y, 2); mat.Norm(&res, 2) > bound {
				t.Errorf("N=%d spread 1e%d: residual %g > %g", n, tc.spread, mat.Norm(&res, 2), bound)
			}
			continue
		}
		var ch mat.Cholesky
		if !ch.Factorize(&a) {
			t.Fatalf("N=%d: reference factorisation failed", n)
		}
		var want mat.VecDense
		if err := ch.SolveVecTo(&want, mat.NewVecDense(n, r)); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if math.Abs(ws.y[i]-want.AtVec(i)) > 1e-8*(1+math.Abs(want.AtVec(i))) {
				t.Errorf("N=%d: y[%d] = %v, want %v", n, i, ws.y[i], want.AtVec(i))
			}
		}
	}
}

// TestWorkingSet checks the column generation of SolveTo against solves on
// every atom: from a working set of 4 of 60 atoms it must reach the same
// objective within the two certificates' gaps, with a feasible code, and
// the set must have grown where the first 4 atoms were not enough. A
// certificate of the working set alone would fail the first check.
func TestWorkingSet(t *testing.T) {
	grew := 0
	for seed := uint64(1); seed <= 6; seed++ {
		for _, l := range []float64{0, 0.1} {
			d := 2 + int(seed%3)
			atoms, q := tinyProblem(t, 60, d, seed+40)
			o := Options{Lambda: l, Solver: PrimalBarrier}
			o.WorkingSet = 4
			x, cert, _ := code(t, atoms, q, o)
			o.WorkingSet = -1
			xa, all, _ := code(t, atoms, q, o)
			if !cert.Converged || !all.Converged || all.Atoms != 60 {
				t.Fatalf("seed %d λ=%v: %+v / %+v", seed, l, cert, all)
			}
			p := newProblem(t, atoms, q, l)
			f, fa := p.f(x), p.f(xa)
			if f-fa > cert.Gap+1e-9 || fa-f > all.Gap+1e-9 {
				t.Errorf("seed %d λ=%v: f = %v (gap %g, %d atoms), all atoms %v (gap %g)", seed, l, f, cert.Gap, cert.Atoms, fa, all.Gap)
			}
			if s := p.slack(x); s < -1e-9 {
				t.Errorf("seed %d λ=%v: λ_min(I − Σ x B) = %g", seed, l, s)
			}
			if cert.Atoms > 4 {
				grew++
			}
		}
	}
	if grew == 0 {
		t.Error("the working set never grew: the test does not exercise column generation")
	}
}

// TestCancel checks that Solve and SolveTo return an error wrapping
// context.Canceled when their context is cancelled before the call (on a
// tiny problem) or while they run (on a dictionary whose Newton steps take
// far longer than the delay), on every atom and by column generation.
func TestCancel(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, d       int
		workingSet int
		cancelled  bool
	}{
		{"tiny", 4, 3, 0, true},
		{"large, every atom", 400, 20, -1, false},
		{"large, working sets", 400, 20, 150, false},
		{"tiny, dual", 40, 3, 0, true},
		{"large, dual", 50000, 6, 0, false},
	} {
		atoms, query := tinyProblem(t, tc.n, tc.d, 17)
		c := newCoder(t, atoms, Options{Lambda: 0.01, Tol: 1e-12, WorkingSet: tc.workingSet})
		ctx := func() context.Context {
			if tc.cancelled {
				return canceltest.Cancelled(t)
			}
			return canceltest.Soon(t)
		}
		_, _, err := c.Solve(ctx(), query)
		canceltest.Check(t, "Solve, "+tc.name, err)
		_, err = c.SolveTo(ctx(), make([]float64, tc.n), query, c.NewWorkspace())
		canceltest.Check(t, "SolveTo, "+tc.name, err)
	}
}
