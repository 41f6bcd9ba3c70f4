package tsc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSymKron checks K(P) svec V = svec(PVP), both sides computed
// independently (gonum products and an svec written here).
func TestSymKron(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for d := 1; d <= 6; d++ {
		b := newDualBuffers(d, 1)
		m := len(b.pairs)
		p, v := randSPD(rng, d), mat.NewSymDense(d, nil)
		for i := range d {
			for j := i; j < d; j++ {
				v.SetSym(i, j, rng.NormFloat64())
			}
		}
		svec := func(a mat.Matrix) []float64 {
			var out []float64
			for i := range d {
				for j := i; j < d; j++ {
					w := 1.0
					if i != j {
						w = math.Sqrt2
					}
					out = append(out, w*a.At(i, j))
				}
			}
			return out
		}
		pd := make([]float64, d*d)
		for i := range d {
			for j := range d {
				pd[i*d+j] = p.At(i, j)
			}
		}
		k := make([]float64, m*m)
		symKron(k, pd, b.pairs, d)
		var pv, pvp mat.Dense
		pv.Mul(p, v)
		pvp.Mul(&pv, p)
		want, sv := svec(&pvp), svec(v)
		for a := range m {
			var got float64
			for q := range m {
				kk := k[min(a, q)*m+max(a, q)] // upper triangle
				got += kk * sv[q]
			}
			if math.Abs(got-want[a]) > 1e-12*(1+math.Abs(want[a])) {
				t.Errorf("d=%d: (K svec V)[%d] = %v, want %v", d, a, got, want[a])
			}
		}
	}
}

// dualCases are problems on which the dual method is run: atoms fewer
// than, about as many as and far more than m = d(d+1)/2, λ from zero
// (where M(x) ⪯ I is active) to large.
func dualCases() []struct {
	n, d   int
	lambda float64
} {
	var cs []struct {
		n, d   int
		lambda float64
	}
	for _, d := range []int{2, 3, 5} {
		for _, n := range []int{1, 4, 30, 200} {
			for _, l := range []float64{0, 0.05, 1} {
				cs = append(cs, struct {
					n, d   int
					lambda float64
				}{n, d, l})
			}
		}
	}
	return cs
}

// TestDualCertificate checks the dual method's certificate independently
// of the package: the dual point it ends at, mapped back from the whitened
// coordinates (tr Â_iY = tr A_i L⁻ᵀYL⁻¹ for the query S = LLᵀ), is
// checked dual feasible and its objective recomputed with gonum from the
// unwhitened atoms; the code is checked primal feasible and its objective
// recomputed on the problem whitened by S^{-1/2}; the difference of the
// two must be the certificate's gap, within the tolerance.
func TestDualCertificate(t *testing.T) {
	for ci, tc := range dualCases() {
		name := fmt.Sprintf("n=%d d=%d λ=%v", tc.n, tc.d, tc.lambda)
		atoms, q := tinyProblem(t, tc.n, tc.d, uint64(300+ci))
		c := newCoder(t, atoms, Options{Lambda: tc.lambda, Solver: DualBarrier})
		ws := c.NewWorkspace()
		x := make([]float64, tc.n)
		cert, err := c.SolveTo(context.Background(), x, q, ws)
		if err != nil {
			t.Fatal(err)
		}
		if !cert.Converged || cert.Solver != DualBarrier || !(cert.Gap <= 1e-8*(1+math.Abs(cert.Objective))) {
			t.Errorf("%s: %+v", name, cert)
			continue
		}
		d := tc.d
		// The dual point in the query's unwhitened coordinates.
		var ch mat.Cholesky
		if !ch.Factorize(q) {
			t.Fatal("query not SPD")
		}
		var l, linv mat.TriDense
		ch.LTo(&l)
		if err := linv.InverseTri(&l); err != nil {
			t.Fatal(err)
		}
		back := func(a []float64) *mat.SymDense {
			var tmp, out mat.Dense
			tmp.Mul(linv.T(), mat.NewDense(d, d, append([]float64(nil), a...)))
			out.Mul(&tmp, &linv)
			s := mat.NewSymDense(d, nil)
			for i := range d {
				for j := i; j < d; j++ {
					s.SetSym(i, j, 0.5*(out.At(i, j)+out.At(j, i)))
				}
			}
			return s
		}
		yq, zq := back(ws.dual.y), back(ws.dual.z)
		var ey, ez mat.EigenSym
		ey.Factorize(yq, false)
		ez.Factorize(zq, false)
		if ey.Values(nil)[0] <= 0 || ez.Values(nil)[0] < 0 {
			t.Errorf("%s: Y or Z not positive: %v %v", name, ey.Values(nil), ez.Values(nil))
		}
		var sinv mat.SymDense
		if err := ch.InverseTo(&sinv); err != nil {
			t.Fatal(err)
		}
		w := mat.NewSymDense(d, nil)
		w.AddSym(yq, scaled(-1, zq))
		for i, a := range atoms {
			var sa, wa mat.Dense
			sa.Mul(&sinv, a)
			wa.Mul(w, a)
			ci := mat.Trace(&sa) + tc.lambda
			if s := ci - mat.Trace(&wa); s < -1e-12*ci {
				t.Errorf("%s: dual slack %d = %g", name, i, s)
			}
		}
		var zs mat.Dense
		zs.Mul(zq, q)
		var cy mat.Cholesky
		cy.Factorize(yq)
		dual := float64(d) + cy.LogDet() + ch.LogDet() - mat.Trace(&zs)
		if math.Abs(dual-cert.Dual) > 1e-9*(1+math.Abs(dual)) {
			t.Errorf("%s: dual objective %v, recomputed %v", name, cert.Dual, dual)
		}
		p := newProblem(t, atoms, q, tc.lambda)
		f := p.check(t, name, x, cert.Objective, true, 1e-12)
		if gap := f - dual; gap < -1e-9 || gap > 1e-8*(1+math.Abs(f))+1e-12 {
			t.Errorf("%s: recomputed gap %g (certificate %g)", name, gap, cert.Gap)
		}
	}
}

