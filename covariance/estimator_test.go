package covariance_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/internal/covtest"
)

var none = covariance.Regularization{Kind: covariance.None}

// TestEstimatorsNaive compares both paths of each estimator with
// scikit-learn's formulas computed the long way (package covtest), for d
// from 1 to 7 on random regions, including regions of fewer pixels than
// features.
func TestEstimatorsNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const w, h = 19, 13
	truth := map[covariance.Estimator]func([][]float64, int, covariance.Region) []float64{
		covariance.SCM:        covtest.Naive,
		covariance.LedoitWolf: covtest.LedoitWolf,
		covariance.OAS:        covtest.OAS,
	}
	for d := 1; d <= 7; d++ {
		planes := randomPlanes(rng, d, w, h, []float64{0, 3, -7}, []float64{1, 0.1, 5})
		regions := append(randomRegions(rng, 6, w, h, 2), covariance.Whole(w, h), covariance.Region{X: 3, Y: 4, W: 2, H: 2}, covariance.Region{X: 18, Y: 0, W: 1, H: 3})
		for est, naive := range truth {
			for _, m := range methods {
				got := make([]float64, len(regions)*d*d)
				err := mustExtractor(t, d, covariance.Options{Reg: none, Method: m, Estimator: est}).Compute(got, planes, w, h, regions)
				if est == covariance.SCM && err != nil {
					continue // singular regions of n ≤ d pixels; TestSingularShrunk has the rest
				}
				if err != nil {
					t.Fatalf("d=%d %v %v: %v", d, est, m, err)
				}
				for k, r := range regions {
					if e := relFrob(got[k*d*d:(k+1)*d*d], naive(planes, w, r)); e > 1e-12 {
						t.Errorf("d=%d %v %v region %v: relative difference %.3g from scikit-learn's formulas", d, est, m, r, e)
					}
				}
			}
		}
	}
}

// TestEstimatorsClosedForm checks the shrinkage of the features x and y
// over W×H regions against closed forms. On the product grid the centred
// coordinates a and b are independent discrete uniforms: with
// S = diag(v_W, v_H), v_N = (N²−1)/12, and fourth central moments
// k_N = (N²−1)(3N²−7)/240, the n = WH pixels have
// Σ ‖x‖⁴ = n (k_W + 2 v_W v_H + k_H), so
//
//	Ledoit–Wolf: ρ = min(1, (k_W + 2 v_W v_H + k_H − v_W² − v_H²) / (n (v_W − v_H)²/2)),
//	OAS:         ρ = min(1, (v_W² + v_H² + (v_W + v_H)²) / ((n+1)(v_W − v_H)²/2)),
//
// and the descriptor is n/(n−1) ((1−ρ) S + ρ (v_W + v_H)/2 I). Square
// regions are a multiple of I already: ρ = 0 for Ledoit–Wolf, 1 for
// OAS, both giving C.
func TestEstimatorsClosedForm(t *testing.T) {
	const w, h = 40, 36
	planes := [][]float64{
		feature(w, h, func(x, y int) float64 { return float64(x) }),
		feature(w, h, func(x, y int) float64 { return float64(y) }),
	}
	v := func(n int) float64 { return float64(n*n-1) / 12 }
	k := func(n int) float64 { return float64(n*n-1) * float64(3*n*n-7) / 240 }
	for _, r := range []covariance.Region{{W: 8, H: 4}, {X: 3, Y: 5, W: 2, H: 9}, {W: 40, H: 3}, {X: 1, Y: 1, W: 16, H: 16}, {W: 3, H: 2}} {
		n := float64(r.W * r.H)
		vw, vh := v(r.W), v(r.H)
		d2 := (vw - vh) * (vw - vh) / 2
		rho := map[covariance.Estimator]float64{covariance.LedoitWolf: 0, covariance.OAS: 1}
		if d2 > 0 {
			rho[covariance.LedoitWolf] = min(1, (k(r.W)+2*vw*vh+k(r.H)-vw*vw-vh*vh)/(n*d2))
			rho[covariance.OAS] = min(1, (vw*vw+vh*vh+(vw+vh)*(vw+vh))/((n+1)*d2))
		}
		for est, p := range rho {
			mu := (vw + vh) / 2
			s := n / (n - 1)
			want := []float64{s * ((1-p)*vw + p*mu), 0, 0, s * ((1-p)*vh + p*mu)}
			for _, m := range methods {
				got := make([]float64, 4)
				if err := mustExtractor(t, 2, covariance.Options{Reg: none, Method: m, Estimator: est}).Compute(got, planes, w, h, []covariance.Region{r}); err != nil {
					t.Fatal(err)
				}
				if e := relFrob(got, want); e > 1e-13 {
					t.Errorf("%v %v %v (ρ = %.6g): got %v, want %v", est, m, r, p, got, want)
				}
			}
		}
	}
}

