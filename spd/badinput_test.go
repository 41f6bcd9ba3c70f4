package spd

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/panictest"
	"gonum.org/v1/gonum/mat"
)

// This file proves the bad-input table of the package documentation
// ("Errors and panics") for every exported function and method: each is
// called with each bad input that applies to it, and must return an error
// wrapping the documented sentinel, or the documented value, or, for an
// index or size out of range only, panic with the documented message.
// TestBadInputCoversAPI fails when an exported function or method has no
// row here, so that a new one cannot skip the policy.

// badCase is one call with bad input.
type badCase struct {
	name string
	// call makes the call and returns its error (or an error describing
	// how its result differs from the documented one).
	call func() error
	// want is the sentinel the error must wrap; nil: the call must succeed.
	want error
	// panics, if not empty, is a substring of the documented panic.
	panics string
}

// asymSym is a mat.Symmetric whose lower triangle disagrees with its
// upper one (it is NaN): the package must read the upper triangle only.
type asymSym struct{ up *mat.SymDense }

func (a asymSym) Dims() (int, int)  { return a.up.Dims() }
func (a asymSym) T() mat.Matrix     { return a }
func (a asymSym) SymmetricDim() int { return a.up.SymmetricDim() }
func (a asymSym) At(i, j int) float64 {
	if i > j {
		return math.NaN()
	}
	return a.up.At(i, j)
}

// hugeSym claims a size beyond the package's largest (46340) without
// storage.
type hugeSym struct{}

func (hugeSym) Dims() (int, int)    { return 1 << 20, 1 << 20 }
func (h hugeSym) T() mat.Matrix     { return h }
func (hugeSym) SymmetricDim() int   { return 1 << 20 }
func (hugeSym) At(_, _ int) float64 { return 1 }

// Fixtures: 2×2 unless named otherwise.
var (
	nilSym   *mat.SymDense
	good     = mat.NewSymDense(2, []float64{2, 1, 1, 2})
	good3    = diag(1, 2, 3)
	nanM     = mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1})
	infM     = mat.NewSymDense(2, []float64{math.Inf(1), 0, 0, 1})
	indef    = mat.NewSymDense(2, []float64{1, 2, 2, 1})
	singular = mat.NewSymDense(2, []float64{1, 1, 1, 1})
	nearSing = mat.NewSymDense(2, []float64{1, 1 - 1e-16, 1 - 1e-16, 1})
	asym     = asymSym{good}
)

// matFlags select the matrix cases that apply to an argument.
type matFlags int

const (
	needSPD  matFlags = 1 << iota // the argument must be SPD enough
	sized                         // the size must match another's (2×2)
	noFinite                      // NaN and Inf are not checked (no case)
)

// matCases returns the cases of one matrix argument of fn: the calls
// fn(x) for each bad x, and the check that a mat.Symmetric is read as
// its upper triangle (fn(asym) equals fn(good)).
func matCases(arg string, f matFlags, fn func(x mat.Symmetric) (any, error)) []badCase {
	call := func(x mat.Symmetric) func() error {
		return func() error { _, err := fn(x); return err }
	}
	spd := func(err error) error {
		if f&needSPD != 0 {
			return err
		}
		return nil
	}
	cs := []badCase{
		{arg + " nil", call(nil), ErrEmpty, ""},
		{arg + " typed nil", call(nilSym), ErrEmpty, ""},
		{arg + " empty", call(&mat.SymDense{}), ErrEmpty, ""},
		{arg + " SymmetricDim≠Dims", call(badSym{diag(1, 1)}), ErrNotSquare, ""},
		{arg + " huge", call(hugeSym{}), ErrDimension, ""},
		{arg + " indefinite", call(indef), spd(ErrNotSPD), ""},
		{arg + " singular", call(singular), spd(ErrNotSPD), ""},
		{arg + " numerically singular", call(nearSing), spd(ErrNotSPD), ""},
		{arg + " lower triangle ignored", func() error {
			a, errA := fn(asym)
			b, errB := fn(good)
			if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
				return fmt.Errorf("upper-triangle twin gives %v, %v; the matrix gives %v, %v", a, errA, b, errB)
			}
			return nil
		}, nil, ""},
	}
	if f&noFinite == 0 {
		cs = append(cs,
			badCase{arg + " NaN", call(nanM), ErrNotFinite, ""},
			badCase{arg + " Inf", call(infM), ErrNotFinite, ""})
	}
	if f&sized != 0 {
		cs = append(cs, badCase{arg + " size mismatch", call(good3), ErrDimension, ""})
	}
	return cs
}

// pairCases returns the cases of a function of two SPD matrices X and Y
// of the same size.
func pairCases(fn func(x, y mat.Symmetric) (any, error)) []badCase {
	return slices.Concat(
		matCases("X", needSPD|sized, func(x mat.Symmetric) (any, error) { return fn(x, good) }),
		matCases("Y", needSPD|sized, func(y mat.Symmetric) (any, error) { return fn(good, y) }))
}

func errOf[T any](_ T, err error) error { return err }

// check returns nil when ok, else an error saying what went wrong.
func check(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// testSet returns a Set of two 2×2 matrices.
func testSet(t *testing.T) *Set {
	s := mustSet(t, []*mat.SymDense{good, diag(1, 3)})
	return s
}

// nilWS and zeroWS are Workspaces not made by NewWorkspace.
var (
	nilWS  *Workspace
	zeroWS = &Workspace{}
)

// wsCases returns the cases of a Workspace method: the nil and zero
// receivers, then the matrix cases with a 2×2 workspace.
func wsCases(fn func(w *Workspace) error, mats []badCase) []badCase {
	return append([]badCase{
		{"nil Workspace", func() error { return fn(nilWS) }, ErrParameter, ""},
		{"zero Workspace", func() error { return fn(zeroWS) }, ErrParameter, ""},
	}, mats...)
}

// dstCases returns the cases of a WorkspaceTo method's destination.
func dstCases(fn func(w *Workspace, dst *mat.SymDense, x mat.Symmetric) error) []badCase {
	return []badCase{
		{"dst nil", func() error { return fn(NewWorkspace(2), nil, good) }, ErrParameter, ""},
		{"dst 3×3", func() error { return fn(NewWorkspace(2), mat.NewSymDense(3, nil), good) }, ErrDimension, ""},
		{"dst empty is sized", func() error { return fn(NewWorkspace(2), &mat.SymDense{}, good) }, nil, ""},
	}
}

// toCases returns every case of a WorkspaceTo method of an SPD matrix.
func toCases(f matFlags, fn func(w *Workspace, dst *mat.SymDense, x mat.Symmetric) error) []badCase {
	return slices.Concat(
		wsCases(func(w *Workspace) error { return fn(w, mat.NewSymDense(2, nil), good) },
			matCases("X", f|sized, func(x mat.Symmetric) (any, error) {
				dst := mat.NewSymDense(2, nil)
				return dst, fn(NewWorkspace(2), dst, x)
			})),
		dstCases(fn))
}

// setCases returns the cases of a function of a Set.
func setCases(t *testing.T, fn func(s *Set) error) []badCase {
	return []badCase{
		{"nil Set", func() error { return fn(nil) }, ErrEmpty, ""},
		{"zero Set", func() error { return fn(&Set{}) }, ErrEmpty, ""},
		{"empty Subset", func() error { return fn(testSet(t).Subset(nil)) }, ErrEmpty, ""},
	}
}

// optsCases returns the cases of GramOptions: any Workers works.
func optsCases(fn func(o *GramOptions) error) []badCase {
	return []badCase{
		{"nil options", func() error { return fn(nil) }, nil, ""},
		{"negative Workers", func() error { return fn(&GramOptions{Workers: -3}) }, nil, ""},
		{"huge Workers", func() error { return fn(&GramOptions{Workers: 1 << 40}) }, nil, ""},
	}
}

// sigmaCases returns the cases of a SteinKernel method's σ on 2×2
// matrices (Theorem 1: σ ∈ {1/2} or σ > 1/2).
func sigmaCases(fn func(k SteinKernel) error) []badCase {
	var cs []badCase
	for _, s := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		cs = append(cs, badCase{fmt.Sprint("sigma ", s), func() error { return fn(SteinKernel{Sigma: s}) }, ErrSigma, ""},
			badCase{fmt.Sprint("pseudo sigma ", s), func() error { return fn(SteinKernel{Sigma: s, Pseudo: true}) }, ErrSigma, ""})
	}
	return append(cs,
		badCase{"sigma 0.3 outside Theorem 1", func() error { return fn(SteinKernel{Sigma: 0.3}) }, ErrSigma, ""},
		badCase{"pseudo sigma 0.3", func() error { return fn(SteinKernel{Sigma: 0.3, Pseudo: true}) }, nil, ""})
}

