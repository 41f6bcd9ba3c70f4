package rsr_test

import (
	"context"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/mat"
)

func denseOf(rows [][]float64) *mat.Dense {
	m := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

// synthetic draws the synthetic training and test data of o with seed.
func synthetic(tb testing.TB, o synth.Options, seed uint64) (train, test synth.Data) {
	tb.Helper()
	train, test, err := synth.Classes(o, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return train, test
}

// mustSet returns the SPD set of ms.
func mustSet(tb testing.TB, ms []*mat.SymDense) *spd.Set {
	tb.Helper()
	s, err := spd.NewSet(ms)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// steinGrams returns the Gram matrix K of the kernel k on the atoms and
// the kernel values of the queries against the atoms, one row a query.
func steinGrams(tb testing.TB, k spd.SteinKernel, atoms, queries []*mat.SymDense) (K *mat.SymDense, kx *mat.Dense) {
	tb.Helper()
	as := mustSet(tb, atoms)
	K, err := k.GramSym(context.Background(), as, nil)
	if err != nil {
		tb.Fatal(err)
	}
	kx, err = k.Gram(context.Background(), mustSet(tb, queries), as, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return K, kx
}