// TestEstimatorsIntegral: the integral images, with the extra planes of
// the Ledoit–Wolf fourth moments, agree with the direct path on the
// images of TestIntegralMatchesDirect and on Brodatz textures.
func TestEstimatorsIntegral(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, est := range []covariance.Estimator{covariance.LedoitWolf, covariance.OAS} {
		for _, size := range []struct{ w, h, d int }{{256, 192, 5}, {61, 37, 9}} {
			planes := randomPlanes(rng, size.d, size.w, size.h, []float64{1e3, -2e3, 0.5}, []float64{1, 1e-2, 0.1, 3})
			compareMethodsWith(t, covariance.Options{Reg: none, Estimator: est}, planes, size.w, size.h, randomRegions(rng, 200, size.w, size.h, 8), 1e-10)
			// Regions of fewer pixels than features: strongly shrunk.
			compareMethodsWith(t, covariance.Options{Reg: none, Estimator: est}, planes, size.w, size.h, randomRegions(rng, 100, 3, 3, 2), 1e-9)
		}
	}
	for _, name := range []string{"D1.gif", "D77.gif"} {
		planes, w, h := brodatz(t, name)
		blocks, err := covariance.RandomBlocks(w, h, 50, 32, 9)
		if err != nil {
			t.Fatal(err)
		}
		for _, est := range []covariance.Estimator{covariance.LedoitWolf, covariance.OAS} {
			compareMethodsWith(t, covariance.Options{Reg: none, Estimator: est}, planes, w, h, blocks, 1e-10)
		}
	}
}

// TestSingularShrunk: where the sample covariance is singular (fewer
// pixels than features; a constant feature beside varying ones), the
// shrinkage estimators give positive definite descriptors without a
// ridge, and the SCM does not. A region constant in every feature has no
// covariance to shrink towards, and fails for all three.
func TestSingularShrunk(t *testing.T) {
	const w, h, d = 16, 16, 9
	rng := rand.New(rand.NewPCG(35, 36))
	planes := randomPlanes(rng, d, w, h, []float64{0.5}, []float64{0.2})
	planes[d-1] = feature(w, h, func(x, y int) float64 { return 3 })
	constant := [][]float64{planes[d-1]}
	r := []covariance.Region{{X: 2, Y: 3, W: 2, H: 2}}
	for _, m := range methods {
		for _, est := range []covariance.Estimator{covariance.SCM, covariance.LedoitWolf, covariance.OAS} {
			err := mustExtractor(t, d, covariance.Options{Reg: none, Method: m, Estimator: est}).Compute(make([]float64, d*d), planes, w, h, r)
			if (est == covariance.SCM) != errors.Is(err, covariance.ErrNotSPD) {
				t.Errorf("%v %v, 4 pixels and %d features: error %v", est, m, d, err)
			}
			err = mustExtractor(t, 1, covariance.Options{Reg: none, Method: m, Estimator: est}).Compute(make([]float64, 1), constant, w, h, r)
			if !errors.Is(err, covariance.ErrNotSPD) {
				t.Errorf("%v %v, a constant feature alone: error %v, want ErrNotSPD", est, m, err)
			}
			if est != covariance.SCM && (err == nil || !strings.Contains(err.Error(), "of the "+est.String()+" estimate")) {
				t.Errorf("%v: message %q does not name the estimator", est, err)
			}
		}
	}
}

