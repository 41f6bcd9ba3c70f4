package spd

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/mat"
)

// TestDistanceDiagonalClosedForms checks every metric on diagonal (hence
// commuting) matrices, where the generalised eigenvalues are b_i/a_i.
func TestDistanceDiagonalClosedForms(t *testing.T) {
	closed := map[Metric]func(a, b []float64) float64{
		AIRMMetric: func(a, b []float64) float64 {
			var s float64
			for i := range a {
				l := math.Log(b[i] / a[i])
				s += l * l
			}
			return math.Sqrt(s)
		},
		SteinMetric: func(a, b []float64) float64 {
			var s float64
			for i := range a {
				s += math.Log((a[i]+b[i])/2) - 0.5*math.Log(a[i]*b[i])
			}
			return s
		},
		LogEuclideanMetric: func(a, b []float64) float64 {
			var s float64
			for i := range a {
				l := math.Log(a[i]) - math.Log(b[i])
				s += l * l
			}
			return math.Sqrt(s)
		},
		ThompsonMetric: func(a, b []float64) float64 {
			var m float64
			for i := range a {
				m = math.Max(m, math.Abs(math.Log(a[i]/b[i])))
			}
			return m
		},
		WassersteinMetric: func(a, b []float64) float64 {
			var s float64
			for i := range a {
				v := math.Sqrt(a[i]) - math.Sqrt(b[i])
				s += v * v
			}
			return math.Sqrt(s)
		},
		EuclidMetric: func(a, b []float64) float64 {
			var s float64
			for i := range a {
				s += (a[i] - b[i]) * (a[i] - b[i])
			}
			return math.Sqrt(s)
		},
	}
	cases := []struct {
		name string
		a, b []float64
		// hand-computed values for the first cases, in the order of
		// Metrics(); nil to rely on closed only.
		want []float64
	}{
		{"1×1", []float64{1}, []float64{math.E * math.E}, []float64{2, math.Log(math.Cosh(1)), 2, 2, math.E - 1, math.E*math.E - 1}},
		{"swap 1,4", []float64{1, 4}, []float64{4, 1}, []float64{math.Sqrt2 * math.Log(4), math.Log(6.25 / 4), math.Sqrt2 * math.Log(4), math.Log(4), math.Sqrt2, 3 * math.Sqrt2}},
		{"identical", []float64{2, 3, 5}, []float64{2, 3, 5}, []float64{0, 0, 0, 0, 0, 0}},
		{"scaled identity", []float64{1, 1, 1}, []float64{8, 8, 8}, []float64{math.Sqrt(3) * math.Log(8), 3 * math.Log(4.5/math.Sqrt(8)), math.Sqrt(3) * math.Log(8), math.Log(8), math.Sqrt(3) * (math.Sqrt(8) - 1), 7 * math.Sqrt(3)}},
		{"wide range", []float64{1e-6, 1, 1e6, 3, 0.25}, []float64{1e6, 1, 1e-6, 0.5, 7}, nil},
	}
	if len(closed) != len(Metrics()) {
		t.Fatalf("closed forms for %d metrics, Metrics() has %d", len(closed), len(Metrics()))
	}
	for _, tc := range cases {
		x, y := diag(tc.a...), diag(tc.b...)
		w := NewWorkspace(len(tc.a))
		for k, m := range Metrics() {
			want := closed[m](tc.a, tc.b)
			if tc.want != nil {
				assertClose(t, tc.name+" "+m.String()+" closed form vs hand value", want, tc.want[k], 1e-14)
			}
			got, err := Distance(m, x, y)
			if err != nil {
				t.Fatalf("%s %v: %v", tc.name, m, err)
			}
			assertClose(t, tc.name+" Distance "+m.String(), got, want, 1e-12)
			got, err = w.Distance(m, x, y)
			if err != nil {
				t.Fatalf("%s %v: %v", tc.name, m, err)
			}
			assertClose(t, tc.name+" Workspace.Distance "+m.String(), got, want, 1e-12)
		}
	}
}

