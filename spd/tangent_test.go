package spd

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestTangentNormIsAIRM checks that the tangent vector's norm is the AIRM
// distance to the reference, and that at the identity the vector is the
// log-Euclidean one, for sizes with the closed-form Cholesky (d ≤ 3) and
// above.
func TestTangentNormIsAIRM(t *testing.T) {
	r := newRand(11)
	for _, d := range []int{1, 2, 3, 5, 12} {
		p := randSPD(r, d, 1.5)
		ts, err := NewTangentSpace(p)
		if err != nil {
			t.Fatal(err)
		}
		id, err := NewTangentSpace(symEye(d))
		if err != nil {
			t.Fatal(err)
		}
		for k := range 5 {
			x := randSPD(r, d, 2)
			v, err := ts.Vector(x)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := AIRM(p, x)
			assertClose(t, fmt.Sprintf("d = %d, item %d: ‖t_P(X)‖", d, k), floats.Norm(v, 2), want, 1e-10)
			le, err := id.Vector(x)
			if err != nil {
				t.Fatal(err)
			}
			want2 := make([]float64, VecLen(d))
			if err := NewWorkspace(d).LogVecTo(want2, x, nil); err != nil {
				t.Fatal(err)
			}
			if !floats.EqualApprox(le, want2, 1e-12) {
				t.Errorf("d = %d: t_I(X) = %v, vec(log X) = %v", d, le, want2)
			}
		}
	}
}

func symEye(d int) *mat.SymDense {
	vals := make([]float64, d)
	for i := range vals {
		vals[i] = 1
	}
	return diag(vals...)
}

// TestTangentDiagonal checks closed forms for diagonal P and X: the
// vector is log(x_i/p_i) on the diagonal positions and 0 elsewhere; and
// for a rotation X = Q diag Qᵀ of a 2×2 at P = I, whose logarithm is
// known entry by entry.
func TestTangentDiagonal(t *testing.T) {
	ts, err := NewTangentSpace(diag(2, 0.5, 8))
	if err != nil {
		t.Fatal(err)
	}
	v, err := ts.Vector(diag(6, 0.5, 1))
	if err != nil {
		t.Fatal(err)
	}
	// Upper triangle row by row: (0,0) (0,1) (0,2) (1,1) (1,2) (2,2).
	want := []float64{math.Log(3), 0, 0, 0, 0, math.Log(1.0 / 8)}
	if !floats.EqualApprox(v, want, 1e-14) {
		t.Errorf("diagonal: %v, want %v", v, want)
	}
	// X = Q diag(e^a, e^b) Qᵀ with Q the rotation by θ: log X has
	// diagonal (a cos²θ + b sin²θ, a sin²θ + b cos²θ) and off-diagonal
	// (a − b) sinθ cosθ, which the vector carries times √2.
	a, b, th := 1.3, -0.4, 0.7
	c, s := math.Cos(th), math.Sin(th)
	q := mat.NewDense(2, 2, []float64{c, -s, s, c})
	x := withEigen(q, []float64{math.Exp(a), math.Exp(b)})
	id, _ := NewTangentSpace(symEye(2))
	v, err = id.Vector(x)
	if err != nil {
		t.Fatal(err)
	}
	want = []float64{a*c*c + b*s*s, math.Sqrt2 * (a - b) * s * c, a*s*s + b*c*c}
	if !floats.EqualApprox(v, want, 1e-13) {
		t.Errorf("rotated: %v, want %v", v, want)
	}
}

