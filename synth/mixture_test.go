package synth

import (
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// paperMixture returns the options of the paper's Fig. 7 experiment.
func paperMixture() MixtureOptions {
	return MixtureOptions{Sources: 32, Dim: 5, Points: 100, Samples: 512, Mix: 4}
}

func TestMixture(t *testing.T) {
	o := paperMixture()
	src, smp, err := Mixture(o, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(src) != 32 || len(smp) != 512 {
		t.Fatalf("%d sources, %d samples", len(src), len(smp))
	}
	for i, s := range append(append([]*mat.SymDense{}, src...), smp...) {
		var ch mat.Cholesky
		if r, _ := s.Dims(); r != 5 || !ch.Factorize(s) {
			t.Fatalf("matrix %d is not 5×5 SPD", i)
		}
	}
	// A source is a sample covariance of 100 draws of variance in
	// [0.5, 2): its trace lies well inside (0.5·5·0.5, 2·5·2).
	for i, s := range src {
		if tr := mat.Trace(s); tr < 1.25 || tr > 20 {
			t.Errorf("source %d has trace %v", i, tr)
		}
	}
	src2, smp2, _ := Mixture(o, 3)
	if !mat.Equal(src[7], src2[7]) || !mat.Equal(smp[100], smp2[100]) {
		t.Error("same seed, different data")
	}
	_, other, _ := Mixture(o, 4)
	if mat.Equal(smp[0], other[0]) {
		t.Error("the seed does not change the data")
	}
	for _, bad := range []MixtureOptions{{}, {Sources: 4, Dim: 5, Points: 5, Samples: 2, Mix: 2}, {Sources: 4, Dim: 5, Points: 10, Samples: 2, Mix: 5}} {
		if _, _, err := Mixture(bad, 1); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: error %v, want ErrConfig", bad, err)
		}
	}
}