// TestDistanceProperties checks symmetry, d(X, X) = 0 and the invariances
// on random matrices, on both sides of dense.PlainMaxD (dense.CholLower
// versus Potrf).
func TestDistanceProperties(t *testing.T) {
	congruenceInvariant := map[Metric]bool{AIRMMetric: true, SteinMetric: true, ThompsonMetric: true}
	r := newRand(90)
	for _, d := range []int{1, 2, 3, 7, dense.PlainMaxD + 6} {
		w := NewWorkspace(d)
		for range 3 {
			x, y := randSPD(r, d, 2), randSPD(r, d, 2)
			a := randInvertible(r, d)
			q := randOrthogonal(r, d)
			for _, m := range Metrics() {
				name := m.String()
				dxy, err := w.Distance(m, x, y)
				if err != nil {
					t.Fatal(err)
				}
				if !(dxy > 0) {
					t.Errorf("d=%d %s(X, Y) = %g for X ≠ Y, want > 0", d, name, dxy)
				}
				dyx, _ := w.Distance(m, y, x)
				assertClose(t, name+" symmetry", dyx, dxy, 1e-12)
				dxx, _ := w.Distance(m, x, x)
				// The Bures–Wasserstein distance is a difference of traces:
				// its round-off at X = Y is (ε d tr X)^{1/2}.
				if tol := map[bool]float64{false: 1e-10, true: 1e-6}[m == WassersteinMetric]; math.Abs(dxx) > tol {
					t.Errorf("d=%d %s(X, X) = %g, want 0", d, name, dxx)
				}
				// All six are invariant to rotations; scaling both
				// arguments by c leaves four unchanged and scales the
				// Wasserstein distance by √c and the Euclidean by c.
				dq, _ := w.Distance(m, congr(q, x), congr(q, y))
				assertClose(t, name+" rotation invariance", dq, dxy, 1e-9)
				const c = 3.5
				var xs, ys mat.SymDense
				xs.ScaleSym(c, x)
				ys.ScaleSym(c, y)
				ds, _ := w.Distance(m, &xs, &ys)
				scale := map[Metric]float64{WassersteinMetric: math.Sqrt(c), EuclidMetric: c}[m]
				if scale == 0 {
					scale = 1
				}
				assertClose(t, name+" scale invariance", ds, scale*dxy, 1e-9)
				da, err := w.Distance(m, congr(a, x), congr(a, y))
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case congruenceInvariant[m]:
					assertClose(t, name+" affine invariance", da, dxy, 1e-8)
				case d > 1 && math.Abs(da-dxy) < 1e-3*dxy:
					// A generic A changes the log-Euclidean distance: if it
					// did not, logeuclid would be computing something else.
					t.Errorf("d=%d %s(AXAᵀ, AYAᵀ) = %g ≈ %s(X, Y) = %g: should not be invariant", d, name, da, name, dxy)
				}
			}
		}
	}
}

