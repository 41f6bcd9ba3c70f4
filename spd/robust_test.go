package spd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/panictest"
	"gonum.org/v1/gonum/mat"
)

// fuzzMatrix decodes a FuzzValidate input as the target does.
func fuzzMatrix(n uint8, raw []byte) mat.Matrix {
	d := int(n % 9)
	vals := make([]float64, d*d)
	for i := range vals {
		if 8*i+8 <= len(raw) {
			var bits uint64
			for k := range 8 {
				bits |= uint64(raw[8*i+k]) << (8 * k)
			}
			vals[i] = math.Float64frombits(bits)
		}
	}
	if d == 0 {
		return nil
	}
	return mat.NewDense(d, d, vals)
}

// consumers runs every function that takes an SPD matrix on s and returns
// the first error, or an error when a result is not finite.
func consumers(s *mat.SymDense) map[string]error {
	out := map[string]error{}
	_, out["LogDet"] = LogDet(s)
	_, out["Stein"] = Stein(s, s)
	_, out["NewSet"] = NewSet([]*mat.SymDense{s})
	_, out["NewAnchor"] = NewAnchor(s)
	_, out["AIRM"] = AIRM(s, s)
	_, out["LogEuclidean"] = LogEuclidean(s, s)
	for name, f := range map[string]func(mat.Symmetric) (*mat.SymDense, error){
		"Log": Log, "Sqrt": Sqrt, "InvSqrt": InvSqrt,
		"Pow": func(x mat.Symmetric) (*mat.SymDense, error) { return Pow(x, 0.3) },
	} {
		r, err := f(s)
		if err == nil && !finite(r) {
			err = fmt.Errorf("non-finite result %v", mat.Formatted(r))
		}
		out[name] = err
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		out["gonum Cholesky"] = errors.New("failed")
	} else {
		out["gonum Cholesky"] = nil
	}
	return out
}

// TestSPDEnoughAgrees checks that Validate and every consumer accept and
// refuse the same matrices, with ErrNotSPD.
func TestSPDEnoughAgrees(t *testing.T) {
	// The fuzz finding (testdata/fuzz/FuzzValidate/aaf7999e147b592b): a
	// 3×3 matrix with eigenvalues from 1e-94 to 4e-76.
	fuzz := fuzzMatrix(0x8a, []byte("007000000000000000000000000000000000000000000000200000000000000000000000"))
	v := []float64{1, 2, 3}
	rank1 := mat.NewSymDense(3, nil)
	for i := range 3 {
		for j := i; j < 3; j++ {
			rank1.SetSym(i, j, v[i]*v[j])
		}
	}
	near := mat.NewSymDense(2, []float64{1, 1 - 1e-17, 1 - 1e-17, 1})
	tests := []struct {
		name string
		a    mat.Matrix
		ok   bool
	}{
		{"fuzz finding", fuzz, false},
		{"singular [[1,1],[1,1]]", mat.NewSymDense(2, []float64{1, 1, 1, 1}), false},
		{"rank one", rank1, false},
		{"numerically singular", near, false},
		{"ill-conditioned 1e-16", mat.NewSymDense(2, []float64{1, 1 - 1e-16, 1 - 1e-16, 1}), false},
		{"conditioned 1e-12", mat.NewSymDense(2, []float64{1, 1 - 1e-12, 1 - 1e-12, 1}), true},
		{"huge diagonal", diag(1e308, 1e308), true},
		{"tiny diagonal", diag(1e-300, 1e-300), true},
		{"mixed scales", diag(1e300, 1e-300, 1e200, 1e-200), true},
		{"identity", diag(1, 1, 1), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.a)
			if (err == nil) != tc.ok {
				t.Fatalf("Validate: %v, want ok = %v", err, tc.ok)
			}
			if !tc.ok && !errors.Is(err, ErrNotSPD) {
				t.Errorf("Validate: %v, want ErrNotSPD", err)
			}
			s := symPart(tc.a)
			for name, err := range consumers(s) {
				// gonum's Cholesky only needs positive pivots: it must
				// accept what Validate accepts, and may accept more.
				if (err == nil) != tc.ok && (name != "gonum Cholesky" || tc.ok) {
					t.Errorf("%s: %v, but Validate says ok = %v", name, err, tc.ok)
				}
				if err != nil && name != "gonum Cholesky" && !errors.Is(err, ErrNotSPD) {
					t.Errorf("%s: %v, want ErrNotSPD", name, err)
				}
			}
		})
	}
}

