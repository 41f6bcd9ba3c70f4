package synth_test

import (
	"fmt"

	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
)

// The paper's synthetic protocol: 4 classes on Sym+^3, 512 samples, half
// for training; every sample is SPD.
func ExampleClasses() {
	train, test, err := synth.Classes(synth.Paper(1, 0.5), 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	set, err := spd.NewSet(append(train.X, test.X...))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(train.X), len(test.X), set.Dim(), train.Labels[0], test.Labels[len(test.Labels)-1])
	// Output: 256 256 3 0 3
}

// A model fixes the class base points; each Sample draws a fresh split
// around them, as the paper's repeats do.
func ExampleModel_Sample() {
	m, err := synth.NewModel(synth.Paper(1, 2), 7)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _, _ := m.Sample(1)
	b, _, _ := m.Sample(2)
	fmt.Println(len(m.Bases()), len(a.X), a.X[0].At(0, 0) != b.X[0].At(0, 0))
	// Output: 4 256 true
}

// The data of the Fig. 7 experiment: 512 mixtures of 4 of 32 sources on
// Sym+^5.
func ExampleMixture() {
	sources, samples, err := synth.Mixture(synth.MixtureOptions{Sources: 32, Dim: 5, Points: 100, Samples: 512, Mix: 4}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(sources), len(samples), samples[0].SymmetricDim())
	// Output: 32 512 5
}