// TestDistanceMatchesDefinitions compares Distance with the dedicated
// functions (exactly: the table must dispatch to them) and with
// computations through gonum's EigenSym and Cholesky (to round-off).
func TestDistanceMatchesDefinitions(t *testing.T) {
	r := newRand(91)
	for _, d := range []int{2, 5, dense.PlainMaxD + 3} {
		x, y := randSPD(r, d, 1.5), randSPD(r, d, 1.5)
		w := NewWorkspace(d)

		// Generalised eigenvalues of X^{−1/2} Y X^{−1/2}.
		xis := eigenFn(x, func(l float64) float64 { return 1 / math.Sqrt(l) })
		var es mat.EigenSym
		if !es.Factorize(congruence(xis, y), false) {
			t.Fatal("eigen failed")
		}
		var airm, thompson float64
		for _, l := range es.Values(nil) {
			airm += math.Log(l) * math.Log(l)
			thompson = math.Max(thompson, math.Abs(math.Log(l)))
		}
		airm = math.Sqrt(airm)
		var diff mat.Dense
		diff.Sub(eigenFn(x, math.Log), eigenFn(y, math.Log))
		logDet := func(a mat.Symmetric) float64 {
			var c mat.Cholesky
			if !c.Factorize(a) {
				t.Fatal("Cholesky failed")
			}
			return c.LogDet()
		}
		var sum mat.SymDense
		sum.AddSym(x, y)
		sum.ScaleSym(0.5, &sum)
		stein := logDet(&sum) - 0.5*(logDet(x)+logDet(y))

		anchor, err := NewAnchor(x)
		if err != nil {
			t.Fatal(err)
		}
		anchored, _ := anchor.AIRM(y)
		dedicated := map[Metric]func() (float64, error){
			AIRMMetric:         func() (float64, error) { return AIRM(x, y) },
			SteinMetric:        func() (float64, error) { return Stein(x, y) },
			LogEuclideanMetric: func() (float64, error) { return LogEuclidean(x, y) },
			ThompsonMetric:     func() (float64, error) { return Thompson(x, y) },
			WassersteinMetric:  func() (float64, error) { return Wasserstein(x, y) },
			EuclidMetric:       func() (float64, error) { return Euclid(x, y) },
		}
		xs := eigenFn(x, math.Sqrt)
		var root float64
		sq := eigenFn(congruence(xs, y), math.Sqrt)
		for i := range d {
			root += sq.At(i, i)
		}
		var xy mat.Dense
		xy.Sub(x, y)
		independent := map[Metric]float64{
			AIRMMetric:         airm,
			SteinMetric:        stein,
			LogEuclideanMetric: mat.Norm(&diff, 2), // Frobenius
			ThompsonMetric:     thompson,
			WassersteinMetric:  math.Sqrt(mat.Trace(x) + mat.Trace(y) - 2*root),
			EuclidMetric:       mat.Norm(&xy, 2),
		}
		for _, m := range Metrics() {
			got, err := w.Distance(m, x, y)
			if err != nil {
				t.Fatal(err)
			}
			want, err := dedicated[m]()
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("d=%d Distance(%v) = %.17g, dedicated function gives %.17g", d, m, got, want)
			}
			assertClose(t, m.String()+" vs definition", got, independent[m], 1e-9)
		}
		got, _ := w.Distance(AIRMMetric, x, y)
		assertClose(t, "Distance(airm) vs Anchor.AIRM", got, anchored, 1e-12)
	}
}