// TestDualAgainstPrimal compares the two barrier methods on the same
// problems: each certificate's lower bound stays below the other's
// objective, the objectives agree within the sum of the gaps, and the
// reconstructions M(x), unique at the optimum, agree within what the
// gaps allow. On the feasible set M ⪯ I the Hessian of −log det is at
// least the identity, so f(x) − f* >= ½‖M(x) − M*‖²_F.
func TestDualAgainstPrimal(t *testing.T) {
	for ci, tc := range dualCases() {
		name := fmt.Sprintf("n=%d d=%d λ=%v", tc.n, tc.d, tc.lambda)
		atoms, q := tinyProblem(t, tc.n, tc.d, uint64(500+ci))
		xp, cp, _ := code(t, atoms, q, Options{Lambda: tc.lambda, Solver: PrimalBarrier})
		xd, cd, _ := code(t, atoms, q, Options{Lambda: tc.lambda, Solver: DualBarrier})
		if !cp.Converged || !cd.Converged {
			t.Errorf("%s: %+v / %+v", name, cp, cd)
			continue
		}
		const eps = 1e-12
		if cd.Dual > cp.Objective+eps || cp.Dual > cd.Objective+eps {
			t.Errorf("%s: bounds cross: primal %+v, dual %+v", name, cp, cd)
		}
		p := newProblem(t, atoms, q, tc.lambda)
		diff := mat.NewSymDense(tc.d, nil)
		diff.AddSym(p.sum(xp), scaled(-1, p.sum(xd)))
		if dm, bound := mat.Norm(diff, 2), math.Sqrt(2*cp.Gap)+math.Sqrt(2*cd.Gap)+1e-9; dm > bound {
			t.Errorf("%s: ‖M(x_primal) − M(x_dual)‖ = %g > %g", name, dm, bound)
		}
	}
}

// TestSolverChoice checks AutoSolver's rule at its edges and that the
// certificate names the method.
func TestSolverChoice(t *testing.T) {
	for _, tc := range []struct {
		n, d int
		want Solver
	}{{12, 3, PrimalBarrier}, {13, 3, DualBarrier}, {43, 6, DualBarrier}, {42, 6, PrimalBarrier}, {72, 8, PrimalBarrier}, {73, 8, DualBarrier}} {
		atoms, q := tinyProblem(t, tc.n, tc.d, 9)
		_, cert, _ := code(t, atoms, q, Options{Lambda: 0.05})
		if cert.Solver != tc.want || !cert.Converged {
			t.Errorf("n=%d d=%d: %+v, want %v", tc.n, tc.d, cert, tc.want)
		}
	}
}

// TestDualFallback checks that a dual solve that cannot reach the
// tolerance within MaxIter steps hands the query to the primal method.
func TestDualFallback(t *testing.T) {
	atoms, q := tinyProblem(t, 40, 3, 10)
	c := newCoder(t, atoms, Options{Lambda: 0.05, Solver: DualBarrier, MaxIter: 3})
	_, cert, err := c.Solve(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Solver != PrimalBarrier || cert.Iterations < 4 {
		t.Errorf("%+v, want the primal method after 3 dual steps", cert)
	}
}

// TestDualWorkspaceReuse checks that a workspace's history does not
// change a code: the same query solved before and after another gives
// the same bits (so that a code does not depend on which worker, with
// which earlier queries, solved it), and that a solve allocates nothing
// once the workspace has met the coder.
func TestDualWorkspaceReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	c := newCoder(t, randAtoms(rng, 256, 3), Options{Lambda: 0.05})
	q1, q2 := randSPD(rng, 3), randSPD(rng, 3)
	ws := c.NewWorkspace()
	x1, x2, x3 := make([]float64, 256), make([]float64, 256), make([]float64, 256)
	c1, _ := c.SolveTo(context.Background(), x1, q1, ws)
	c.SolveTo(context.Background(), x2, q2, ws)
	c3, _ := c.SolveTo(context.Background(), x3, q1, ws)
	if c1 != c3 || c1.Solver != DualBarrier {
		t.Errorf("certificates %+v and %+v", c1, c3)
	}
	for i := range x1 {
		if x1[i] != x3[i] {
			t.Fatalf("x[%d] = %v, then %v", i, x1[i], x3[i])
		}
	}
	if a := testing.AllocsPerRun(5, func() { c.SolveTo(context.Background(), x2, q2, ws) }); a != 0 {
		t.Errorf("%v allocations per solve", a)
	}
}

// TestDualTightTolerance checks that the dual method certifies codes to a
// relative gap of 1e-10, a hundred times below the default, without
// handing queries to the primal method: the last barrier steps run at
// t ≈ 1e12, where a Newton system formed or solved with cancellation
// (the G entries, of order t²x_i², subtracted from each other) stalls.
func TestDualTightTolerance(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	for _, l := range []float64{0, 0.01, 0.1} {
		c := newCoder(t, randAtoms(rng, 256, 3), Options{Lambda: l, Tol: 1e-10})
		ws := c.NewWorkspace()
		x := make([]float64, 256)
		for k := range 25 {
			cert, err := c.SolveTo(context.Background(), x, randSPD(rng, 3), ws)
			if err != nil {
				t.Fatal(err)
			}
			if cert.Solver != DualBarrier || !cert.Converged {
				t.Errorf("λ=%v query %d: %+v", l, k, cert)
			}
		}
	}
}
