package spd

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		a       mat.Matrix
		want    error
		message string
	}{
		{"identity", mat.NewDense(2, 2, []float64{1, 0, 0, 1}), nil, ""},
		{"SPD dense", mat.NewDense(2, 2, []float64{2, 1, 1, 2}), nil, ""},
		{"round-off asymmetry", mat.NewDense(2, 2, []float64{2, 1, 1 + 1e-14, 2}), nil, ""},
		{"nil", nil, ErrEmpty, ""},
		{"zero-value dense", &mat.Dense{}, ErrEmpty, ""},
		{"not square", mat.NewDense(2, 3, []float64{1, 0, 0, 0, 1, 0}), ErrNotSquare, "2×3"},
		{"NaN", mat.NewDense(2, 2, []float64{1, math.NaN(), math.NaN(), 1}), ErrNotFinite, "a[0][1]"},
		{"Inf", mat.NewSymDense(2, []float64{math.Inf(1), 0, 0, 1}), ErrNotFinite, "a[0][0]"},
		{"asymmetric", mat.NewDense(2, 2, []float64{2, 1, 1.5, 2}), ErrNotSymmetric, "a[0][1] = 1 but a[1][0] = 1.5"},
		{"indefinite", mat.NewSymDense(2, []float64{1, 2, 2, 1}), ErrNotSPD, "Cholesky"},
		{"singular", mat.NewSymDense(2, []float64{1, 1, 1, 1}), ErrNotSPD, ""},
		{"zero", mat.NewSymDense(3, nil), ErrNotSPD, ""},
		{"negative definite", diag(-1, -2), ErrNotSPD, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.a)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate: unexpected error %v", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Validate: got %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.message) {
				t.Errorf("error %q does not mention %q", err, tc.message)
			}
		})
	}
}

func TestValidateTolerance(t *testing.T) {
	a := mat.NewDense(2, 2, []float64{1, 0.5, 0.5 + 1e-6, 1})
	if err := ValidateTol(a, 1e-3); err != nil {
		t.Errorf("loose tolerance: %v", err)
	}
	if err := ValidateTol(a, 1e-9); !errors.Is(err, ErrNotSymmetric) {
		t.Errorf("tight tolerance: got %v, want ErrNotSymmetric", err)
	}
	if err := ValidateTol(a, -1); !errors.Is(err, ErrParameter) {
		t.Errorf("negative tolerance: got %v, want ErrParameter", err)
	}
}

func TestFromMatrixSymmetrises(t *testing.T) {
	a := mat.NewDense(2, 2, []float64{2, 1, 1 + 1e-12, 3})
	s, err := FromMatrix(a)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.At(0, 1), 1+0.5e-12; got != want {
		t.Errorf("off-diagonal %v, want the average %v", got, want)
	}
	if _, err := FromMatrix(mat.NewDense(1, 2, []float64{1, 2})); !errors.Is(err, ErrNotSquare) {
		t.Errorf("non-square: got %v", err)
	}
}

func TestRidges(t *testing.T) {
	x := diag(1, 2, 3, 6) // trace 12, d 4: mean eigenvalue 3
	if err := AddRidge(x, 0.5); err != nil {
		t.Fatal(err)
	}
	assertSymClose(t, "AddRidge", x, diag(1.5, 2.5, 3.5, 6.5), 0)
	if err := AddTraceRidge(x, 0.1); err != nil { // trace 14 → ridge 0.1·14/4 = 0.35
		t.Fatal(err)
	}
	assertSymClose(t, "AddTraceRidge", x, diag(1.85, 2.85, 3.85, 6.85), 1e-15)
	for _, eps := range []float64{-1, math.NaN(), math.Inf(1)} {
		if err := AddRidge(x, eps); !errors.Is(err, ErrParameter) {
			t.Errorf("AddRidge(%v): got %v, want ErrParameter", eps, err)
		}
		if err := AddTraceRidge(x, eps); !errors.Is(err, ErrParameter) {
			t.Errorf("AddTraceRidge(%v): got %v, want ErrParameter", eps, err)
		}
	}
	d := diag(4, 1e-4)
	if err := AddDiagRidge(d, 0.5); err != nil {
		t.Fatal(err)
	}
	assertSymClose(t, "AddDiagRidge", d, diag(6, 1.5e-4), 1e-15)
	if err := AddDiagRidge(d, -1); !errors.Is(err, ErrParameter) {
		t.Errorf("AddDiagRidge(-1): %v", err)
	}
	// A singular covariance becomes SPD with a ridge.
	s := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	if err := AddTraceRidge(s, 1e-6); err != nil {
		t.Fatal(err)
	}
	if err := Validate(s); err != nil {
		t.Errorf("ridged singular matrix: %v", err)
	}
}

// FuzzValidate checks that Validate never panics and that what it accepts
// really is SPD: gonum's own Cholesky succeeds and every eigenvalue is
// positive.
func FuzzValidate(f *testing.F) {
	f.Add(uint8(2), []byte{0, 0, 0, 0, 0, 0, 240, 63, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 240, 63})
	f.Add(uint8(3), []byte("not a matrix at all"))
	f.Add(uint8(0), []byte{})
	f.Fuzz(func(t *testing.T, n uint8, raw []byte) {
		a := fuzzMatrix(n, raw)
		verr := Validate(a)
		// Every consumer agrees with Validate: on the symmetric part, it
		// accepts what Validate accepts and refuses with the same sentinel
		// what Validate refuses as not finite or not SPD.
		if a != nil && (verr == nil || errors.Is(verr, ErrNotSPD) || errors.Is(verr, ErrNotFinite)) {
			for name, err := range consumers(symPart(a)) {
				if name == "gonum Cholesky" {
					continue
				}
				switch {
				case verr == nil && err != nil:
					t.Fatalf("Validate accepted but %s: %v", name, err)
				case verr != nil && !errors.Is(err, ErrNotSPD) && !errors.Is(err, ErrNotFinite):
					t.Fatalf("Validate: %v, but %s: %v", verr, name, err)
				case verr != nil && errors.Is(verr, ErrNotSPD) != errors.Is(err, ErrNotSPD):
					t.Fatalf("Validate: %v, but %s: %v", verr, name, err)
				}
			}
		}
		if verr != nil {
			return
		}
		s, err := FromMatrix(a)
		if err != nil {
			t.Fatalf("Validate accepted but FromMatrix failed: %v", err)
		}
		if _, err := LogDet(s); err != nil {
			t.Fatalf("Validate accepted but LogDet failed: %v", err)
		}
	})
}