// TestDistanceSteinIsDivergence pins the documented choice: Distance
// returns S, bit for bit the cached divergences that nearest-neighbour
// search ranks by, and S (unlike √S) breaks the triangle inequality.
func TestDistanceSteinIsDivergence(t *testing.T) {
	set, ms := randSet(t, 92, 9, 4)
	div, err := SteinDivergencesSym(context.Background(), set, &GramOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorkspace(4)
	for i := range ms {
		byDistance, byCache := -1, -1
		bestD, bestC := math.Inf(1), math.Inf(1)
		for j := range ms {
			got, err := w.Distance(SteinMetric, ms[i], ms[j])
			if err != nil {
				t.Fatal(err)
			}
			if got != div.At(i, j) {
				t.Errorf("Distance(stein, X%d, X%d) = %.17g, SteinDivergencesSym has %.17g", i, j, got, div.At(i, j))
			}
			if j == i {
				continue
			}
			if got < bestD {
				bestD, byDistance = got, j
			}
			if v := div.At(i, j); v < bestC {
				bestC, byCache = v, j
			}
		}
		if byDistance != byCache {
			t.Errorf("query %d: nearest by Distance %d, by cached divergences %d", i, byDistance, byCache)
		}
	}

	e := func(p float64) *mat.SymDense { return diag(math.Exp(p)) }
	d := func(x, y *mat.SymDense) float64 {
		v, err := Distance(SteinMetric, x, y)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ac, ab, bc := d(e(0), e(4)), d(e(0), e(2)), d(e(2), e(4))
	assertClose(t, "S(1, e⁴)", ac, math.Log(math.Cosh(2)), 1e-14)
	if !(ac > ab+bc) {
		t.Errorf("S(1, e⁴) = %g <= S(1, e²) + S(e², e⁴) = %g: Distance is not returning S", ac, ab+bc)
	}
	if !(math.Sqrt(ac) <= math.Sqrt(ab)+math.Sqrt(bc)) {
		t.Errorf("√S breaks the triangle inequality: %g > %g", math.Sqrt(ac), math.Sqrt(ab)+math.Sqrt(bc))
	}
}

func TestParseMetric(t *testing.T) {
	all := Metrics()
	want := []Metric{AIRMMetric, SteinMetric, LogEuclideanMetric, ThompsonMetric, WassersteinMetric, EuclidMetric}
	if !slices.Equal(all, want) {
		t.Fatalf("Metrics() = %v, want %v", all, want)
	}
	for _, m := range all {
		got, err := ParseMetric(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMetric(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
		text, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Metric
		if err := back.UnmarshalText(text); err != nil || back != m {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, back, err, m)
		}
	}
	names := map[string]Metric{
		"airm": AIRMMetric, "riemann": AIRMMetric, "stein": SteinMetric,
		"log-euclidean": LogEuclideanMetric, "thompson": ThompsonMetric,
		"wasserstein": WassersteinMetric, "euclid": EuclidMetric,
	}
	for name, m := range names {
		if got, err := ParseMetric(name); err != nil || got != m {
			t.Errorf("ParseMetric(%q) = %v, %v; want %v", name, got, err, m)
		}
		if c, dep := DeprecatedMetricName(name); dep || c != "" {
			t.Errorf("DeprecatedMetricName(%q) = %q, %v; want no deprecation", name, c, dep)
		}
	}
	// Deprecated names still parse, are reported with their replacement,
	// and are not offered in errors.
	deprecated := map[string]Metric{"logeuclid": LogEuclideanMetric}
	for name, m := range deprecated {
		if got, err := ParseMetric(name); err != nil || got != m {
			t.Errorf("ParseMetric(%q) = %v, %v; want %v", name, got, err, m)
		}
		if c, dep := DeprecatedMetricName(name); !dep || c != m.String() {
			t.Errorf("DeprecatedMetricName(%q) = %q, %v; want %q, true", name, c, dep, m.String())
		}
	}
	for _, bad := range []string{"", "AIRM", "Riemann", " stein", "logdet", "euclidean", "Wasserstein", "log-Euclidean", "logeuclidean", "Metric(1)"} {
		_, err := ParseMetric(bad)
		if !errors.Is(err, ErrParameter) {
			t.Errorf("ParseMetric(%q): error %v, want ErrParameter", bad, err)
			continue
		}
		for name := range names {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("ParseMetric(%q): error %q does not list %q", bad, err, name)
			}
		}
		for name := range deprecated {
			if strings.Contains(err.Error(), `"`+name+`"`) || strings.Contains(err.Error(), " "+name+",") {
				t.Errorf("ParseMetric(%q): error %q offers the deprecated %q", bad, err, name)
			}
		}
		var m Metric
		if err := m.UnmarshalText([]byte(bad)); err == nil || m != 0 {
			t.Errorf("UnmarshalText(%q) = %v, %v; want an error and no change", bad, m, err)
		}
	}
	for _, m := range []Metric{0, -1, EuclidMetric + 1} {
		if s := m.String(); !strings.HasPrefix(s, "Metric(") {
			t.Errorf("invalid %d prints as %q", int(m), s)
		}
		if _, err := m.MarshalText(); !errors.Is(err, ErrParameter) {
			t.Errorf("MarshalText(%d): %v, want ErrParameter", int(m), err)
		}
	}
}

func FuzzParseMetric(f *testing.F) {
	for _, s := range []string{"airm", "riemann", "stein", "log-euclidean", "logeuclid", "thompson", "", "logdet"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		m, err := ParseMetric(name)
		if err != nil {
			if !errors.Is(err, ErrParameter) || m != 0 {
				t.Fatalf("ParseMetric(%q) = %v, %v", name, m, err)
			}
			return
		}
		if !m.valid() {
			t.Fatalf("ParseMetric(%q) = invalid %d", name, int(m))
		}
		if back, err := ParseMetric(m.String()); err != nil || back != m {
			t.Fatalf("round trip of %q: %v, %v", name, back, err)
		}
	})
}

func TestDistanceErrors(t *testing.T) {
	x := diag(1, 2, 3)
	bad := mat.NewSymDense(3, []float64{1, 2, 0, 2, 1, 0, 0, 0, 1})
	nan := diag(1, math.NaN(), 1)
	inf := diag(1, 1, math.Inf(1))
	small := diag(1, 2)
	w := NewWorkspace(3)
	for _, m := range Metrics() {
		tests := []struct {
			name string
			x, y mat.Symmetric
			want error
		}{
			{"indefinite Y", x, bad, ErrNotSPD},
			{"indefinite X", bad, x, ErrNotSPD},
			{"negative diagonal", diag(1, -1, 1), x, ErrNotSPD},
			{"NaN Y", x, nan, ErrNotFinite},
			{"Inf X", inf, x, ErrNotFinite},
			{"sizes", x, small, ErrDimension},
			{"sizes swapped", small, x, ErrDimension},
			{"nil X", nil, x, ErrEmpty},
			{"empty Y", x, &mat.SymDense{}, ErrEmpty},
		}
		for _, tc := range tests {
			_, err := Distance(m, tc.x, tc.y)
			if !errors.Is(err, tc.want) {
				t.Errorf("Distance(%v) %s: got %v, want %v", m, tc.name, err, tc.want)
			} else if !strings.HasPrefix(err.Error(), m.String()+": ") {
				t.Errorf("Distance(%v) %s: error %q does not start with the metric", m, tc.name, err)
			}
			if _, err := w.Distance(m, tc.x, tc.y); !errors.Is(err, tc.want) {
				t.Errorf("Workspace.Distance(%v) %s: got %v, want %v", m, tc.name, err, tc.want)
			}
		}
		if _, err := NewWorkspace(2).Distance(m, x, x); !errors.Is(err, ErrDimension) {
			t.Errorf("%v on a 2×2 workspace: %v, want ErrDimension", m, err)
		}
	}
	for _, m := range []Metric{0, EuclidMetric + 1} {
		if _, err := Distance(m, x, x); !errors.Is(err, ErrParameter) {
			t.Errorf("Distance(%d): %v, want ErrParameter", int(m), err)
		}
		if _, err := w.Distance(m, x, x); !errors.Is(err, ErrParameter) {
			t.Errorf("Workspace.Distance(%d): %v, want ErrParameter", int(m), err)
		}
	}
}

func TestDistanceAllocatesNothing(t *testing.T) {
	r := newRand(93)
	for _, d := range []int{3, 30, 64} {
		x, y := randSPD(r, d, 1), randSPD(r, d, 1)
		w := NewWorkspace(d)
		for _, m := range Metrics() {
			var err error
			allocs := testing.AllocsPerRun(20, func() {
				_, err = w.Distance(m, x, y)
			})
			if err != nil {
				t.Fatal(err)
			}
			if allocs != 0 {
				t.Errorf("d=%d Workspace.Distance(%v): %v allocations per call, want 0", d, m, allocs)
			}
		}
	}
}

func BenchmarkDistance(b *testing.B) {
	r := newRand(94)
	const d = 17 // the re-identification descriptors
	x, y := randSPD(r, d, 1), randSPD(r, d, 1)
	w := NewWorkspace(d)
	for _, m := range Metrics() {
		b.Run(m.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.Distance(m, x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