// leSigmaCases returns the cases of a kernel σ that is not finite and
// positive, whatever the matrix size (CheckSigma).
func leSigmaCases(fn func(sigma float64) error) []badCase {
	var cs []badCase
	for _, s := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		cs = append(cs, badCase{fmt.Sprint("sigma ", s), func() error { return fn(s) }, ErrParameter, ""})
	}
	return append(cs, badCase{"sigma 0.3, any size", func() error { return fn(0.3) }, nil, ""})
}

// metricCases returns the cases of an invalid Metric.
func metricCases(fn func(m Metric) error) []badCase {
	return []badCase{
		{"zero Metric", func() error { return fn(0) }, ErrParameter, ""},
		{"Metric 99", func() error { return fn(99) }, ErrParameter, ""},
		{"Metric -1", func() error { return fn(-1) }, ErrParameter, ""},
	}
}

// ridgeCases returns the cases of AddRidge, AddTraceRidge and
// AddDiagRidge: a failed call leaves x unchanged.
func ridgeCases(fn func(x *mat.SymDense, eps float64) error) []badCase {
	unchanged := func(x *mat.SymDense, eps float64) func() error {
		return func() error {
			before := symCopy(x)
			err := fn(x, eps)
			if err != nil && !mat.Equal(before, x) && !(hasNaN(before) && hasNaN(x)) {
				return fmt.Errorf("%w, and x changed from %v to %v", err, mat.Formatted(before), mat.Formatted(x))
			}
			return err
		}
	}
	var cs []badCase
	for _, eps := range []float64{-1, math.NaN(), math.Inf(1)} {
		cs = append(cs, badCase{fmt.Sprint("eps ", eps), unchanged(diag(1, 1), eps), ErrParameter, ""})
	}
	return append(cs,
		badCase{"x nil", func() error { return fn(nil, 1) }, ErrEmpty, ""},
		badCase{"x empty", func() error { return fn(&mat.SymDense{}, 1) }, ErrEmpty, ""},
		badCase{"x NaN", unchanged(symCopy(nanM), 1), ErrNotFinite, ""},
		badCase{"x Inf", unchanged(symCopy(infM), 1), ErrNotFinite, ""},
		badCase{"overflow", unchanged(diag(1, math.MaxFloat64), math.MaxFloat64), ErrNotFinite, ""},
		badCase{"x indefinite", unchanged(symCopy(indef), 0.1), nil, ""})
}

func hasNaN(x *mat.SymDense) bool { return !finite(x) }

