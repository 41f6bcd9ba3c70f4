package spd

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// condSPD returns a d×d SPD matrix of condition number cond: random
// eigenvectors and eigenvalues spread log-uniformly over [1, cond], the
// first 1 and the last cond.
func condSPD(t *testing.T, seed uint64, d int, cond float64) *mat.SymDense {
	t.Helper()
	r := newRand(seed)
	q := randOrthogonal(r, d)
	v := make([]float64, d)
	for i := range v {
		e := r.Float64()
		switch i {
		case 0:
			e = 0
		case d - 1:
			e = 1
		}
		v[i] = math.Pow(cond, e)
	}
	return withEigen(q, v)
}

// TestKarcherMeanIllConditioned checks the Karcher mean of sets of
// condition numbers 1e2 to 1e8 against independent truths. Of two
// matrices X and Y the mean is the geodesic midpoint, whose cost
// ½(d_g²(M, X) + d_g²(M, Y)) is d_g²(X, Y)/4, the least possible: the
// mean's cost, by AIRM's generalised eigenvalues, must reach it (from
// 1e6 on it is also nearer to it than Geodesic's closed form, whose
// explicit X^{−1/2} loses the small eigenvalues), and be near the closed
// form while that is accurate. Of twenty: congruence equivariance,
// mean(A X_i Aᵀ) = A mean(X_i) Aᵀ, and the first-order condition
// Σ_i log(M^{−1/2} X_i M^{−1/2}) = 0 evaluated apart by LogMap, to the
// certificate's accuracy. Every one converges, with its certificate: to
// the tolerance up to 1e6, at float64's limit at 1e8.
func TestKarcherMeanIllConditioned(t *testing.T) {
	ctx := context.Background()
	for _, cond := range []float64{1e2, 1e4, 1e6, 1e8} {
		for _, d := range []int{3, 8} {
			t.Run(fmt.Sprintf("cond=%g/d=%d", cond, d), func(t *testing.T) {
				x, y := condSPD(t, 1, d, cond), condSPD(t, 2, d, cond)
				// Two spread matrices were the slowest case of the plain
				// gradient steps from the log-Euclidean mean (740
				// iterations at 1e6, d = 3); the start, the geometric mean
				// of their arithmetic and harmonic means, is their mean, to
				// the tolerance up to 1e6 and within float64's resolution at
				// 1e8 (a few steps more, then at the limit).
				m, info, err := KarcherMean(ctx, []*mat.SymDense{x, y}, &MeanOptions{MaxIter: 1000})
				if err != nil || !info.Converged || (cond <= 1e6) != (info.Iterations == 0 && !info.AtLimit) {
					t.Fatalf("two matrices: %+v, %v", info, err)
				}
				t.Logf("two matrices: %+v", info)
				dxy, _ := AIRM(x, y)
				dx, _ := AIRM(m, x)
				dy, _ := AIRM(m, y)
				if excess := (dx*dx+dy*dy)/2 - dxy*dxy/4; excess > 1e-9*dxy*dxy {
					t.Errorf("two matrices: the mean's cost exceeds the least, d²/4 = %.6g, by %.3g (%+v)", dxy*dxy/4, excess, info)
				}
				if cond <= 1e4 {
					mid, err := Geodesic(x, y, 0.5)
					if err != nil {
						t.Fatal(err)
					}
					if dist, _ := AIRM(m, mid); dist > 1e-7 {
						t.Errorf("two matrices: the mean is %.3g from the geodesic midpoint (%+v)", dist, info)
					}
				}
				var xs, axs []*mat.SymDense
				a := mat.NewDense(d, d, nil)
				r := newRand(uint64(d) + uint64(math.Log10(cond)))
				for i := range d * d {
					a.Set(i/d, i%d, r.NormFloat64())
				}
				for k := range 20 {
					x := condSPD(t, 10+uint64(k), d, cond)
					xs = append(xs, x)
					axs = append(axs, congr(a, x))
				}
				m, info, err = KarcherMean(ctx, xs, &MeanOptions{MaxIter: 1000})
				if err != nil || !info.Converged {
					t.Fatalf("twenty matrices: %+v, %v", info, err)
				}
				t.Logf("twenty matrices: %+v", info)
				am, info2, err := KarcherMean(ctx, axs, &MeanOptions{MaxIter: 1000})
				if err != nil || !info2.Converged {
					t.Fatalf("twenty congruent matrices: %+v, %v", info2, err)
				}
				if info.AtLimit != (cond > 1e6) {
					t.Errorf("twenty matrices: %+v, want the tolerance reached up to 1e6 and float64's limit beyond", info)
				}
				tol := max(1e-6, 10*info.Gradient)
				if dist, _ := AIRM(am, congr(a, m)); dist > 100*tol {
					t.Errorf("mean(A X Aᵀ) is %.3g from A mean(X) Aᵀ", dist)
				}
				// The gradient, Σ_i Log_M(X_i) whitened, computed apart.
				g := mat.NewSymDense(d, nil)
				for _, x := range xs {
					l, err := LogMap(m, x)
					if err != nil {
						t.Fatal(err)
					}
					g.AddSym(g, l)
				}
				s, si, err := sqrtPair(NewWorkspace(d), "M", m)
				if err != nil {
					t.Fatal(err)
				}
				_ = s
				if norm := mat.Norm(congruence(si, g), 2) / 20; norm > tol || math.Abs(norm-info.Gradient) > tol {
					t.Errorf("the gradient norm at the mean is %.3g, the certificate says %.3g", norm, info.Gradient)
				}
			})
		}
	}
}

// TestKMeansCountsUnconvergedMeans checks that k-means reports the
// cluster means that reached their iteration cap: none on separated
// clusters, where every mean converges.
func TestKMeansCountsUnconvergedMeans(t *testing.T) {
	var xs []*mat.SymDense
	for k := range 12 {
		x := condSPD(t, 40+uint64(k), 3, 10)
		if k%2 == 1 {
			x.ScaleSym(1e3, x)
		}
		xs = append(xs, x)
	}
	set, err := NewSet(xs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := KMeans(context.Background(), set, KMeansOptions{K: 2, Metric: AIRMMetric, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.UnconvergedMeans != 0 || !res.Converged {
		t.Errorf("separated clusters: %d unconverged means, converged %v", res.UnconvergedMeans, res.Converged)
	}
}
