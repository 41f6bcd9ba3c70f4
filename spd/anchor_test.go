package spd

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/covpipe/covpipe/internal/dense"
	"github.com/covpipe/covpipe/internal/roofline"
	"gonum.org/v1/gonum/mat"
)

func TestAnchorMatchesAIRM(t *testing.T) {
	s, ms := randSet(t, 40, 12, 6)
	a, err := NewAnchor(ms[0])
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		if !a.Reset(s.View(k)) {
			t.Fatal("reset failed")
		}
		for j := range ms {
			want, _ := AIRM(ms[k], ms[j])
			got, err := a.AIRM(s.View(j))
			if err != nil {
				t.Fatal(err)
			}
			assertClose(t, "anchored AIRM", got, want, 1e-10)
		}
	}
	if _, err := a.AIRM(diag(1, 2)); !errors.Is(err, ErrDimension) {
		t.Errorf("size mismatch: %v", err)
	}
	if _, err := NewAnchor(diag(1, -1)); !errors.Is(err, ErrNotSPD) {
		t.Errorf("indefinite anchor: %v", err)
	}
}

func BenchmarkAnchorAIRM(b *testing.B) {
	for _, d := range []int{5, 17, 43} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			s, ms := randSet(b, 41, 2, d)
			a, _ := NewAnchor(ms[0])
			for b.Loop() {
				if _, err := a.AIRM(s.View(1)); err != nil {
					b.Fatal(err)
				}
			}
			roofline.Report(b, airmFlops(d)-cholFlops(d)) // X's factor cached
		})
	}
}

// TestAnchorTargetEqualsAIRM wants AIRMTarget bit for bit what
// Workspace.AIRM and Anchor.AIRM give, at sizes on both sides of
// dense.PlainMaxD (the fast route and the general one), and the errors
// of bad targets.
func TestAnchorTargetEqualsAIRM(t *testing.T) {
	for _, d := range []int{2, 5, 17, dense.PlainMaxD + 3} {
		s, ms := randSet(t, uint64(50+d), 6, d)
		w := NewWorkspace(d)
		a, err := NewAnchor(ms[0])
		if err != nil {
			t.Fatal(err)
		}
		for j := range ms {
			tg, err := NewTarget(s.View(j))
			if err != nil {
				t.Fatal(err)
			}
			for k := range ms {
				if !a.Reset(s.View(k)) {
					t.Fatal("reset failed")
				}
				want, err := w.AIRM(s.View(k), s.View(j))
				if err != nil {
					t.Fatal(err)
				}
				anchored, _ := a.AIRM(s.View(j))
				got, err := a.AIRMTarget(tg)
				if err != nil || got != want || anchored != want {
					t.Errorf("d=%d, X = %d, Y = %d: AIRMTarget %v (%v), Anchor.AIRM %v, want %v", d, k, j, got, err, anchored, want)
				}
			}
		}
	}
	a, _ := NewAnchor(diag(1, 2, 3))
	good, _ := NewTarget(diag(1, 2))
	for _, c := range []struct {
		name string
		tg   *Target
		want error
	}{{"nil", nil, ErrParameter}, {"zero", &Target{}, ErrParameter}, {"2×2 for 3×3", good, ErrDimension}} {
		if _, err := a.AIRMTarget(c.tg); !errors.Is(err, c.want) {
			t.Errorf("%s target: %v, want %v", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		y    mat.Symmetric
		want error
	}{{"indefinite", diag(1, -1), ErrNotSPD}, {"NaN", diag(1, math.NaN()), ErrNotFinite}, {"empty", &mat.SymDense{}, ErrEmpty}} {
		if _, err := NewTarget(c.y); !errors.Is(err, c.want) {
			t.Errorf("NewTarget of an %s matrix: %v, want %v", c.name, err, c.want)
		}
	}
}