// badInputTable lists the bad-input cases of every exported function and
// method, by name ("Func" or "Type.Method").
func badInputTable(t *testing.T) map[string][]badCase {
	set := testSet(t)
	set3 := mustSet(t, []*mat.SymDense{good3})
	tangent := func() *TangentSpace {
		ts, err := NewTangentSpace(good)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	tsNil, tsZero := (*TangentSpace)(nil), &TangentSpace{}
	vecCases := func(fn func(v []float64) error) []badCase {
		return []badCase{
			{"v nil", func() error { return fn(nil) }, ErrDimension, ""},
			{"v short", func() error { return fn(make([]float64, 2)) }, ErrDimension, ""},
			{"v NaN", func() error { return fn([]float64{0, math.NaN(), 0}) }, ErrNotFinite, ""},
			{"v Inf", func() error { return fn([]float64{0, 0, math.Inf(-1)}) }, ErrNotFinite, ""},
			{"exp overflows", func() error { return fn([]float64{1000, 0, 1}) }, ErrNotFinite, ""},
			{"v zero", func() error { return fn(make([]float64, 3)) }, nil, ""},
		}
	}
	anchor := func() *Anchor {
		a, err := NewAnchor(good)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	outOfRange := func(name string, fn func(s *Set, i int)) []badCase {
		var cs []badCase
		for n, s := range map[int]*Set{2: set, 0: nil} {
			for _, i := range []int{-1, n, math.MaxInt} {
				of := fmt.Sprintf("a Set of %d", n)
				if s == nil {
					of = "a nil Set"
				}
				cs = append(cs, badCase{fmt.Sprintf("%s(%d) of %s", name, i, of), func() error { fn(s, i); return nil }, nil, "out of range"})
			}
		}
		return cs
	}
	mapTo := func(fn func(mat.Symmetric) (*mat.SymDense, error)) func(mat.Symmetric) (any, error) {
		return func(x mat.Symmetric) (any, error) { return fn(x) }
	}
	powCases := func(fn func(p float64) error) []badCase {
		return []badCase{
			{"p NaN", func() error { return fn(math.NaN()) }, ErrParameter, ""},
			{"p Inf", func() error { return fn(math.Inf(1)) }, ErrParameter, ""},
			{"p overflows", func() error { return fn(1e10) }, ErrNotFinite, ""},
		}
	}
	big := diag(1000, 1) // exp overflows
	kmeans := func(s *Set, o KMeansOptions) error { _, err := KMeans(context.Background(), s, o); return err }
	kmOK := KMeansOptions{K: 1, Metric: AIRMMetric}
	newSet := func(ms ...*mat.SymDense) error { _, err := NewSet(ms); return err }
	fromData := func(d int, data ...float64) error { _, err := NewSetFromData(d, data); return err }
	validate := func(name string, fn func(a mat.Matrix) error) []badCase {
		return append(matCases("a", needSPD, func(x mat.Symmetric) (any, error) { return nil, fn(x) }),
			badCase{"a nil mat.Matrix", func() error { return fn(nil) }, ErrEmpty, ""},
			badCase{"a zero Dense", func() error { return fn(&mat.Dense{}) }, ErrEmpty, ""},
			badCase{"a 2×3", func() error { return fn(mat.NewDense(2, 3, nil)) }, ErrNotSquare, ""},
			badCase{"a not symmetric", func() error { return fn(mat.NewDense(2, 2, []float64{2, 1, 0, 2})) }, ErrNotSymmetric, ""},
			badCase{"a Dense NaN", func() error { return fn(mat.NewDense(2, 2, []float64{1, 0, 0, math.NaN()})) }, ErrNotFinite, ""},
			badCase{"a Dense indefinite", func() error { return fn(mat.NewDense(2, 2, []float64{1, 2, 2, 1})) }, ErrNotSPD, ""},
			badCase{"a Dense asymmetric within tolerance", func() error { return fn(mat.NewDense(2, 2, []float64{2, 1, 1 + 1e-12, 2})) }, nil, ""})
	}
	table := map[string][]badCase{
		"Validate":   validate("Validate", Validate),
		"FromMatrix": validate("FromMatrix", func(a mat.Matrix) error { return errOf(FromMatrix(a)) }),
		"ValidateTol": append(validate("ValidateTol", func(a mat.Matrix) error { return ValidateTol(a, DefaultSymmetryTol) }),
			badCase{"tol NaN", func() error { return ValidateTol(good, math.NaN()) }, ErrParameter, ""},
			badCase{"tol -1", func() error { return ValidateTol(good, -1) }, ErrParameter, ""},
			badCase{"tol +Inf skips the symmetry test", func() error { return ValidateTol(mat.NewDense(2, 2, []float64{2, 1, 0, 2}), math.Inf(1)) }, nil, ""}),
		"AddRidge":      ridgeCases(AddRidge),
		"AddTraceRidge": append(ridgeCases(AddTraceRidge), badCase{"trace overflows", func() error { return AddTraceRidge(diag(math.MaxFloat64, math.MaxFloat64), 0.1) }, ErrNotFinite, ""}, badCase{"trace overflows, ridge does not", func() error { return AddTraceRidge(diag(0.9*math.MaxFloat64, 0.9*math.MaxFloat64), 1e-10) }, nil, ""}),
		"AddDiagRidge":  ridgeCases(AddDiagRidge),

		"LogDet":  matCases("X", needSPD, func(x mat.Symmetric) (any, error) { return LogDet(x) }),
		"Log":     matCases("X", needSPD, mapTo(Log)),
		"Sqrt":    matCases("X", needSPD, mapTo(Sqrt)),
		"InvSqrt": matCases("X", needSPD, mapTo(InvSqrt)),
		"Pow": append(matCases("X", needSPD, func(x mat.Symmetric) (any, error) { return Pow(x, 0.3) }),
			powCases(func(p float64) error { return errOf(Pow(good, p)) })...),
		"Exp": append(matCases("X", 0, mapTo(Exp)),
			badCase{"overflow", func() error { return errOf(Exp(big)) }, ErrNotFinite, ""}),

		"Stein":        pairCases(func(x, y mat.Symmetric) (any, error) { return Stein(x, y) }),
		"AIRM":         pairCases(func(x, y mat.Symmetric) (any, error) { return AIRM(x, y) }),
		"Thompson":     pairCases(func(x, y mat.Symmetric) (any, error) { return Thompson(x, y) }),
		"LogEuclidean": pairCases(func(x, y mat.Symmetric) (any, error) { return LogEuclidean(x, y) }),
		"Wasserstein":  pairCases(func(x, y mat.Symmetric) (any, error) { return Wasserstein(x, y) }),
		"Euclid":       pairCases(func(x, y mat.Symmetric) (any, error) { return Euclid(x, y) }),
		"Distance": slices.Concat(
			metricCases(func(m Metric) error { return errOf(Distance(m, good, good)) }),
			pairCases(func(x, y mat.Symmetric) (any, error) { return Distance(AIRMMetric, x, y) }),
			pairCases(func(x, y mat.Symmetric) (any, error) { return Distance(SteinMetric, x, y) }),
			pairCases(func(x, y mat.Symmetric) (any, error) { return Distance(LogEuclideanMetric, x, y) }),
			pairCases(func(x, y mat.Symmetric) (any, error) { return Distance(ThompsonMetric, x, y) })),

		"ExpMap": slices.Concat(
			matCases("P", needSPD|sized, func(p mat.Symmetric) (any, error) { return ExpMap(p, good) }),
			matCases("V", sized, func(v mat.Symmetric) (any, error) { return ExpMap(good, v) }),
			[]badCase{{"overflow", func() error { return errOf(ExpMap(diag(1, 1), big)) }, ErrNotFinite, ""}}),
		"LogMap": pairCases(func(p, x mat.Symmetric) (any, error) { return LogMap(p, x) }),
		"Geodesic": slices.Concat(
			pairCases(func(x, y mat.Symmetric) (any, error) { return Geodesic(x, y, 0.5) }),
			powCases(func(t float64) error { return errOf(Geodesic(diag(1, 1), diag(10, 10), t)) })),

		"VecLen": {
			{"d 0", func() error { return check(VecLen(0) == 0, "VecLen(0) = %d", VecLen(0)) }, nil, ""},
			{"d -2", func() error { return check(VecLen(-2) == 0, "VecLen(-2) = %d", VecLen(-2)) }, nil, ""},
			{"d MaxInt", func() error { return check(VecLen(math.MaxInt) == 0, "VecLen(MaxInt) = %d", VecLen(math.MaxInt)) }, nil, ""},
		},
		"VecTo": append(matCases("X", 0, func(x mat.Symmetric) (any, error) { dst := make([]float64, 3); return dst, VecTo(dst, x) }),
			badCase{"dst short", func() error { return VecTo(make([]float64, 2), good) }, ErrDimension, ""},
			badCase{"dst nil", func() error { return VecTo(nil, good) }, ErrDimension, ""}),

		"ValidSigma": {
			{"invalid sigmas are false", func() error {
				for _, s := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 0.3} {
					if ValidSigma(s, 3) {
						return fmt.Errorf("ValidSigma(%v, 3) = true", s)
					}
				}
				return nil
			}, nil, ""},
			{"d < 1 is false", func() error { return check(!ValidSigma(1, 0) && !ValidSigma(1, -5), "ValidSigma(1, d < 1) = true") }, nil, ""},
		},
		"AIRMLowerBound": {
			{"s <= 0, d < 1, NaN and +Inf", func() error {
				return check(AIRMLowerBound(0, 3) == 0 && AIRMLowerBound(-1, 3) == 0 && AIRMLowerBound(1, 0) == 0 &&
					AIRMLowerBound(1, -2) == 0 && math.IsNaN(AIRMLowerBound(math.NaN(), 3)) &&
					math.IsInf(AIRMLowerBound(math.Inf(1), 3), 1), "wrong edge values")
			}, nil, ""},
		},
		"DefaultSigma": {
			{"d < 1 is 0.5", func() error {
				return check(DefaultSigma(0) == 0.5 && DefaultSigma(-7) == 0.5, "DefaultSigma(0), (-7) = %v, %v", DefaultSigma(0), DefaultSigma(-7))
			}, nil, ""},
			{"valid for every d", func() error {
				for _, d := range []int{1, 2, 3, 17, math.MaxInt} {
					if s := DefaultSigma(d); !ValidSigma(s, d) {
						return fmt.Errorf("DefaultSigma(%d) = %v, outside Theorem 1", d, s)
					}
				}
				return nil
			}, nil, ""},
		},
		"ValidSigmas": {
			{"d < 1", func() error {
				return check(ValidSigmas(0) == "sigma > 0" && ValidSigmas(-7) == "sigma > 0", "ValidSigmas(0), (-7) = %q, %q", ValidSigmas(0), ValidSigmas(-7))
			}, nil, ""},
			{"d MaxInt", func() error { return check(ValidSigmas(math.MaxInt) != "", "empty") }, nil, ""},
		},

		"SteinKernel.Check": append(sigmaCases(func(k SteinKernel) error { return k.Check(2) }),
			badCase{"d 0", func() error { return SteinKernel{Sigma: 1}.Check(0) }, ErrDimension, ""},
			badCase{"d -1", func() error { return SteinKernel{Sigma: 1}.Check(-1) }, ErrDimension, ""}),
		"SteinKernel.Eval": append(sigmaCases(func(k SteinKernel) error { return errOf(k.Eval(good, good)) }),
			pairCases(func(x, y mat.Symmetric) (any, error) { return SteinKernel{Sigma: 1}.Eval(x, y) })...),
		"CheckSigma": leSigmaCases(func(sigma float64) error { return CheckSigma(sigma) }),
		"LogEuclideanKernel.Check": append(leSigmaCases(func(sigma float64) error { return LogEuclideanKernel{Sigma: sigma}.Check(2) }),
			badCase{"d 0", func() error { return LogEuclideanKernel{Sigma: 1}.Check(0) }, ErrDimension, ""}),
		"LogEuclideanKernel.Eval": append(leSigmaCases(func(sigma float64) error { return errOf(LogEuclideanKernel{Sigma: sigma}.Eval(good, good)) }),
			pairCases(func(x, y mat.Symmetric) (any, error) { return LogEuclideanKernel{Sigma: 1}.Eval(x, y) })...),
		"SteinKernel.FromDivergence": {
			{"no checks: NaN in, NaN out", func() error {
				k := SteinKernel{Sigma: 1}
				return check(math.IsNaN(k.FromDivergence(math.NaN())) && math.IsNaN(SteinKernel{Sigma: math.NaN()}.FromDivergence(1)) &&
					k.FromDivergence(-1) == math.E, "FromDivergence is not exp(−σ s)")
			}, nil, ""},
		},
		"SteinKernel.Gram": slices.Concat(
			sigmaCases(func(k SteinKernel) error { return errOf(k.Gram(context.Background(), set, set, nil)) }),
			setCases(t, func(s *Set) error { return errOf(SteinKernel{Sigma: 1}.Gram(context.Background(), s, set, nil)) }),
			setCases(t, func(s *Set) error { return errOf(SteinKernel{Sigma: 1}.Gram(context.Background(), set, s, nil)) }),
			[]badCase{{"sets of 2×2 and 3×3", func() error { return errOf(SteinKernel{Sigma: 1}.Gram(context.Background(), set, set3, nil)) }, ErrDimension, ""}},
			optsCases(func(o *GramOptions) error {
				return errOf(SteinKernel{Sigma: 1}.Gram(context.Background(), set, set, o))
			})),
		"SteinKernel.GramSym": slices.Concat(
			sigmaCases(func(k SteinKernel) error { return errOf(k.GramSym(context.Background(), set, nil)) }),
			setCases(t, func(s *Set) error { return errOf(SteinKernel{Sigma: 1}.GramSym(context.Background(), s, nil)) }),
			optsCases(func(o *GramOptions) error { return errOf(SteinKernel{Sigma: 1}.GramSym(context.Background(), set, o)) })),
		"SteinDivergences": slices.Concat(
			setCases(t, func(s *Set) error { return errOf(SteinDivergences(context.Background(), s, set, nil)) }),
			setCases(t, func(s *Set) error { return errOf(SteinDivergences(context.Background(), set, s, nil)) }),
			[]badCase{{"sets of 2×2 and 3×3", func() error { return errOf(SteinDivergences(context.Background(), set, set3, nil)) }, ErrDimension, ""}},
			optsCases(func(o *GramOptions) error { return errOf(SteinDivergences(context.Background(), set, set, o)) })),
		"SteinBlockTo": slices.Concat(
			setCases(t, func(s *Set) error {
				return SteinBlockTo(context.Background(), mat.NewDense(1, 1, nil), s, []int{0}, set, []int{0}, nil)
			}),
			setCases(t, func(s *Set) error {
				return SteinBlockTo(context.Background(), mat.NewDense(1, 1, nil), set, []int{0}, s, []int{0}, nil)
			}),
			[]badCase{
				{"sets of 2×2 and 3×3", func() error {
					return SteinBlockTo(context.Background(), mat.NewDense(1, 1, nil), set, []int{0}, set3, []int{0}, nil)
				}, ErrDimension, ""},
				{"nil destination", func() error { return SteinBlockTo(context.Background(), nil, set, []int{0}, set, []int{0}, nil) }, ErrParameter, ""},
				{"destination of the wrong shape", func() error {
					return SteinBlockTo(context.Background(), mat.NewDense(2, 1, nil), set, []int{0}, set, []int{0}, nil)
				}, ErrDimension, ""},
				{"row index out of range", func() error {
					return SteinBlockTo(context.Background(), mat.NewDense(1, 1, nil), set, []int{set.Len()}, set, []int{0}, nil)
				}, ErrParameter, ""},
				{"negative column index", func() error {
					return SteinBlockTo(context.Background(), mat.NewDense(1, 1, nil), set, []int{0}, set, []int{-1}, nil)
				}, ErrParameter, ""},
				{"no rows", func() error { return SteinBlockTo(context.Background(), &mat.Dense{}, set, nil, set, nil, nil) }, nil, ""},
			},
			optsCases(func(o *GramOptions) error {
				return SteinBlockTo(context.Background(), mat.NewDense(1, 1, nil), set, []int{0}, set, []int{0}, o)
			})),
		"SteinSymBlock": slices.Concat(
			setCases(t, func(s *Set) error { return errOf(SteinSymBlock(context.Background(), s, []int{0}, nil)) }),
			[]badCase{
				{"no items", func() error { return errOf(SteinSymBlock(context.Background(), set, nil, nil)) }, ErrEmpty, ""},
				{"item out of range", func() error { return errOf(SteinSymBlock(context.Background(), set, []int{0, set.Len()}, nil)) }, ErrParameter, ""},
			},
			optsCases(func(o *GramOptions) error { return errOf(SteinSymBlock(context.Background(), set, []int{0, 1}, o)) })),
		"SteinDivergencesSym": slices.Concat(
			setCases(t, func(s *Set) error { return errOf(SteinDivergencesSym(context.Background(), s, nil)) }),
			optsCases(func(o *GramOptions) error { return errOf(SteinDivergencesSym(context.Background(), set, o)) })),

		"NewSet": {
			{"nil slice", func() error { return newSet() }, ErrEmpty, ""},
			{"nil element", func() error { return newSet(good, nil) }, ErrEmpty, ""},
			{"nil first element", func() error { return newSet(nil, good) }, ErrEmpty, ""},
			{"empty element", func() error { return newSet(good, &mat.SymDense{}) }, ErrEmpty, ""},
			{"sizes differ", func() error { return newSet(good, good3) }, ErrDimension, ""},
			{"NaN", func() error { return newSet(good, nanM) }, ErrNotFinite, ""},
			{"Inf", func() error { return newSet(good, infM) }, ErrNotFinite, ""},
			{"indefinite", func() error { return newSet(good, indef) }, ErrNotSPD, ""},
			{"singular", func() error { return newSet(good, singular) }, ErrNotSPD, ""},
			{"numerically singular", func() error { return newSet(nearSing) }, ErrNotSPD, ""},
		},
		"NewSetFromData": {
			{"d 0", func() error { return fromData(0, 1) }, ErrDimension, ""},
			{"d -1", func() error { return fromData(-1, 1) }, ErrDimension, ""},
			{"d·d overflows", func() error { return fromData(1<<32, 1) }, ErrDimension, ""},
			{"no data", func() error { return fromData(2) }, ErrEmpty, ""},
			{"not whole matrices", func() error { return fromData(2, 1, 0, 0) }, ErrDimension, ""},
			{"NaN", func() error { return fromData(2, 1, 0, 0, math.NaN()) }, ErrNotFinite, ""},
			{"Inf", func() error { return fromData(1, math.Inf(-1)) }, ErrNotFinite, ""},
			{"not symmetric", func() error { return fromData(2, 2, 1, 0, 2) }, ErrNotSymmetric, ""},
			{"indefinite", func() error { return fromData(2, 1, 2, 2, 1) }, ErrNotSPD, ""},
			{"singular", func() error { return fromData(2, 1, 1, 1, 1) }, ErrNotSPD, ""},
		},
		"Regroup": {
			{"nil set", func() error { _, err := Regroup(nil, 1); return err }, ErrDimension, ""},
			{"no groups", func() error { _, err := Regroup(set.Subset(seq(set.Len())), 0); return err }, ErrDimension, ""},
			{"not whole groups", func() error { _, err := Regroup(set.Subset(seq(set.Len())), set.Len()+1); return err }, ErrDimension, ""},
		},
		"Pack": {
			{"nil set", func() error { _, err := Pack(nil, new(Residency)); return err }, ErrEmpty, ""},
			{"empty set", func() error { _, err := Pack(&Set{}, new(Residency)); return err }, ErrEmpty, ""},
			{"nil Residency", func() error {
				p, err := Pack(set, nil)
				if err != nil {
					return err
				}
				return check(Equal(p, set), "not Equal")
			}, nil, ""},
			{"regrouping a packed set", func() error {
				p, err := Pack(set, nil)
				if err != nil {
					return err
				}
				_, err = Regroup(p, 1)
				return err
			}, errPacked, ""},
		},
		"Residency.Unpacked": {{"nil Residency", func() error { return check((*Residency)(nil).Unpacked() == 0, "not 0") }, nil, ""}},
		"Set.Packed":         {{"nil Set", func() error { return check(!(*Set)(nil).Packed(), "packed") }, nil, ""}},
		"NewPacker": {
			{"zero size", func() error { _, err := NewPacker(0, 2, 1, nil, nil); return err }, ErrDimension, ""},
			{"no matrices", func() error { _, err := NewPacker(2, 0, 1, nil, nil); return err }, ErrDimension, ""},
			{"not whole groups", func() error { _, err := NewPacker(2, 3, 2, nil, nil); return err }, ErrDimension, ""},
			{"no groups", func() error { _, err := NewPacker(2, 3, 0, nil, nil); return err }, ErrDimension, ""},
		},
		"Packer.Add": {
			{"nil Packer", func() error { return (*Packer)(nil).Add([]float64{1, 0, 0, 1}) }, ErrEmpty, ""},
			{"short matrix", func() error { return newPacker(t).Add([]float64{1, 0, 0}) }, ErrDimension, ""},
			{"one too many", func() error {
				p := newPacker(t)
				return errors.Join(p.Add([]float64{1, 0, 0, 1}), p.Add([]float64{1, 0, 0, 1}))
			}, ErrDimension, ""},
			{"NaN", func() error { return newPacker(t).Add([]float64{1, 0, 0, math.NaN()}) }, ErrNotFinite, ""},
			{"asymmetric", func() error { return newPacker(t).Add([]float64{1, 0.5, 0, 1}) }, ErrNotSymmetric, ""},
		},
		"Packer.Sets": {
			{"nil Packer", func() error { _, err := (*Packer)(nil).Sets(); return err }, ErrEmpty, ""},
			{"before the last matrix", func() error { _, err := newPacker(t).Sets(); return err }, ErrDimension, ""},
			{"not positive definite", func() error {
				p := newPacker(t)
				if err := p.Add([]float64{-1, 0, 0, 1}); err != nil {
					return err
				}
				_, err := p.Sets()
				return err
			}, ErrNotSPD, ""},
		},
		"Packer.Hashes": {
			{"nil Packer", func() error { return check((*Packer)(nil).Hashes() == nil, "not nil") }, nil, ""},
			{"none added", func() error { return check(len(newPacker(t).Hashes()) == 0, "not empty") }, nil, ""},
		},
		"MatrixHash": {
			{"no values", func() error { return check(MatrixHash(nil) == MatrixHash([]float64{}), "nil and empty differ") }, nil, ""},
			{"-0 and 0", func() error {
				return check(MatrixHash([]float64{math.Copysign(0, -1)}) != MatrixHash([]float64{0}), "same")
			}, nil, ""},
		},
		"SameMatrix": {
			{"out of range", func() error { SameMatrix(set, 2, set, 0); return nil }, nil, "out of range"},
			{"different sizes", func() error { return check(!SameMatrix(set, 0, set3, 0), "same") }, nil, ""},
			{"nil set", func() error { SameMatrix(nil, 0, set, 0); return nil }, nil, "out of range"},
		},
		"Equal": {
			{"two nil sets", func() error { return check(Equal(nil, nil), "not Equal") }, nil, ""},
			{"a nil set", func() error { return check(!Equal(set, nil) && !Equal(nil, set), "Equal") }, nil, ""},
		},
		"Concat": {
			{"different sizes", func() error { _, err := Concat(set, set3); return err }, ErrDimension, ""},
			{"two nil sets", func() error {
				s, err := Concat(nil, nil)
				if err != nil {
					return err
				}
				return check(s.Len() == 0, "not empty")
			}, nil, ""},
		},
		"Set.At":     outOfRange("At", func(s *Set, i int) { s.At(i) }),
		"Set.View":   outOfRange("View", func(s *Set, i int) { s.View(i) }),
		"Set.LogDet": outOfRange("LogDet", func(s *Set, i int) { s.LogDet(i) }),
		"Set.Subset": append(outOfRange("Subset", func(s *Set, i int) { s.Subset([]int{0, i}) }),
			badCase{"empty idx gives an empty Set", func() error {
				return check(set.Subset(nil).Len() == 0 && (*Set)(nil).Subset(nil).Len() == 0, "not empty")
			}, nil, ""}),
		"Set.Len":  {{"nil Set", func() error { return check((*Set)(nil).Len() == 0, "not 0") }, nil, ""}},
		"Set.Dim":  {{"nil Set", func() error { return check((*Set)(nil).Dim() == 0, "not 0") }, nil, ""}},
		"Set.Data": {{"nil Set", func() error { return check((*Set)(nil).Data() == nil, "not nil") }, nil, ""}},

		"NewWorkspace": {
			{"d 0", func() error { NewWorkspace(0); return nil }, nil, "out of range"},
			{"d -1", func() error { NewWorkspace(-1); return nil }, nil, "out of range"},
			{"d 46341", func() error { NewWorkspace(46341); return nil }, nil, "out of range"},
			{"d MaxInt", func() error { NewWorkspace(math.MaxInt); return nil }, nil, "out of range"},
		},
		"Workspace.Dim": {{"nil and zero Workspace", func() error { return check(nilWS.Dim() == 0 && zeroWS.Dim() == 0, "not 0") }, nil, ""}},
		"Workspace.LogDet": wsCases(func(w *Workspace) error { return errOf(w.LogDet(good)) },
			matCases("X", needSPD|sized, func(x mat.Symmetric) (any, error) { return NewWorkspace(2).LogDet(x) })),
		"Workspace.Stein": wsCases(func(w *Workspace) error { return errOf(w.Stein(good, good)) },
			pairCases(func(x, y mat.Symmetric) (any, error) { return NewWorkspace(2).Stein(x, y) })),
		"Workspace.AIRM": wsCases(func(w *Workspace) error { return errOf(w.AIRM(good, good)) },
			pairCases(func(x, y mat.Symmetric) (any, error) { return NewWorkspace(2).AIRM(x, y) })),
		"Workspace.Thompson": wsCases(func(w *Workspace) error { return errOf(w.Thompson(good, good)) },
			pairCases(func(x, y mat.Symmetric) (any, error) { return NewWorkspace(2).Thompson(x, y) })),
		"Workspace.LogEuclidean": wsCases(func(w *Workspace) error { return errOf(w.LogEuclidean(good, good)) },
			pairCases(func(x, y mat.Symmetric) (any, error) { return NewWorkspace(2).LogEuclidean(x, y) })),
		"Workspace.Wasserstein": wsCases(func(w *Workspace) error { return errOf(w.Wasserstein(good, good)) },
			pairCases(func(x, y mat.Symmetric) (any, error) { return NewWorkspace(2).Wasserstein(x, y) })),
		"Workspace.Euclid": wsCases(func(w *Workspace) error { return errOf(w.Euclid(good, good)) },
			pairCases(func(x, y mat.Symmetric) (any, error) { return NewWorkspace(2).Euclid(x, y) })),
		"Workspace.Distance": slices.Concat(
			wsCases(func(w *Workspace) error { return errOf(w.Distance(SteinMetric, good, good)) }, nil),
			metricCases(func(m Metric) error { return errOf(NewWorkspace(2).Distance(m, good, good)) }),
			pairCases(func(x, y mat.Symmetric) (any, error) { return NewWorkspace(2).Distance(AIRMMetric, x, y) }),
			pairCases(func(x, y mat.Symmetric) (any, error) { return NewWorkspace(2).Distance(SteinMetric, x, y) }),
			pairCases(func(x, y mat.Symmetric) (any, error) { return NewWorkspace(2).Distance(LogEuclideanMetric, x, y) }),
			pairCases(func(x, y mat.Symmetric) (any, error) { return NewWorkspace(2).Distance(ThompsonMetric, x, y) })),
		"Workspace.LogTo":     toCases(needSPD, (*Workspace).LogTo),
		"Workspace.SqrtTo":    toCases(needSPD, (*Workspace).SqrtTo),
		"Workspace.InvSqrtTo": toCases(needSPD, (*Workspace).InvSqrtTo),
		"Workspace.ExpTo": append(toCases(0, (*Workspace).ExpTo),
			badCase{"overflow", func() error { return NewWorkspace(2).ExpTo(mat.NewSymDense(2, nil), big) }, ErrNotFinite, ""}),
		"Workspace.PowTo": append(toCases(needSPD, func(w *Workspace, dst *mat.SymDense, x mat.Symmetric) error { return w.PowTo(dst, x, 0.3) }),
			powCases(func(p float64) error { return NewWorkspace(2).PowTo(mat.NewSymDense(2, nil), good, p) })...),
		"Workspace.LogVecTo": slices.Concat(
			wsCases(func(w *Workspace) error { return w.LogVecTo(make([]float64, 3), good, nil) },
				matCases("X", needSPD|sized, func(x mat.Symmetric) (any, error) {
					dst := make([]float64, 3)
					return dst, NewWorkspace(2).LogVecTo(dst, x, nil)
				})),
			[]badCase{
				{"dst short", func() error { return NewWorkspace(2).LogVecTo(make([]float64, 2), good, nil) }, ErrDimension, ""},
				{"tmp 3×3", func() error { return NewWorkspace(2).LogVecTo(make([]float64, 3), good, mat.NewSymDense(3, nil)) }, ErrDimension, ""},
				{"tmp empty is sized", func() error { return NewWorkspace(2).LogVecTo(make([]float64, 3), good, &mat.SymDense{}) }, nil, ""},
			}),

		"NewTangentSpace": matCases("P", needSPD, func(p mat.Symmetric) (any, error) {
			ts, err := NewTangentSpace(p)
			if err != nil {
				return nil, err
			}
			return ts.Vector(p)
		}),
		"TangentSpace.Dim": {
			{"nil TangentSpace", func() error { return check(tsNil.Dim() == 0, "Dim %d", tsNil.Dim()) }, nil, ""},
			{"zero TangentSpace", func() error { return check(tsZero.Dim() == 0, "Dim %d", tsZero.Dim()) }, nil, ""},
		},
		"TangentSpace.VectorTo": slices.Concat(
			matCases("X", needSPD|sized, func(x mat.Symmetric) (any, error) {
				dst := make([]float64, 3)
				return dst, tangent().VectorTo(dst, x)
			}),
			[]badCase{
				{"nil TangentSpace", func() error { return tsNil.VectorTo(make([]float64, 3), good) }, ErrParameter, ""},
				{"zero TangentSpace", func() error { return tsZero.VectorTo(make([]float64, 3), good) }, ErrParameter, ""},
				{"dst short", func() error { return tangent().VectorTo(make([]float64, 2), good) }, ErrDimension, ""},
			}),
		"TangentSpace.Vector": slices.Concat(
			matCases("X", needSPD|sized, func(x mat.Symmetric) (any, error) { return tangent().Vector(x) }),
			[]badCase{
				{"nil TangentSpace", func() error { return errOf(tsNil.Vector(good)) }, ErrParameter, ""},
				{"zero TangentSpace", func() error { return errOf(tsZero.Vector(good)) }, ErrParameter, ""},
			}),
		"TangentSpace.UntangentTo": slices.Concat(
			vecCases(func(v []float64) error { return tangent().UntangentTo(mat.NewSymDense(2, nil), v) }),
			[]badCase{
				{"nil TangentSpace", func() error { return tsNil.UntangentTo(mat.NewSymDense(2, nil), make([]float64, 3)) }, ErrParameter, ""},
				{"zero TangentSpace", func() error { return tsZero.UntangentTo(mat.NewSymDense(2, nil), make([]float64, 3)) }, ErrParameter, ""},
				{"dst nil", func() error { return tangent().UntangentTo(nil, make([]float64, 3)) }, ErrParameter, ""},
				{"dst 3×3", func() error { return tangent().UntangentTo(mat.NewSymDense(3, nil), make([]float64, 3)) }, ErrDimension, ""},
				{"dst empty is sized", func() error { return tangent().UntangentTo(&mat.SymDense{}, make([]float64, 3)) }, nil, ""},
			}),
		"TangentSpace.Untangent": slices.Concat(
			vecCases(func(v []float64) error { return errOf(tangent().Untangent(v)) }),
			[]badCase{
				{"nil TangentSpace", func() error { return errOf(tsNil.Untangent(make([]float64, 3))) }, ErrParameter, ""},
				{"zero TangentSpace", func() error { return errOf(tsZero.Untangent(make([]float64, 3))) }, ErrParameter, ""},
			}),

		// MeanOf returns no error: a metric without a mean, or an
		// invalid one, has none (nil).
		"MeanOf": {
			{"thompson", func() error { return nilMean(ThompsonMetric) }, nil, ""},
			{"invalid metric", func() error { return nilMean(Metric(-1)) }, nil, ""},
		},
		"TangentVectors": slices.Concat(
			setCases(t, func(s *Set) error { return errOf(TangentVectors(context.Background(), s, nil, good, 1)) }),
			matCases("P", needSPD|sized, func(p mat.Symmetric) (any, error) { return TangentVectors(context.Background(), set, nil, p, 1) }),
			[]badCase{
				{"empty idx", func() error { return errOf(TangentVectors(context.Background(), set, []int{}, good, 1)) }, ErrEmpty, ""},
				{"idx -1", func() error { return errOf(TangentVectors(context.Background(), set, []int{0, -1}, good, 1)) }, ErrParameter, ""},
				{"idx Len", func() error { return errOf(TangentVectors(context.Background(), set, []int{2}, good, 1)) }, ErrParameter, ""},
				{"any workers", func() error { return errOf(TangentVectors(context.Background(), set, nil, good, -4)) }, nil, ""},
			}),

		"NewAnchor": matCases("X", needSPD, func(x mat.Symmetric) (any, error) {
			a, err := NewAnchor(x)
			if err != nil {
				return nil, err
			}
			return a.AIRM(diag(1, 1))
		}),
		"Anchor.AIRM": anchorAIRMCases(anchor),
		"NewTarget": matCases("Y", needSPD, func(y mat.Symmetric) (any, error) {
			tg, err := NewTarget(y)
			if err != nil {
				return nil, err
			}
			return anchor().AIRMTarget(tg)
		}),
		"Anchor.AIRMTarget": {
			{"nil Anchor", func() error { tg, _ := NewTarget(good); return errOf((*Anchor)(nil).AIRMTarget(tg)) }, ErrParameter, ""},
			{"zero Anchor", func() error { tg, _ := NewTarget(good); return errOf((&Anchor{}).AIRMTarget(tg)) }, ErrParameter, ""},
			{"nil Target", func() error { return errOf(anchor().AIRMTarget(nil)) }, ErrParameter, ""},
			{"zero Target", func() error { return errOf(anchor().AIRMTarget(&Target{})) }, ErrParameter, ""},
			{"Target of another size", func() error { tg, _ := NewTarget(good3); return errOf(anchor().AIRMTarget(tg)) }, ErrDimension, ""},
			{"as Anchor.AIRM", func() error {
				tg, _ := NewTarget(diag(3, 0.5))
				got, err := anchor().AIRMTarget(tg)
				want, _ := anchor().AIRM(diag(3, 0.5))
				if err != nil || got != want {
					return fmt.Errorf("%v, %v, want %v", got, err, want)
				}
				return nil
			}, nil, ""},
		},
		"Anchor.AIRMTargets": {
			{"nil Anchor", func() error {
				tg, _ := NewTarget(good)
				return (*Anchor)(nil).AIRMTargets(make([]float64, 1), []*Target{tg})
			}, ErrParameter, ""},
			{"zero Anchor", func() error {
				tg, _ := NewTarget(good)
				return (&Anchor{}).AIRMTargets(make([]float64, 1), []*Target{tg})
			}, ErrParameter, ""},
			{"nil Target", func() error { return anchor().AIRMTargets(make([]float64, 1), []*Target{nil}) }, ErrParameter, ""},
			{"Target of another size", func() error {
				tg, _ := NewTarget(good3)
				return anchor().AIRMTargets(make([]float64, 1), []*Target{tg})
			}, ErrDimension, ""},
			{"dst of another length", func() error { tg, _ := NewTarget(good); return anchor().AIRMTargets(nil, []*Target{tg}) }, ErrDimension, ""},
		},
		"AIRMPairs": {
			{"nil Anchor", func() error {
				tg, _ := NewTarget(good)
				return AIRMPairs(make([]float64, 1), []*Anchor{nil}, []*Target{tg})
			}, ErrParameter, ""},
			{"zero Anchor", func() error {
				tg, _ := NewTarget(good)
				return AIRMPairs(make([]float64, 1), []*Anchor{{}}, []*Target{tg})
			}, ErrParameter, ""},
			{"nil Target", func() error { return AIRMPairs(make([]float64, 1), []*Anchor{anchor()}, []*Target{nil}) }, ErrParameter, ""},
			{"Target of another size", func() error {
				tg, _ := NewTarget(good3)
				return AIRMPairs(make([]float64, 1), []*Anchor{anchor()}, []*Target{tg})
			}, ErrDimension, ""},
			{"anchors of two sizes", func() error {
				tg, _ := NewTarget(good)
				a3, _ := NewAnchor(good3)
				return AIRMPairs(make([]float64, 2), []*Anchor{anchor(), a3}, []*Target{tg, tg})
			}, ErrDimension, ""},
			{"dst of another length", func() error {
				tg, _ := NewTarget(good)
				return AIRMPairs(nil, []*Anchor{anchor()}, []*Target{tg})
			}, ErrDimension, ""},
			{"targets of another length", func() error { return AIRMPairs(make([]float64, 1), []*Anchor{anchor()}, nil) }, ErrDimension, ""},
		},
		"Anchor.Reset": {
			{"nil Anchor", func() error { return check(!(*Anchor)(nil).Reset(good), "true") }, nil, ""},
			{"zero Anchor", func() error { return check(!(&Anchor{}).Reset(good), "true") }, nil, ""},
			{"refused x leaves the anchor as it was", func() error {
				a := anchor()
				want, _ := a.AIRM(diag(1, 1))
				for _, x := range []mat.Symmetric{nil, nilSym, &mat.SymDense{}, badSym{diag(1, 1)}, hugeSym{}, good3, nanM, infM, indef, singular, nearSing} {
					if a.Reset(x) {
						return fmt.Errorf("Reset(%T) = true", x)
					}
					if got, err := a.AIRM(diag(1, 1)); err != nil || got != want {
						return fmt.Errorf("after Reset(%T): %v, %v, want %v", x, got, err, want)
					}
				}
				if !a.Reset(asym) {
					return errors.New("Reset of an upper-triangle twin of an SPD matrix = false")
				}
				got, err := a.AIRM(diag(1, 1))
				return check(err == nil && got == want, "after Reset(asym): %v, %v, want %v", got, err, want)
			}, nil, ""},
		},

		"KarcherMean":      badMeanCases(KarcherMean, true),
		"SteinMean":        badMeanCases(SteinMean, true),
		"WassersteinMean":  badMeanCases(WassersteinMean, true),
		"LogEuclideanMean": badMeanCases(LogEuclideanMean, false),
		"HarmonicMean":     badMeanCases(HarmonicMean, false),
		"ArithmeticMean":   badMeanCases(ArithmeticMean, false),
		"FitSpectrum": {
			{"nil set", func() error { _, err := FitSpectrum(nil); return err }, ErrEmpty, ""},
			{"empty set", func() error { _, err := FitSpectrum(set.Subset(nil)); return err }, ErrEmpty, ""},
		},
		"Spectrum.Draw": {
			{"empty", func() error { _, err := Spectrum{}.Draw(rand.New(rand.NewPCG(1, 1))); return err }, ErrEmpty, ""},
			{"lengths differ", func() error {
				_, err := Spectrum{Mean: []float64{0, 0}, Std: []float64{1}}.Draw(rand.New(rand.NewPCG(1, 1)))
				return err
			}, ErrDimension, ""},
			{"nil rng", func() error { _, err := Spectrum{Mean: []float64{0}, Std: []float64{1}}.Draw(nil); return err }, ErrParameter, ""},
			{"NaN mean", func() error {
				_, err := Spectrum{Mean: []float64{math.NaN()}, Std: []float64{1}}.Draw(rand.New(rand.NewPCG(1, 1)))
				return err
			}, ErrNotFinite, ""},
			{"Inf std", func() error {
				_, err := Spectrum{Mean: []float64{0}, Std: []float64{math.Inf(1)}}.Draw(rand.New(rand.NewPCG(1, 1)))
				return err
			}, ErrNotFinite, ""},
			{"negative std", func() error {
				_, err := Spectrum{Mean: []float64{0}, Std: []float64{-1}}.Draw(rand.New(rand.NewPCG(1, 1)))
				return err
			}, ErrParameter, ""},
			{"eigenvalue overflows", func() error {
				_, err := Spectrum{Mean: []float64{1000}, Std: []float64{0}}.Draw(rand.New(rand.NewPCG(1, 1)))
				return err
			}, ErrNotFinite, ""},
		},
		"RandomOrthogonal": {
			{"d = 0", func() error { _, err := RandomOrthogonal(0, rand.New(rand.NewPCG(1, 1))); return err }, ErrDimension, ""},
			{"d too large", func() error { _, err := RandomOrthogonal(1<<20, rand.New(rand.NewPCG(1, 1))); return err }, ErrDimension, ""},
			{"nil rng", func() error { _, err := RandomOrthogonal(3, nil); return err }, ErrParameter, ""},
		},
		"Wishart": {
			{"d = 0", func() error { _, err := Wishart(0, 1, rand.New(rand.NewPCG(1, 1))); return err }, ErrDimension, ""},
			{"nu < d", func() error { _, err := Wishart(3, 2, rand.New(rand.NewPCG(1, 1))); return err }, ErrParameter, ""},
			{"nil rng", func() error { _, err := Wishart(3, 4, nil); return err }, ErrParameter, ""},
		},
		"KMeans": slices.Concat(
			setCases(t, func(s *Set) error { return kmeans(s, kmOK) }),
			metricCases(func(m Metric) error { return kmeans(set, KMeansOptions{K: 1, Metric: m}) }),
			[]badCase{
				{"K 0", func() error { return kmeans(set, KMeansOptions{K: 0, Metric: AIRMMetric}) }, ErrParameter, ""},
				{"K > Len", func() error { return kmeans(set, KMeansOptions{K: 3, Metric: AIRMMetric}) }, ErrParameter, ""},
				{"logeuclid", func() error { return kmeans(set, KMeansOptions{K: 1, Metric: LogEuclideanMetric}) }, ErrParameter, ""},
				{"MaxIter -1", func() error { return kmeans(set, KMeansOptions{K: 1, Metric: AIRMMetric, MaxIter: -1}) }, ErrParameter, ""},
				{"Tol NaN", func() error { return kmeans(set, KMeansOptions{K: 1, Metric: AIRMMetric, Tol: math.NaN()}) }, ErrParameter, ""},
				{"Tol -1", func() error { return kmeans(set, KMeansOptions{K: 1, Metric: AIRMMetric, Tol: -1}) }, ErrParameter, ""},
				{"Tol Inf", func() error { return kmeans(set, KMeansOptions{K: 1, Metric: AIRMMetric, Tol: math.Inf(1)}) }, ErrParameter, ""},
				{"Workers -1", func() error { return kmeans(set, KMeansOptions{K: 1, Metric: AIRMMetric, Workers: -1}) }, ErrParameter, ""},
				{"huge Workers", func() error { return kmeans(set, KMeansOptions{K: 2, Metric: SteinMetric, Workers: 1 << 40}) }, nil, ""},
				{"OnIteration error", func() error {
					return kmeans(set, KMeansOptions{K: 1, Metric: AIRMMetric, OnIteration: func(int, []*mat.SymDense) error { return ErrEmpty }})
				}, ErrEmpty, ""},
			}),

		"Metrics": {{"all valid", func() error {
			for _, m := range Metrics() {
				if p, err := ParseMetric(m.String()); err != nil || p != m {
					return fmt.Errorf("%v: %v, %v", m, p, err)
				}
			}
			return nil
		}, nil, ""}},
		"ParseMetric": {
			{"empty", func() error { return errOf(ParseMetric("")) }, ErrParameter, ""},
			{"upper case", func() error { return errOf(ParseMetric("AIRM")) }, ErrParameter, ""},
			{"logdet", func() error { return errOf(ParseMetric("logdet")) }, ErrParameter, ""},
		},
		"DeprecatedMetricName": {{"not deprecated, or no name", func() error {
			for _, name := range []string{"", "airm", "riemann", "log-euclidean", "logdet", "LOGEUCLID"} {
				if c, dep := DeprecatedMetricName(name); dep || c != "" {
					return fmt.Errorf("%q: %q, %v", name, c, dep)
				}
			}
			return nil
		}, nil, ""}},
		"Metric.String": {{"invalid", func() error {
			return check(Metric(0).String() == "Metric(0)" && Metric(-3).String() == "Metric(-3)", "%q", Metric(0).String())
		}, nil, ""}},
		"Metric.MarshalText": metricCases(func(m Metric) error { return errOf(m.MarshalText()) }),
		"Metric.UnmarshalText": {
			{"unknown name leaves m", func() error {
				m := SteinMetric
				err := m.UnmarshalText([]byte("logdet"))
				if m != SteinMetric {
					return fmt.Errorf("m changed to %v", m)
				}
				return err
			}, ErrParameter, ""},
			{"nil *Metric", func() error { return (*Metric)(nil).UnmarshalText([]byte("airm")) }, ErrParameter, ""},
		},
	}
	// A nil context is a bad parameter, not a panic in a worker whose
	// stack would end up in the message.
	nilCtx := map[string]func(ctx context.Context) error{
		"SteinKernel.Gram":    func(ctx context.Context) error { return errOf(SteinKernel{Sigma: 1}.Gram(ctx, set, set, nil)) },
		"SteinKernel.GramSym": func(ctx context.Context) error { return errOf(SteinKernel{Sigma: 1}.GramSym(ctx, set, nil)) },
		"SteinDivergences":    func(ctx context.Context) error { return errOf(SteinDivergences(ctx, set, set, nil)) },
		"SteinDivergencesSym": func(ctx context.Context) error { return errOf(SteinDivergencesSym(ctx, set, nil)) },
		"SteinBlockTo": func(ctx context.Context) error {
			return SteinBlockTo(ctx, mat.NewDense(1, 1, nil), set, []int{0}, set, []int{0}, nil)
		},
		"SteinSymBlock":    func(ctx context.Context) error { return errOf(SteinSymBlock(ctx, set, []int{0, 1}, nil)) },
		"KarcherMean":      nilCtxMean(KarcherMean, good),
		"SteinMean":        nilCtxMean(SteinMean, good),
		"WassersteinMean":  nilCtxMean(WassersteinMean, good),
		"LogEuclideanMean": nilCtxMean(LogEuclideanMean, good),
		"HarmonicMean":     nilCtxMean(HarmonicMean, good),
		"ArithmeticMean":   nilCtxMean(ArithmeticMean, good),
		"KMeans":           func(ctx context.Context) error { return errOf(KMeans(ctx, set, kmOK)) },
		"TangentVectors":   func(ctx context.Context) error { return errOf(TangentVectors(ctx, set, nil, good, 1)) },
	}
	for name, call := range nilCtx {
		table[name] = append(table[name], badCase{"nil ctx", func() error {
			err := call(nil)
			if err != nil && strings.Contains(err.Error(), "goroutine") {
				return fmt.Errorf("a stack in the message: %v", err)
			}
			return err
		}, ErrParameter, ""})
	}
	return table
}

// meanFunc is the shape every mean shares.
type meanFunc func(context.Context, []*mat.SymDense, *MeanOptions) (*mat.SymDense, MeanInfo, error)

// badMeanCases returns the bad inputs of a mean: the matrices (an empty or
// nil slice, a nil or empty element, sizes that differ, NaN, Inf, an
// indefinite or a singular matrix), the options (tolerance, cap,
// weights, workers) and, for an iterative mean, the iteration cap.
func badMeanCases(mean meanFunc, iterative bool) []badCase {
	good, good3 := diag(1, 2), diag(1, 2, 3)
	nanM, infM := diag(1, math.NaN()), diag(math.Inf(1), 1)
	indef, singular := diag(1, -2), mat.NewSymDense(2, []float64{1, 1, 1, 1})
	call := func(xs []*mat.SymDense, o *MeanOptions) error {
		_, _, err := mean(context.Background(), xs, o)
		return err
	}
	cs := []badCase{
		{"nil slice", func() error { return call(nil, nil) }, ErrEmpty, ""},
		{"empty slice", func() error { return call([]*mat.SymDense{}, nil) }, ErrEmpty, ""},
		{"nil element", func() error { return call([]*mat.SymDense{good, nil}, nil) }, ErrEmpty, ""},
		{"empty element", func() error { return call([]*mat.SymDense{&mat.SymDense{}}, nil) }, ErrEmpty, ""},
		{"sizes differ", func() error { return call([]*mat.SymDense{good, good3}, nil) }, ErrDimension, ""},
		{"NaN", func() error { return call([]*mat.SymDense{good, nanM}, nil) }, ErrNotFinite, ""},
		{"Inf", func() error { return call([]*mat.SymDense{infM}, nil) }, ErrNotFinite, ""},
		{"indefinite", func() error { return call([]*mat.SymDense{good, indef}, nil) }, ErrNotSPD, ""},
		{"singular", func() error { return call([]*mat.SymDense{singular}, nil) }, ErrNotSPD, ""},
	}
	if iterative {
		cs = append(cs, badCase{"iteration cap", func() error {
			// Not commuting: commuting matrices take one update.
			return call([]*mat.SymDense{good, diag(1, 9), mat.NewSymDense(2, []float64{2, 1, 1, 2})}, &MeanOptions{MaxIter: 1, Tol: 1e-300})
		}, ErrNoConvergence, ""})
	}
	for _, o := range []MeanOptions{{Tol: -1}, {Tol: math.NaN()}, {Tol: math.Inf(1)}, {MaxIter: -1}, {Workers: -1},
		{Weights: []float64{1}}, {Weights: []float64{1, 1, 1}}, {Weights: []float64{1, math.NaN()}}, {Weights: []float64{1, -1}},
		{Weights: []float64{0, 0}}, {Weights: []float64{1, math.Inf(1)}}} {
		cs = append(cs, badCase{fmt.Sprintf("options %+v", o), func() error { return call([]*mat.SymDense{good, good}, &o) }, ErrParameter, ""})
	}
	return cs
}

// nilCtxMean calls mean with a nil context.
func nilCtxMean(mean meanFunc, x *mat.SymDense) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		_, _, err := mean(ctx, []*mat.SymDense{x, x}, nil)
		return err
	}
}

