package spd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// meanCase is one mean with its independent truths: scalar is the mean of
// positive numbers x_i with weights w_i (summing to 1), which is the
// eigenvalue-wise mean of commuting matrices; two the mean of A and B
// with weights 1−t and t, computed with gonum's EigenSym and inverses;
// cert recomputes the mean's certificate at M apart from the package
// and certOf reads the reported one.
type meanCase struct {
	name       string
	mean       meanFunc
	scalar     func(x, w []float64) float64
	two        func(a, b *mat.SymDense, t float64) *mat.SymDense
	congruence bool // mean(A X_i Aᵀ) = A mean(X_i) Aᵀ for invertible A
	cert       func(m *mat.SymDense, xs []*mat.SymDense, w []float64) float64
	certOf     func(MeanInfo) float64
}

func meanCases() []meanCase {
	gradient := func(i MeanInfo) float64 { return i.Gradient }
	residual := func(i MeanInfo) float64 { return i.Residual }
	return []meanCase{
		{"karcher", KarcherMean, geometricScalar, geodesicTwo, true, karcherCert, gradient},
		{"log-euclidean", LogEuclideanMean, geometricScalar, logEuclideanTwo, false, logEuclideanCert, gradient},
		{"stein", SteinMean, steinScalar, nil, true, steinCert, residual},
		{"wasserstein", WassersteinMean, wassersteinScalar, wassersteinTwo, false, wassersteinCert, gradient},
		{"harmonic", HarmonicMean, harmonicScalar, harmonicTwo, true, harmonicCert, residual},
		{"arithmetic", ArithmeticMean, arithmeticScalar, arithmeticTwo, true, arithmeticCert, residual},
	}
}

// tight makes an iterative mean converge to a tolerance at which its
// error is round-off, where the default bounds a gradient whose flat
// directions leave a larger error in the mean.
var tight = &MeanOptions{Tol: 1e-13}

func geometricScalar(x, w []float64) float64 {
	var s float64
	for i, v := range x {
		s += w[i] * math.Log(v)
	}
	return math.Exp(s)
}