// TestMatrixFunctionsExtremeScale checks that matrix functions of finite
// matrices near the float64 limits are right, not zero or "non-finite".
func TestMatrixFunctionsExtremeScale(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(mat.Symmetric) (*mat.SymDense, error)
		x    *mat.SymDense
		want float64 // every diagonal entry of f(x); f(x) is diagonal
	}{
		{"InvSqrt(1e308 I)", InvSqrt, diag(1e308, 1e308), 1 / math.Sqrt(1e308)},
		{"Sqrt(1e308 I)", Sqrt, diag(1e308, 1e308), math.Sqrt(1e308)},
		{"Log(1e308 I)", Log, diag(1e308, 1e308), math.Log(1e308)},
		{"Log(1e-310 I)", Log, diag(1e-310, 1e-310), -310 * math.Ln10}, // math.Log is inexact on subnormals
		{"Sqrt(1e-310 I)", Sqrt, diag(1e-310, 1e-310), math.Sqrt(1e-310)},
		{"Pow(1e300 I, 1.01)", func(x mat.Symmetric) (*mat.SymDense, error) { return Pow(x, 1.01) }, diag(1e300, 1e300), math.Pow(1e300, 1.01)},
	} {
		got, err := tc.f(tc.x)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for i := range 2 {
			assertClose(t, tc.name, got.At(i, i), tc.want, 1e-13)
		}
		assertClose(t, tc.name+" off-diagonal", got.At(0, 1), 0, 0)
	}
	if _, err := Pow(diag(1e300, 1e300), 2); !errors.Is(err, ErrNotFinite) {
		t.Errorf("overflowing power: got %v, want ErrNotFinite", err)
	}
}

// badSym is a mat.Symmetric whose SymmetricDim disagrees with its Dims.
type badSym struct{ *mat.SymDense }

func (b badSym) SymmetricDim() int { return b.SymDense.SymmetricDim() + 1 }

// TestNoPanicOnBadInput checks that bad data gives errors wrapping the
// sentinels, never a panic.
func TestNoPanicOnBadInput(t *testing.T) {
	var nilSym *mat.SymDense
	good := diag(1, 2)
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"NewSet nil element", func() error { _, err := NewSet([]*mat.SymDense{good, nil}); return err }, ErrEmpty},
		{"NewSet nil first element", func() error { _, err := NewSet([]*mat.SymDense{nil, good}); return err }, ErrEmpty},
		{"KarcherMean nil element", func() error {
			_, _, err := KarcherMean(context.Background(), []*mat.SymDense{good, nil}, nil)
			return err
		}, ErrEmpty},
		{"KarcherMean nil first element", func() error {
			_, _, err := KarcherMean(context.Background(), []*mat.SymDense{nil, good}, nil)
			return err
		}, ErrEmpty},
		{"AddRidge nil", func() error { return AddRidge(nil, 1) }, ErrEmpty},
		{"AddTraceRidge nil", func() error { return AddTraceRidge(nil, 1) }, ErrEmpty},
		{"AddDiagRidge nil", func() error { return AddDiagRidge(nil, 1) }, ErrEmpty},
		{"NewSetFromData d·d overflows", func() error { _, err := NewSetFromData(1<<32, []float64{1}); return err }, ErrDimension},
		{"NewSetFromData huge d", func() error { _, err := NewSetFromData(math.MaxInt, []float64{1}); return err }, ErrDimension},
		{"ExpMap mismatched Symmetric", func() error { _, err := ExpMap(good, badSym{diag(1, 1)}); return err }, ErrNotSquare},
		{"ExpMap typed nil", func() error { _, err := ExpMap(good, nilSym); return err }, ErrEmpty},
		{"Log mismatched Symmetric", func() error { _, err := Log(badSym{diag(1, 1)}); return err }, ErrNotSquare},
		{"LogDet mismatched Symmetric", func() error { _, err := LogDet(badSym{diag(1, 1)}); return err }, ErrNotSquare},
		{"Validate typed nil", func() error { return Validate(nilSym) }, ErrEmpty},
		{"Log typed nil", func() error { _, err := Log(nilSym); return err }, ErrEmpty},
		{"LogMap typed nil", func() error { _, err := LogMap(good, nilSym); return err }, ErrEmpty},
		{"Stein typed nil", func() error { _, err := Stein(good, nilSym); return err }, ErrEmpty},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r, err := panictest.Recover(tc.call); r != nil || !errors.Is(err, tc.want) {
				t.Errorf("got %v (panic: %v), want an error wrapping %v", err, r, tc.want)
			}
		})
	}
}