// anchorAIRMCases returns the cases of Anchor.AIRM, which refuses an
// indefinite Y but, without the SPD-enough test, may give a finite
// distance for a singular one.
func anchorAIRMCases(anchor func() *Anchor) []badCase {
	var cs []badCase
	for _, c := range matCases("Y", needSPD|sized, func(y mat.Symmetric) (any, error) { return anchor().AIRM(y) }) {
		if strings.HasSuffix(c.name, "singular") {
			call := c.call
			c.call = func() error {
				if err := call(); err != nil && !errors.Is(err, ErrNotSPD) {
					return err
				}
				return nil // ErrNotSPD or a distance, which must be finite:
			}
			c.want = nil
		}
		cs = append(cs, c)
	}
	for _, y := range []*mat.SymDense{singular, nearSing} {
		cs = append(cs, badCase{fmt.Sprintf("Y %v: ErrNotSPD or a finite distance", mat.Formatted(y, mat.Squeeze())), func() error {
			d, err := anchor().AIRM(y)
			if errors.Is(err, ErrNotSPD) || (err == nil && !math.IsNaN(d) && !math.IsInf(d, 0)) {
				return nil
			}
			return fmt.Errorf("%v, %v", d, err)
		}, nil, ""})
	}
	return append(cs,
		badCase{"nil Anchor", func() error { return errOf((*Anchor)(nil).AIRM(good)) }, ErrParameter, ""},
		badCase{"zero Anchor", func() error { return errOf((&Anchor{}).AIRM(good)) }, ErrParameter, ""})
}