// steinScalar solves Σ_i w_i x/(x+x_i) = ½ by bisection (the left side
// increases from 0 to 1 on x > 0).
func steinScalar(x, w []float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	for range 200 {
		mid := 0.5 * (lo + hi)
		var g float64
		for i, v := range x {
			g += w[i] * mid / (mid + v)
		}
		if g < 0.5 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

func wassersteinScalar(x, w []float64) float64 {
	var s float64
	for i, v := range x {
		s += w[i] * math.Sqrt(v)
	}
	return s * s
}

func harmonicScalar(x, w []float64) float64 {
	var s float64
	for i, v := range x {
		s += w[i] / v
	}
	return 1 / s
}

func arithmeticScalar(x, w []float64) float64 {
	var s float64
	for i, v := range x {
		s += w[i] * v
	}
	return s
}

// gonum's products and inverses, for the truths.
func mul(a, b mat.Matrix) *mat.Dense {
	var c mat.Dense
	c.Mul(a, b)
	return &c
}

func inverse(t *testing.T, a mat.Matrix) *mat.Dense {
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		t.Fatal(err)
	}
	return &inv
}

func combine(terms ...any) *mat.SymDense {
	var sum mat.Dense
	for k := 0; k < len(terms); k += 2 {
		var s mat.Dense
		s.Scale(terms[k].(float64), terms[k+1].(mat.Matrix))
		if k == 0 {
			sum.CloneFrom(&s)
		} else {
			sum.Add(&sum, &s)
		}
	}
	return symPart(&sum)
}

// geodesicTwo is A #_t B = A^{1/2} (A^{−1/2} B A^{−1/2})^t A^{1/2}.
func geodesicTwo(a, b *mat.SymDense, t float64) *mat.SymDense {
	s, si := eigenFn(a, math.Sqrt), eigenFn(a, func(v float64) float64 { return 1 / math.Sqrt(v) })
	inner := eigenFn(symPart(mul(mul(si, b), si)), func(v float64) float64 { return math.Pow(v, t) })
	return symPart(mul(mul(s, inner), s))
}

func logEuclideanTwo(a, b *mat.SymDense, t float64) *mat.SymDense {
	return eigenFn(combine(1-t, eigenFn(a, math.Log), t, eigenFn(b, math.Log)), math.Exp)
}

// wassersteinTwo is the point at t of the Bures–Wasserstein geodesic,
// (1−t)²A + t²B + t(1−t)((AB)^{1/2} + (BA)^{1/2}), with
// (AB)^{1/2} = A^{1/2} (A^{1/2} B A^{1/2})^{1/2} A^{−1/2} (Bhatia, Jain and
// Lim 2019).
func wassersteinTwo(a, b *mat.SymDense, t float64) *mat.SymDense {
	s, si := eigenFn(a, math.Sqrt), eigenFn(a, func(v float64) float64 { return 1 / math.Sqrt(v) })
	ab := mul(mul(s, eigenFn(symPart(mul(mul(s, b), s)), math.Sqrt)), si)
	return combine((1-t)*(1-t), a, t*t, b, t*(1-t), ab, t*(1-t), ab.T())
}

func harmonicTwo(a, b *mat.SymDense, t float64) *mat.SymDense {
	var ai, bi, m mat.Dense
	if ai.Inverse(a) != nil || bi.Inverse(b) != nil {
		panic("inverse")
	}
	h := combine(1-t, &ai, t, &bi)
	if m.Inverse(h) != nil {
		panic("inverse")
	}
	return symPart(&m)
}

func arithmeticTwo(a, b *mat.SymDense, t float64) *mat.SymDense { return combine(1-t, a, t, b) }

func weightsOrEqual(w []float64, n int) []float64 {
	if w != nil {
		return w
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = 1 / float64(n)
	}
	return out
}

// frobMinusI returns ‖A − I‖_F.
func frobMinusI(a mat.Matrix) float64 {
	r, _ := a.Dims()
	var s float64
	for i := range r {
		for j := range r {
			v := a.At(i, j)
			if i == j {
				v--
			}
			s += v * v
		}
	}
	return math.Sqrt(s)
}

// karcherCert is ‖Σ_i w_i log(M^{−1/2} X_i M^{−1/2})‖_F.
func karcherCert(m *mat.SymDense, xs []*mat.SymDense, w []float64) float64 {
	si := eigenFn(m, func(v float64) float64 { return 1 / math.Sqrt(v) })
	var terms []any
	for i, x := range xs {
		terms = append(terms, w[i], eigenFn(symPart(mul(mul(si, x), si)), math.Log))
	}
	return mat.Norm(combine(terms...), 2)
}

// logEuclideanCert is ‖Σ_i w_i log X_i − log M‖_F.
func logEuclideanCert(m *mat.SymDense, xs []*mat.SymDense, w []float64) float64 {
	terms := []any{-1.0, eigenFn(m, math.Log)}
	for i, x := range xs {
		terms = append(terms, w[i], eigenFn(x, math.Log))
	}
	return mat.Norm(combine(terms...), 2)
}

// steinCert is ‖M^{1/2} (Σ_i w_i ((M+X_i)/2)^{−1}) M^{1/2} − I‖_F.
func steinCert(m *mat.SymDense, xs []*mat.SymDense, w []float64) float64 {
	var terms []any
	for i, x := range xs {
		var inv mat.Dense
		if inv.Inverse(combine(0.5, m, 0.5, x)) != nil {
			panic("inverse")
		}
		terms = append(terms, w[i], &inv)
	}
	s := eigenFn(m, math.Sqrt)
	return frobMinusI(mul(mul(s, combine(terms...)), s))
}

// wassersteinCert is 2‖(T − I) M^{1/2}‖_F / ‖M^{1/2}‖_F with
// T = M^{−1/2} (Σ_i w_i (M^{1/2} X_i M^{1/2})^{1/2}) M^{−1/2}.
func wassersteinCert(m *mat.SymDense, xs []*mat.SymDense, w []float64) float64 {
	s, si := eigenFn(m, math.Sqrt), eigenFn(m, func(v float64) float64 { return 1 / math.Sqrt(v) })
	var terms []any
	for i, x := range xs {
		terms = append(terms, w[i], eigenFn(symPart(mul(mul(s, x), s)), math.Sqrt))
	}
	var t mat.Dense
	t.Sub(mul(mul(si, combine(terms...)), si), eye(m.SymmetricDim()))
	return 2 * mat.Norm(mul(&t, s), 2) / mat.Norm(s, 2)
}

func eye(d int) *mat.Dense {
	e := mat.NewDense(d, d, nil)
	for i := range d {
		e.Set(i, i, 1)
	}
	return e
}

// harmonicCert is ‖M^{1/2} (Σ_i w_i X_i⁻¹) M^{1/2} − I‖_F.
func harmonicCert(m *mat.SymDense, xs []*mat.SymDense, w []float64) float64 {
	var terms []any
	for i, x := range xs {
		var inv mat.Dense
		if inv.Inverse(x) != nil {
			panic("inverse")
		}
		terms = append(terms, w[i], &inv)
	}
	s := eigenFn(m, math.Sqrt)
	return frobMinusI(mul(mul(s, combine(terms...)), s))
}

// arithmeticCert is ‖M^{−1/2} (Σ_i w_i X_i) M^{−1/2} − I‖_F.
func arithmeticCert(m *mat.SymDense, xs []*mat.SymDense, w []float64) float64 {
	var terms []any
	for i, x := range xs {
		terms = append(terms, w[i], x)
	}
	si := eigenFn(m, func(v float64) float64 { return 1 / math.Sqrt(v) })
	return frobMinusI(mul(mul(si, combine(terms...)), si))
}

// commuting returns n commuting d×d matrices Q diag(v_i) Qᵀ, their
// eigenvalues log-uniform in [e^−spread, e^spread], with Q and vals[j][i],
// eigenvalue j of matrix i.
func commuting(r *rand.Rand, n, d int, spread float64) (q *mat.Dense, vals [][]float64, xs []*mat.SymDense) {
	q = randOrthogonal(r, d)
	vals = make([][]float64, d)
	for range n {
		v := make([]float64, d)
		for j := range v {
			v[j] = math.Exp(spread * (2*r.Float64() - 1))
			vals[j] = append(vals[j], v[j])
		}
		xs = append(xs, withEigen(q, v))
	}
	return q, vals, xs
}

// TestMeansCommuting checks every mean on commuting matrices
// Q diag(x_i) Qᵀ, equal and unequal weights: the mean is Q diag(m) Qᵀ with
// m_j the scalar mean of the x_ij, in closed form or (Stein) by
// bisection.
func TestMeansCommuting(t *testing.T) {
	const n, d = 7, 5
	q, vals, xs := commuting(newRand(31), n, d, 3)
	unequal := []float64{0.3, 0.05, 0.2, 0.1, 0.15, 0.12, 0.08}
	for _, c := range meanCases() {
		for _, w := range [][]float64{nil, unequal} {
			t.Run(fmt.Sprintf("%s/weights=%v", c.name, w != nil), func(t *testing.T) {
				m, info, err := c.mean(context.Background(), xs, &MeanOptions{Tol: tight.Tol, Weights: w})
				if err != nil || !info.Converged {
					t.Fatalf("%+v, %v", info, err)
				}
				want := make([]float64, d)
				for j := range want {
					want[j] = c.scalar(vals[j], weightsOrEqual(w, n))
				}
				assertSymClose(t, "mean", m, withEigen(q, want), 1e-11)
			})
		}
	}
}

// TestMeansOfTwo checks every mean of two random matrices A, B against its
// closed form, with equal weights and with weights (0.7, 0.3): the AIRM
// geodesic point A #_t B for the Karcher mean (and the Stein mean, of
// equal weights only, which is then A # B), the Bures–Wasserstein
// geodesic point for the Wasserstein mean, and the formulas themselves,
// by gonum's routines, for the others.
func TestMeansOfTwo(t *testing.T) {
	r := newRand(32)
	for _, d := range []int{2, 5, 12} {
		a, b := randSPD(r, d, 2), randSPD(r, d, 2)
		for _, c := range meanCases() {
			for _, tw := range []float64{0.5, 0.3} {
				two := c.two
				if c.name == "stein" && tw == 0.5 {
					two = geodesicTwo
				}
				if two == nil {
					continue
				}
				t.Run(fmt.Sprintf("%s/d=%d/t=%g", c.name, d, tw), func(t *testing.T) {
					m, _, err := c.mean(context.Background(), []*mat.SymDense{a, b}, &MeanOptions{Tol: tight.Tol, Weights: []float64{1 - tw, tw}})
					if err != nil {
						t.Fatal(err)
					}
					assertSymClose(t, "mean of two", m, two(a, b, tw), 1e-10)
				})
			}
		}
	}
}

// TestMeansInvariance checks the symmetries of each mean: every mean is
// equivariant to orthogonal similarity and scaling, mean(c Q X_i Qᵀ) =
// c Q mean(X_i) Qᵀ; the Karcher, Stein, harmonic and arithmetic means to
// congruence by any invertible A, and the log-Euclidean and Wasserstein
// means are not (the check finds them off by far more than its
// tolerance, so that it can fail).
func TestMeansInvariance(t *testing.T) {
	r := newRand(33)
	const n, d = 12, 4
	q := randOrthogonal(r, d)
	a := randInvertible(r, d)
	const c = 7.5
	var xs, qxs, axs []*mat.SymDense
	for range n {
		x := randSPD(r, d, 1.5)
		xs = append(xs, x)
		qx := congr(q, x)
		qx.ScaleSym(c, qx)
		qxs = append(qxs, qx)
		axs = append(axs, congr(a, x))
	}
	ctx := context.Background()
	for _, mc := range meanCases() {
		t.Run(mc.name, func(t *testing.T) {
			m, _, err := mc.mean(ctx, xs, tight)
			if err != nil {
				t.Fatal(err)
			}
			qm, _, err := mc.mean(ctx, qxs, tight)
			if err != nil {
				t.Fatal(err)
			}
			want := congr(q, m)
			want.ScaleSym(c, want)
			if dist, _ := AIRM(qm, want); dist > 1e-10 {
				t.Errorf("mean(c Q X Qᵀ) is %.3g from c Q mean(X) Qᵀ", dist)
			}
			am, _, err := mc.mean(ctx, axs, tight)
			if err != nil {
				t.Fatal(err)
			}
			dist, _ := AIRM(am, congr(a, m))
			if mc.congruence && dist > 1e-9 {
				t.Errorf("mean(A X Aᵀ) is %.3g from A mean(X) Aᵀ", dist)
			}
			if !mc.congruence && dist < 1e-3 {
				t.Errorf("mean(A X Aᵀ) is only %.3g from A mean(X) Aᵀ: the check cannot tell", dist)
			}
		})
	}
}

// TestMeansOneWeight checks that weights (0, 1, 0, 0) give the second
// matrix, to round-off.
func TestMeansOneWeight(t *testing.T) {
	r := newRand(34)
	var xs []*mat.SymDense
	for range 4 {
		xs = append(xs, randSPD(r, 6, 2))
	}
	for _, c := range meanCases() {
		t.Run(c.name, func(t *testing.T) {
			m, info, err := c.mean(context.Background(), xs, &MeanOptions{Weights: []float64{0, 1, 0, 0}})
			if err != nil || !info.Converged {
				t.Fatalf("%+v, %v", info, err)
			}
			assertSymClose(t, "mean", m, xs[1], 1e-12)
		})
	}
}

// TestMeansCertificate checks each mean's certificate against its value
// recomputed at the result by gonum's routines, on spread matrices with
// unequal weights: both below the tolerance, and equal to round-off.
func TestMeansCertificate(t *testing.T) {
	r := newRand(35)
	const n, d = 15, 6
	var xs []*mat.SymDense
	w := make([]float64, n)
	for i := range n {
		xs = append(xs, randSPD(r, d, 3))
		w[i] = 1 + float64(i%4)
	}
	var sum float64
	for _, v := range w {
		sum += v
	}
	wn := make([]float64, n)
	for i, v := range w {
		wn[i] = v / sum
	}
	for _, c := range meanCases() {
		t.Run(c.name, func(t *testing.T) {
			const tol = 1e-10
			m, info, err := c.mean(context.Background(), xs, &MeanOptions{Tol: tol, Weights: w})
			if err != nil || !info.Converged {
				t.Fatalf("%+v, %v", info, err)
			}
			got, apart := c.certOf(info), c.cert(m, xs, wn)
			if !(got < tol) || !(apart < 2*tol) || math.Abs(got-apart) > tol {
				t.Errorf("certificate %.3g, recomputed %.3g, tolerance %.3g (%+v)", got, apart, tol, info)
			}
		})
	}
}

// TestMeansWorkers checks that the means do not depend on the number of
// workers, to the last bit: 50 matrices, several chunks per worker.
func TestMeansWorkers(t *testing.T) {
	_, xs := randSet(t, 36, 50, 7)
	for _, c := range meanCases() {
		t.Run(c.name, func(t *testing.T) {
			var first *mat.SymDense
			for _, workers := range []int{1, 2, 5} {
				m, _, err := c.mean(context.Background(), xs, &MeanOptions{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = m
					continue
				}
				if !mat.Equal(m, first) {
					t.Errorf("%d workers: a different mean than with one", workers)
				}
			}
		})
	}
}

// TestMeansBeyondPlainMaxD checks the means of commuting matrices at
// d = 130, beyond dense.PlainMaxD, where the whitened matrices are formed
// by triangular products instead of the Cholesky-factor route.
func TestMeansBeyondPlainMaxD(t *testing.T) {
	const n, d = 3, 130
	q, vals, xs := commuting(newRand(37), n, d, 2)
	w := []float64{0.5, 0.3, 0.2}
	for _, c := range meanCases() {
		t.Run(c.name, func(t *testing.T) {
			m, info, err := c.mean(context.Background(), xs, &MeanOptions{Tol: 1e-12, Weights: w})
			if err != nil || !info.Converged {
				t.Fatalf("%+v, %v", info, err)
			}
			want := make([]float64, d)
			for j := range want {
				want[j] = c.scalar(vals[j], w)
			}
			assertSymClose(t, "mean", m, withEigen(q, want), 1e-10)
		})
	}
}