// TestSetIndexPanics checks the documented programming-error panics: an
// index out of range names itself.
func TestSetIndexPanics(t *testing.T) {
	s := mustSet(t, []*mat.SymDense{diag(1, 2), diag(3, 4)})
	for _, i := range []int{-1, 2} {
		for name, f := range map[string]func(int){
			"At":     func(i int) { s.At(i) },
			"View":   func(i int) { s.View(i) },
			"Subset": func(i int) { s.Subset([]int{i}) },
		} {
			func() {
				defer func() {
					r := recover()
					if r == nil || !strings.Contains(fmt.Sprint(r), "out of range") {
						t.Errorf("%s(%d): recovered %v, want a panic naming the index out of range", name, i, r)
					}
				}()
				f(i)
			}()
		}
	}
}

// TestGeneralisedEigenScale checks that the AIRM and Thompson distances of
// SPD matrices at far apart scales, whose X⁻¹Y overflows float64 although
// its logarithm does not, are right, and that a pair whose generalised
// eigenvalues themselves overflow is ErrNotFinite, not ErrNotSPD.
func TestGeneralisedEigenScale(t *testing.T) {
	for _, tc := range []struct {
		x, y *mat.SymDense
		lam  float64 // log of the double generalised eigenvalue
	}{
		{diag(1e-300, 1e-300), diag(1e300, 1e300), 600 * math.Ln10},
		{diag(1e300, 1e300), diag(1e-300, 1e-300), -600 * math.Ln10},
		{diag(1e-310, 1e-310), diag(1e308, 1e308), 618 * math.Ln10},
	} {
		airm, err := AIRM(tc.x, tc.y)
		if err != nil {
			t.Fatalf("AIRM: %v", err)
		}
		assertClose(t, "AIRM", airm, math.Sqrt2*math.Abs(tc.lam), 1e-12)
		th, err := Thompson(tc.x, tc.y)
		if err != nil {
			t.Fatalf("Thompson: %v", err)
		}
		assertClose(t, "Thompson", th, math.Abs(tc.lam), 1e-12)
		a, err := NewAnchor(tc.x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.AIRM(tc.y)
		if err != nil || got != airm {
			t.Errorf("Anchor.AIRM = %v, %v, want %v", got, err, airm)
		}
	}
	if _, err := AIRM(diag(1e300, 1e-300), diag(1e-300, 1e300)); !errors.Is(err, ErrNotFinite) {
		t.Errorf("eigenvalues 1e±600: %v, want ErrNotFinite", err)
	}
}

// TestAIRMNearSingular checks the AIRM and Thompson metrics on the
// FuzzValidate finding a3a94b6cdf0cff66: an SPD-enough matrix (its last
// Cholesky pivot is 1e-14 of its diagonal entry, above the d·ε of the
// package's definition) whose whitened self U⁻ᵀXU⁻¹ has a negative
// computed eigenvalue. Both must accept what Validate accepts: the
// distance to itself is 0, and to its multiples finite. (Those are not
// accurate to the closed form √d·|log c|: the last pivot, left by
// cancellation, has about one significant digit, which no algorithm
// working from X's entries recovers.)
func TestAIRMNearSingular(t *testing.T) {
	x := symPart(fuzzMatrix(0xaf, []byte("00000100000000000000000000000\x1000000000000000000200000000000000000000000000000000000000000000000000000000000000000000000000000010")))
	if err := Validate(x); err != nil {
		t.Fatal(err)
	}
	for _, c := range []float64{1, 2, 1e-3, 1e10} {
		var y mat.SymDense
		y.ScaleSym(c, x)
		g, err := AIRM(x, &y)
		if err != nil || math.IsInf(g, 0) || math.IsNaN(g) {
			t.Fatalf("AIRM(X, %gX) = %v, %v", c, g, err)
		}
		th, err := Thompson(x, &y)
		if err != nil || math.IsInf(th, 0) || math.IsNaN(th) {
			t.Fatalf("Thompson(X, %gX) = %v, %v", c, th, err)
		}
		if c == 1 && (g > 1e-12 || th > 1e-12) {
			t.Errorf("AIRM(X, X) = %v, Thompson(X, X) = %v, want 0", g, th)
		}
	}
}