// exportedAPI returns the exported functions and the exported methods of
// exported types of the package ("Func", "Type.Method"), from its source.
func exportedAPI(t *testing.T) []string {
	names, _ := exportedSignatures(t)
	return names
}

// apiNeeds is what the bad-input cases of an exported function or method
// must include, from its signature.
type apiNeeds struct {
	ctx        bool // its first parameter is a context.Context: a "nil ctx" case
	nilReceive bool // a method of a pointer receiver: a "nil" receiver case
}

// exportedSignatures returns exportedAPI and, by name, what each one's
// signature asks of its cases.
func exportedSignatures(t *testing.T) ([]string, map[string]apiNeeds) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	needs := map[string]apiNeeds{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			var n apiNeeds
			if ps := fn.Type.Params.List; len(ps) > 0 {
				if sel, ok := ps[0].Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Context" {
					n.ctx = true
				}
			}
			if fn.Recv == nil {
				names = append(names, fn.Name.Name)
				needs[fn.Name.Name] = n
				continue
			}
			typ := fn.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
				n.nilReceive = true
			}
			if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
				names = append(names, id.Name+"."+fn.Name.Name)
				needs[id.Name+"."+fn.Name.Name] = n
			}
		}
	}
	slices.Sort(names)
	return names, needs
}

// nilMean returns an error unless m has no mean (MeanOf gives nil).
func nilMean(m Metric) error {
	if MeanOf(m) != nil {
		return fmt.Errorf("MeanOf(%v) is not nil", m)
	}
	return nil
}

