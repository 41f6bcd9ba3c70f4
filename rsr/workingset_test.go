package rsr

import (
	"cmp"
	"math"
	"slices"
	"testing"
)

// TestWorkingSetMatchesWholeDictionary solves the same problems with the
// working-set solver and with coordinate descent on the whole dictionary
// (solvePath): the objectives must agree within the sum of the two duality
// gaps, which bound each one's distance to the optimum, and the working
// set's certificate must be the whole problem's (recomputed here). Warm
// starts include a support far from the optimum, which the rounds must
// leave.
func TestWorkingSetMatchesWholeDictionary(t *testing.T) {
	K, kx := steinProblem(t, 11, 300, 4)
	for _, nonneg := range []bool{false, true} {
		for _, lambda := range []float64{1e-4, 1e-3, 1e-2, 0.1} {
			l, err := NewLasso(K, LassoOptions{Lambda: lambda, Tol: 1e-8, NonNegative: nonneg})
			if err != nil {
				t.Fatal(err)
			}
			ref := make([]float64, l.n)
			refCert, err := l.solvePath(ref, kx, 1, l.NewWorkspace(), LambdaMax(kx, false)/2)
			if err != nil {
				t.Fatal(err)
			}
			for _, start := range []string{"cold", "far"} {
				v := make([]float64, l.n)
				if start == "far" {
					for j := 0; j < l.n; j += 7 {
						v[j] = 0.01
					}
				}
				ws := l.NewWorkspace()
				cert, err := l.SolveTo(v, kx, 1, ws)
				if err != nil {
					t.Fatalf("λ=%g nonneg=%v %s: %v", lambda, nonneg, start, err)
				}
				if ws.setBuffers == nil {
					t.Fatal("the working-set solver did not run")
				}
				if f := objective(K, kx, 1, lambda, v); math.Abs(f-cert.Objective) > 1e-9 {
					t.Errorf("λ=%g nonneg=%v %s: certificate objective %g, recomputed %g", lambda, nonneg, start, cert.Objective, f)
				}
				if d := math.Abs(cert.Objective - refCert.Objective); d > cert.Gap+refCert.Gap+1e-12 {
					t.Errorf("λ=%g nonneg=%v %s: objective %.12g, whole dictionary %.12g: differ by %g > gaps %g + %g",
						lambda, nonneg, start, cert.Objective, refCert.Objective, d, cert.Gap, refCert.Gap)
				}
				if !cert.Converged {
					t.Errorf("λ=%g nonneg=%v %s: not converged (KKT %g)", lambda, nonneg, start, cert.KKT)
				}
			}
		}
	}
}

// TestWorkingSetCap checks that MaxSweeps bounds the sweeps summed over
// the rounds, and that the error carries the whole problem's certificate.
func TestWorkingSetCap(t *testing.T) {
	K, kx := steinProblem(t, 12, 200, 4)
	l, err := NewLasso(K, LassoOptions{Lambda: 1e-4, Tol: 1e-12, MaxSweeps: 3})
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, l.n)
	cert, err := l.SolveTo(v, kx, 1, l.NewWorkspace())
	if err == nil {
		t.Fatal("3 sweeps at tolerance 1e-12: want ErrNoConvergence")
	}
	if cert.Sweeps > 3 || cert.Converged {
		t.Errorf("certificate %+v: want at most 3 sweeps, not converged", cert)
	}
	if f := objective(K, kx, 1, 1e-4, v); math.Abs(f-cert.Objective) > 1e-9 {
		t.Errorf("certificate objective %g, recomputed %g", cert.Objective, f)
	}
}

// TestSelectWorst checks the quickselect against a sort, ties included.
func TestSelectWorst(t *testing.T) {
	r := newRand(13)
	for trial := range 200 {
		n := 1 + r.IntN(60)
		c := make([]violator, n)
		for i := range c {
			c[i] = violator{float64(r.IntN(8)), i} // many ties
		}
		want := slices.Clone(c)
		slices.SortFunc(want, func(x, y violator) int {
			if d := cmp.Compare(y.viol, x.viol); d != 0 {
				return d
			}
			return x.j - y.j
		})
		k := 1 + r.IntN(n)
		selectWorst(c, k)
		got := slices.Clone(c[:k])
		slices.SortFunc(got, func(x, y violator) int { return x.j - y.j })
		w := slices.Clone(want[:k])
		slices.SortFunc(w, func(x, y violator) int { return x.j - y.j })
		if !slices.Equal(got, w) {
			t.Fatalf("trial %d: n=%d k=%d: selected %v, want %v", trial, n, k, got, w)
		}
	}
}
