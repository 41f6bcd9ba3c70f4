package spd

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestAIRMCommutingClosedForm(t *testing.T) {
	r := newRand(10)
	for _, d := range []int{2, 3, 8, 43} {
		q := randOrthogonal(r, d)
		a, b := make([]float64, d), make([]float64, d)
		var ss, tmax float64
		for i := range d {
			a[i], b[i] = math.Exp(2*r.NormFloat64()), math.Exp(2*r.NormFloat64())
			l := math.Log(b[i] / a[i])
			ss += l * l
			tmax = math.Max(tmax, math.Abs(l))
		}
		x, y := withEigen(q, a), withEigen(q, b)
		got, err := AIRM(x, y)
		if err != nil {
			t.Fatal(err)
		}
		assertClose(t, "AIRM", got, math.Sqrt(ss), 1e-8)
		th, _ := Thompson(x, y)
		assertClose(t, "Thompson", th, tmax, 1e-8)
		// For commuting matrices the log-Euclidean distance equals the AIRM.
		le, _ := LogEuclidean(x, y)
		assertClose(t, "LogEuclidean", le, math.Sqrt(ss), 1e-8)
	}
}

func TestAIRMInvariances(t *testing.T) {
	r := newRand(11)
	for _, d := range []int{2, 3, 6, 17} {
		for range 5 {
			x, y := randSPD(r, d, 2), randSPD(r, d, 2)
			want, err := AIRM(x, y)
			if err != nil {
				t.Fatal(err)
			}
			a := randInvertible(r, d)
			got, _ := AIRM(congr(a, x), congr(a, y))
			assertClose(t, "AIRM(AXAᵀ, AYAᵀ)", got, want, 1e-8)
			sym, _ := AIRM(y, x)
			assertClose(t, "AIRM(Y, X)", sym, want, 1e-9)
			xi, yi := eigenFn(x, func(l float64) float64 { return 1 / l }), eigenFn(y, func(l float64) float64 { return 1 / l })
			inv, _ := AIRM(xi, yi)
			assertClose(t, "AIRM(X⁻¹, Y⁻¹)", inv, want, 1e-8)
			// Against the definition ‖log(X^{-1/2} Y X^{-1/2})‖_F computed
			// with gonum's EigenSym.
			xis := eigenFn(x, func(l float64) float64 { return 1 / math.Sqrt(l) })
			inner := eigenFn(congruence(xis, y), math.Log)
			assertClose(t, "AIRM vs definition", want, mat.Norm(inner, 2), 1e-8)
		}
	}
}

func TestLogEuclideanDefinition(t *testing.T) {
	r := newRand(12)
	x, y := randSPD(r, 5, 2), randSPD(r, 5, 2)
	lx, ly := eigenFn(x, math.Log), eigenFn(y, math.Log)
	var diff mat.Dense
	diff.Sub(lx, ly)
	got, err := LogEuclidean(x, y)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "LogEuclidean", got, mat.Norm(&diff, 2), 1e-10)
	// The isometric vectorisation preserves it.
	w := NewWorkspace(5)
	vx, vy := make([]float64, VecLen(5)), make([]float64, VecLen(5))
	if err := w.LogVecTo(vx, x, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.LogVecTo(vy, y, nil); err != nil {
		t.Fatal(err)
	}
	var ss float64
	for i := range vx {
		ss += (vx[i] - vy[i]) * (vx[i] - vy[i])
	}
	assertClose(t, "‖vec log X − vec log Y‖", math.Sqrt(ss), got, 1e-10)
}

