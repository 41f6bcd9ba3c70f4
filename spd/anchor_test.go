package spd

import (
	"errors"
	"fmt"
	"testing"

	"github.com/covpipe/covpipe/internal/roofline"
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