// TestNormalize checks each normalisation against its definition applied
// to the ridged sample covariance (estimator → ridge → normalisation),
// and the property it gives: trace 1, determinant 1 (from a Cholesky
// factorisation of our own), unit diagonal.
func TestNormalize(t *testing.T) {
	const w, h, d = 24, 20, 4
	rng := rand.New(rand.NewPCG(37, 38))
	planes := randomPlanes(rng, d, w, h, []float64{10, -1}, []float64{2, 0.01})
	regions := randomRegions(rng, 5, w, h, 4)
	reg := covariance.Regularization{Kind: covariance.Ridge, Eps: 0.03}
	for _, m := range methods {
		raw := make([]float64, len(regions)*d*d)
		if err := mustExtractor(t, d, covariance.Options{Reg: reg, Method: m}).Compute(raw, planes, w, h, regions); err != nil {
			t.Fatal(err)
		}
		for _, norm := range []covariance.Normalization{covariance.NormTrace, covariance.NormDet, covariance.NormCorr} {
			got := make([]float64, len(regions)*d*d)
			if err := mustExtractor(t, d, covariance.Options{Reg: reg, Method: m, Normalize: norm}).Compute(got, planes, w, h, regions); err != nil {
				t.Fatal(err)
			}
			for k := range regions {
				c, g := raw[k*d*d:(k+1)*d*d], got[k*d*d:(k+1)*d*d]
				want := make([]float64, d*d)
				var prop float64 // the property's value, 1 when it holds
				switch norm {
				case covariance.NormTrace:
					var tr float64
					for i := range d {
						tr += c[i*d+i]
					}
					for i := range want {
						want[i] = c[i] / tr
					}
					for i := range d {
						prop += g[i*d+i]
					}
				case covariance.NormDet:
					root := math.Exp(logDet(c, d) / d)
					for i := range want {
						want[i] = c[i] / root
					}
					prop = math.Exp(logDet(g, d))
				case covariance.NormCorr:
					prop = 1
					for i := range d {
						for j := range d {
							want[i*d+j] = c[i*d+j] / math.Sqrt(c[i*d+i]*c[j*d+j])
						}
						prop *= g[i*d+i]
					}
				}
				if e := relFrob(g, want); e > 1e-13 {
					t.Errorf("%v %v region %d: relative difference %.3g from the definition", norm, m, k, e)
				}
				if math.Abs(prop-1) > 1e-13 {
					t.Errorf("%v %v region %d: property %v, want 1", norm, m, k, prop)
				}
			}
		}
	}
}

// logDet returns log det of the SPD d×d c by a textbook Cholesky
// factorisation.
func logDet(c []float64, d int) float64 {
	l := make([]float64, d*d)
	var ld float64
	for j := range d {
		s := c[j*d+j]
		for k := range j {
			s -= l[j*d+k] * l[j*d+k]
		}
		l[j*d+j] = math.Sqrt(s)
		ld += 2 * math.Log(l[j*d+j])
		for i := j + 1; i < d; i++ {
			s := c[i*d+j]
			for k := range j {
				s -= l[i*d+k] * l[j*d+k]
			}
			l[i*d+j] = s / l[j*d+j]
		}
	}
	return ld
}

// TestNormalizeErrors: a constant feature has no correlation, and the
// error is that of a matrix that is not positive definite.
func TestNormalizeErrors(t *testing.T) {
	const w, h = 8, 8
	planes := [][]float64{
		feature(w, h, func(x, y int) float64 { return float64(x) }),
		feature(w, h, func(x, y int) float64 { return 1 }),
	}
	for _, norm := range []covariance.Normalization{covariance.NormTrace, covariance.NormDet, covariance.NormCorr} {
		err := mustExtractor(t, 2, covariance.Options{Reg: none, Normalize: norm}).Compute(make([]float64, 4), planes, w, h, []covariance.Region{covariance.Whole(w, h)})
		if !errors.Is(err, covariance.ErrNotSPD) {
			t.Errorf("%v: error %v, want ErrNotSPD", norm, err)
		}
	}
}

func TestParseEstimatorNormalization(t *testing.T) {
	for _, e := range []covariance.Estimator{covariance.SCM, covariance.LedoitWolf, covariance.OAS} {
		if got, err := covariance.ParseEstimator(e.String()); err != nil || got != e {
			t.Errorf("ParseEstimator(%q) = %v, %v", e, got, err)
		}
	}
	for _, n := range []covariance.Normalization{covariance.NormNone, covariance.NormTrace, covariance.NormDet, covariance.NormCorr} {
		if got, err := covariance.ParseNormalization(n.String()); err != nil || got != n {
			t.Errorf("ParseNormalization(%q) = %v, %v", n, got, err)
		}
	}
	for _, s := range []string{"", "LWF", "ledoit-wolf", "sample"} {
		if _, err := covariance.ParseEstimator(s); err == nil || !strings.Contains(err.Error(), "want scm, lwf or oas") {
			t.Errorf("ParseEstimator(%q): error %v", s, err)
		}
	}
	for _, s := range []string{"", "determinant", "Trace"} {
		if _, err := covariance.ParseNormalization(s); err == nil || !strings.Contains(err.Error(), "want none, trace, det or corr") {
			t.Errorf("ParseNormalization(%q): error %v", s, err)
		}
	}
	for _, o := range []covariance.Options{{Estimator: 3}, {Estimator: -1}, {Normalize: 4}} {
		if _, err := covariance.NewExtractor(2, o); err == nil {
			t.Errorf("NewExtractor(%+v): no error", o)
		}
	}
}