// newPacker returns a Packer of one 2×2 matrix.
func newPacker(t *testing.T) *Packer {
	t.Helper()
	p, err := NewPacker(2, 1, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hasCase reports whether one of cases has a name containing sub.
func hasCase(cases []badCase, sub string) bool {
	return slices.ContainsFunc(cases, func(c badCase) bool { return strings.Contains(c.name, sub) })
}

// TestBadInputCoversAPI fails for an exported function or method without
// bad-input cases, one taking a context without a "nil ctx" case, a
// method of a pointer receiver without a case of a nil receiver (its
// name holding "nil"), and for a table entry that names none.
func TestBadInputCoversAPI(t *testing.T) {
	table := badInputTable(t)
	api, needs := exportedSignatures(t)
	if len(api) < 60 {
		t.Fatalf("found only %d exported functions and methods: %v", len(api), api)
	}
	for _, name := range api {
		cases := table[name]
		switch {
		case len(cases) == 0:
			t.Errorf("%s has no bad-input cases in badInputTable", name)
		case needs[name].ctx && !hasCase(cases, "nil ctx"):
			t.Errorf("%s takes a context but has no \"nil ctx\" case in badInputTable", name)
		case needs[name].nilReceive && !hasCase(cases, "nil"):
			t.Errorf("%s has a pointer receiver but no case of a nil one in badInputTable", name)
		}
	}
	for name := range table {
		if !slices.Contains(api, name) {
			t.Errorf("badInputTable lists %s, which is not an exported function or method", name)
		}
	}
}

// TestBadInput runs every case of badInputTable.
func TestBadInput(t *testing.T) {
	table := badInputTable(t)
	for _, name := range exportedAPI(t) {
		for _, tc := range table[name] {
			recovered, err := panictest.Recover(tc.call)
			where := name + ": " + tc.name
			switch {
			case tc.panics != "":
				if recovered == nil || !strings.Contains(fmt.Sprint(recovered), tc.panics) {
					t.Errorf("%s: recovered %v (error %v), want a panic containing %q", where, recovered, err, tc.panics)
				}
			case recovered != nil:
				t.Errorf("%s: panic: %v", where, recovered)
			case tc.want == nil && err != nil:
				t.Errorf("%s: %v, want success", where, err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Errorf("%s: %v, want an error wrapping %v", where, err, tc.want)
			}
		}
	}
}

// symCopy returns a copy of x.
func symCopy(x *mat.SymDense) *mat.SymDense {
	c := mat.NewSymDense(x.SymmetricDim(), nil)
	c.CopySym(x)
	return c
}