// TestGeodesicProperty checks Property 2: d_g(X, γ(p)) = p·d_g(X, Y).
func TestGeodesicProperty(t *testing.T) {
	r := newRand(13)
	for _, d := range []int{2, 3, 7} {
		x, y := randSPD(r, d, 2), randSPD(r, d, 2)
		full, _ := AIRM(x, y)
		for _, p := range []float64{0, 0.25, 0.5, 0.9, 1} {
			g, err := Geodesic(x, y, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(g); err != nil {
				t.Fatalf("γ(%g) not SPD: %v", p, err)
			}
			got, _ := AIRM(x, g)
			if p == 0 {
				if got > 1e-7 {
					t.Errorf("d(X, γ(0)) = %g, want 0", got)
				}
				continue
			}
			assertClose(t, "d(X, γ(p))", got, p*full, 1e-8)
			rest, _ := AIRM(g, y)
			assertClose(t, "d(γ(p), Y)", rest, (1-p)*full, 1e-7)
		}
		g1, _ := Geodesic(x, y, 1)
		assertSymClose(t, "γ(1)", g1, y, 1e-9)
	}
}

func TestMatrixFunctions(t *testing.T) {
	r := newRand(14)
	for _, d := range []int{1, 2, 3, 10, 43} {
		x := randSPD(r, d, 2)
		l, err := Log(x)
		if err != nil {
			t.Fatal(err)
		}
		assertSymClose(t, "log vs EigenSym", l, eigenFn(x, math.Log), 1e-10)
		e, _ := Exp(l)
		assertSymClose(t, "exp(log X)", e, x, 1e-9)
		s, _ := Sqrt(x)
		var s2 mat.Dense
		s2.Mul(s, s)
		assertSymClose(t, "sqrt(X)²", symPart(&s2), x, 1e-9)
		si, _ := InvSqrt(x)
		var id mat.Dense
		id.Mul(si, s)
		assertSymClose(t, "X^{-1/2} X^{1/2}", symPart(&id), diag(repeat(1, d)...), 1e-9)
		p, _ := Pow(x, 0.5)
		assertSymClose(t, "X^0.5", p, s, 1e-10)
		p3, _ := Pow(x, -1.5)
		assertSymClose(t, "X^-1.5", p3, eigenFn(x, func(l float64) float64 { return math.Pow(l, -1.5) }), 1e-9)
	}
	// Diagonal closed forms.
	l, _ := Log(diag(1, math.E, 1/math.E))
	assertSymClose(t, "log diag", l, diag(0, 1, -1), 1e-15)
	e, _ := Exp(diag(0, 1, -2)) // exp is defined for any symmetric matrix
	assertSymClose(t, "exp diag", e, diag(1, math.E, math.Exp(-2)), 1e-15)
}

func TestMatrixFunctionClamping(t *testing.T) {
	// A rank-deficient PSD matrix is not SPD enough: refused, not clamped
	// into finite garbage.
	v := []float64{1, 2, 3}
	x := mat.NewSymDense(3, nil)
	for i := range 3 {
		for j := i; j < 3; j++ {
			x.SetSym(i, j, v[i]*v[j])
		}
	}
	if _, err := Log(x); !errors.Is(err, ErrNotSPD) {
		t.Fatalf("rank-deficient: got %v, want ErrNotSPD", err)
	}
	// A clearly indefinite matrix is refused.
	if _, err := Log(mat.NewSymDense(2, []float64{1, 2, 2, 1})); !errors.Is(err, ErrNotSPD) {
		t.Errorf("indefinite: got %v", err)
	}
	if _, err := Sqrt(diag(1, -1e-3)); !errors.Is(err, ErrNotSPD) {
		t.Errorf("negative eigenvalue: got %v", err)
	}
	if _, err := Exp(diag(1000, 1)); !errors.Is(err, ErrNotFinite) {
		t.Errorf("overflowing exp: got %v", err)
	}
	if _, err := Log(diag(1, math.NaN())); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN: got %v", err)
	}
}