// TestTangentCongruence checks that the Gram matrix of the tangent
// vectors of a set is unchanged when the set and the reference undergo
// the same congruence X → AXAᵀ.
func TestTangentCongruence(t *testing.T) {
	r := newRand(5)
	const d = 6
	p := randSPD(r, d, 1)
	a := randInvertible(r, d)
	xs := make([]*mat.SymDense, 6)
	for i := range xs {
		xs[i] = randSPD(r, d, 1.5)
	}
	vectors := func(p mat.Symmetric, xs []*mat.SymDense, a *mat.Dense) [][]float64 {
		if a != nil {
			p = congr(a, p)
		}
		ts, err := NewTangentSpace(p)
		if err != nil {
			t.Fatal(err)
		}
		out := make([][]float64, len(xs))
		for i, x := range xs {
			var y mat.Symmetric = x
			if a != nil {
				y = congr(a, x)
			}
			out[i] = make([]float64, VecLen(d))
			if err := ts.VectorTo(out[i], y); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	u, v := vectors(p, xs, nil), vectors(p, xs, a)
	for i := range u {
		for j := range u {
			assertClose(t, fmt.Sprintf("⟨t(X_%d), t(X_%d)⟩ after congruence", i, j), floats.Dot(v[i], v[j]), floats.Dot(u[i], u[j]), 1e-9)
		}
	}
}

// TestUntangent checks the inverse map: Untangent(Vector(X)) = X, the
// vector of Untangent(v) is v, the reference's own vector is 0 and
// Untangent(0) = P; and that the result is LogMap's inverse ExpMap at the
// unwhitened tangent vector P^{1/2} V P^{1/2}.
func TestUntangent(t *testing.T) {
	r := newRand(8)
	for _, d := range []int{1, 3, 7} {
		p := randSPD(r, d, 1)
		ts, err := NewTangentSpace(p)
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			x := randSPD(r, d, 1.5)
			v, err := ts.Vector(x)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ts.Untangent(v)
			if err != nil {
				t.Fatal(err)
			}
			assertSymClose(t, fmt.Sprintf("d = %d: Untangent(Vector(X))", d), back, x, 1e-10)
			w := make([]float64, len(v))
			for i := range w {
				w[i] = r.NormFloat64()
			}
			y, err := ts.Untangent(w)
			if err != nil {
				t.Fatal(err)
			}
			w2, err := ts.Vector(y)
			if err != nil {
				t.Fatal(err)
			}
			if !floats.EqualApprox(w, w2, 1e-9) {
				t.Errorf("d = %d: Vector(Untangent(w)) = %v, want %v", d, w2, w)
			}
			// ExpMap's tangent vector: P^{1/2} V P^{1/2}, V = unvec(w).
			vm := mat.NewSymDense(d, nil)
			k := 0
			for i := range d {
				for j := i; j < d; j++ {
					e := w[k]
					if j > i {
						e /= math.Sqrt2
					}
					vm.SetSym(i, j, e)
					k++
				}
			}
			s, _ := Sqrt(p)
			viaExpMap, err := ExpMap(p, congruence(s, vm))
			if err != nil {
				t.Fatal(err)
			}
			assertSymClose(t, fmt.Sprintf("d = %d: Untangent against ExpMap", d), y, viaExpMap, 1e-10)
		}
		zero, err := ts.Vector(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := floats.Norm(zero, math.Inf(1)); n > 1e-12 {
			t.Errorf("d = %d: t_P(P) = %v, want 0", d, zero)
		}
		back, err := ts.Untangent(make([]float64, VecLen(d)))
		if err != nil {
			t.Fatal(err)
		}
		assertSymClose(t, fmt.Sprintf("d = %d: Untangent(0)", d), back, p, 1e-12)
	}
}

// TestTangentAllocs checks that the hot-loop forms allocate nothing.
func TestTangentAllocs(t *testing.T) {
	r := newRand(2)
	p, x := randSPD(r, 8, 1), randSPD(r, 8, 1)
	ts, err := NewTangentSpace(p)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, VecLen(8))
	y := mat.NewSymDense(8, nil)
	if n := testing.AllocsPerRun(10, func() {
		if err := ts.VectorTo(v, x); err != nil {
			t.Fatal(err)
		}
		if err := ts.UntangentTo(y, v); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("VectorTo and UntangentTo allocate %v times", n)
	}
}

func BenchmarkTangentVectorTo(b *testing.B) {
	for _, d := range []int{5, 17, 43} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			r := newRand(3)
			ts, err := NewTangentSpace(randSPD(r, d, 1))
			if err != nil {
				b.Fatal(err)
			}
			x := randSPD(r, d, 1)
			v := make([]float64, VecLen(d))
			for b.Loop() {
				if err := ts.VectorTo(v, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTangentVectors checks that the rows of TangentVectors are the
// single vectors of the items, in the order of idx, whatever the number
// of workers, and that a cancelled context stops it.
func TestTangentVectors(t *testing.T) {
	r := newRand(4)
	ms := make([]*mat.SymDense, 30)
	for i := range ms {
		ms[i] = randSPD(r, 5, 1)
	}
	set := mustSet(t, ms)
	p := randSPD(r, 5, 0.5)
	ts, _ := NewTangentSpace(p)
	idx := []int{7, 3, 29, 3, 0}
	for _, workers := range []int{1, 3} {
		got, err := TangentVectors(context.Background(), set, idx, p, workers)
		if err != nil {
			t.Fatal(err)
		}
		for k, i := range idx {
			want, _ := ts.Vector(ms[i])
			if !floats.Equal(got.RawRowView(k), want) {
				t.Errorf("%d workers: row %d = %v, want the vector of matrix %d, %v", workers, k, got.RawRowView(k), i, want)
			}
		}
	}
	all, err := TangentVectors(context.Background(), set, nil, p, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := all.Dims(); n != 30 {
		t.Errorf("nil idx: %d rows, want 30", n)
	}
	_, err = TangentVectors(canceltest.Cancelled(t), set, nil, p, 2)
	canceltest.Check(t, "TangentVectors, cancelled", err)
}