func TestExpLogMaps(t *testing.T) {
	r := newRand(15)
	for _, d := range []int{2, 3, 6} {
		p := randSPD(r, d, 1.5)
		v := mat.NewSymDense(d, nil)
		for i := range d {
			for j := i; j < d; j++ {
				v.SetSym(i, j, r.NormFloat64())
			}
		}
		x, err := ExpMap(p, v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := LogMap(p, x)
		if err != nil {
			t.Fatal(err)
		}
		assertSymClose(t, "Log_P(Exp_P(V))", back, v, 1e-9)
		// The geodesic distance equals the tangent norm at P:
		// ‖P^{-1/2} V P^{-1/2}‖_F.
		pis := eigenFn(p, func(l float64) float64 { return 1 / math.Sqrt(l) })
		want := mat.Norm(congruence(pis, v), 2)
		got, _ := AIRM(p, x)
		assertClose(t, "d(P, Exp_P(V))", got, want, 1e-8)
		// At the identity the maps are the matrix exp and log.
		id := diag(repeat(1, d)...)
		e1, _ := ExpMap(id, v)
		e2, _ := Exp(v)
		assertSymClose(t, "Exp_I", e1, e2, 1e-10)
	}
}

func TestGeometryErrors(t *testing.T) {
	x := diag(1, 2, 3)
	bad := mat.NewSymDense(3, []float64{1, 2, 0, 2, 1, 0, 0, 0, 1})
	nan := diag(1, math.NaN(), 1)
	small := diag(1, 2)
	tests := []struct {
		name string
		fn   func() error
		want error
	}{
		{"AIRM indefinite Y", func() error { _, err := AIRM(x, bad); return err }, ErrNotSPD},
		{"AIRM indefinite X", func() error { _, err := AIRM(bad, x); return err }, ErrNotSPD},
		{"AIRM sizes", func() error { _, err := AIRM(x, small); return err }, ErrDimension},
		{"AIRM nil", func() error { _, err := AIRM(nil, x); return err }, ErrEmpty},
		{"Thompson NaN", func() error { _, err := Thompson(x, nan); return err }, ErrNotFinite},
		{"LogEuclidean indefinite", func() error { _, err := LogEuclidean(x, bad); return err }, ErrNotSPD},
		{"Stein sizes", func() error { _, err := Stein(x, small); return err }, ErrDimension},
		{"Stein NaN", func() error { _, err := Stein(nan, x); return err }, ErrNotFinite},
		{"ExpMap bad base", func() error { _, err := ExpMap(bad, x); return err }, ErrNotSPD},
		{"ExpMap NaN tangent", func() error { _, err := ExpMap(x, nan); return err }, ErrNotFinite},
		{"LogMap sizes", func() error { _, err := LogMap(x, small); return err }, ErrDimension},
		{"Geodesic NaN t", func() error { _, err := Geodesic(x, x, math.NaN()); return err }, ErrParameter},
		{"Pow Inf", func() error { _, err := Pow(x, math.Inf(1)); return err }, ErrParameter},
		{"VecTo length", func() error { return VecTo(make([]float64, 5), x) }, ErrDimension},
		{"LogTo wrong dst", func() error { return NewWorkspace(3).LogTo(mat.NewSymDense(2, nil), x) }, ErrDimension},
	}
	for _, tc := range tests {
		if err := tc.fn(); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestLogMapGeodesicCond1e8 checks LogMap and Geodesic where the whitened
// matrix P^{−1/2} X P^{−1/2} has eigenvalues far below λ_max·d·ε but
// exactly representable: P = diag(p_i), X = diag(x_i) at d = 43, each of
// condition 1e8, p_i = 10^{8i/42} and x_i = 10^{8(42−i)/42}, so that the
// whitened eigenvalues x_i/p_i run from 1e8 down to 1e-8 (condition
// 1e16; λ_max·d·ε ≈ 9.5e-7). The reference, exact to a few ulps, is
// Log_P(X) = diag(p_i log(x_i/p_i)) and γ(t) = diag(p_i^{1−t} x_i^t); the
// eigenvalues below the floor are the ones a clamp to λ_max·d·ε would
// replace (by up to 95 times their value, 4.5 in their logarithm).
func TestLogMapGeodesicCond1e8(t *testing.T) {
	const d = 43
	p, x := make([]float64, d), make([]float64, d)
	for i := range d {
		p[i] = math.Pow(10, 8*float64(i)/(d-1))
		x[i] = math.Pow(10, 8*float64(d-1-i)/(d-1))
	}
	pm, xm := diag(p...), diag(x...)
	for _, tc := range []struct {
		name string
		got  func() (*mat.SymDense, error)
		want func(i int) float64
	}{
		{"LogMap", func() (*mat.SymDense, error) { return LogMap(pm, xm) }, func(i int) float64 { return p[i] * math.Log(x[i]/p[i]) }},
		{"Geodesic t=0.5", func() (*mat.SymDense, error) { return Geodesic(pm, xm, 0.5) }, func(i int) float64 { return math.Sqrt(p[i] * x[i]) }},
		{"Geodesic t=0.9", func() (*mat.SymDense, error) { return Geodesic(pm, xm, 0.9) }, func(i int) float64 { return math.Pow(p[i], 0.1) * math.Pow(x[i], 0.9) }},
		{"Geodesic t=2", func() (*mat.SymDense, error) { return Geodesic(pm, xm, 2) }, func(i int) float64 { return x[i] * x[i] / p[i] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			if err != nil {
				t.Fatal(err)
			}
			for i := range d {
				for j := range d {
					want := 0.0
					if i == j {
						want = tc.want(i)
					}
					if diff := math.Abs(got.At(i, j) - want); diff > 1e-13*math.Max(math.Abs(want), 1e-300) && diff > 1e-300 {
						t.Fatalf("[%d][%d] = %.17g, want %.17g (relative error %.3g)", i, j, got.At(i, j), want, diff/math.Abs(want))
					}
				}
			}
		})
	}
}
