package rsr

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// TestRiemannianStepIsGradient checks the Riemannian step against finite
// differences: the first-order change of J along the geodesic D_r(t) of
// one atom is −t‖grad‖²: σ tr((F−2G−γD⁻¹) Ḋ) with Ḋ = −σ S(M − γI)S must
// equal the numerical derivative of J (codes fixed) at t = 0.
func TestRiemannianStepIsGradient(t *testing.T) {
	l := smallLearner(t, 21, 30, 4, 5, true)
	ws := newAtomWork(l.d, l.n)
	dd := l.d * l.d
	for r := range l.n {
		st := riemannStep{s: make([]float64, dd), p: make([]float64, dd), e: make([]float64, l.d)}
		if err := l.riemannDirection(&st, r, ws); err != nil {
			t.Fatal(err)
		}
		if !st.used {
			continue
		}
		steps := make([]riemannStep, l.n)
		steps[r] = st
		jAt := func(h float64) float64 {
			save, saveKx, saveK := l.atoms, l.kx, append([]float64(nil), l.kfull...)
			defer func() { l.atoms, l.kx = save, saveKx; copy(l.kfull, saveK) }()
			cand, err := l.stepAtoms(steps, h, ws)
			if err != nil {
				t.Fatal(err)
			}
			l.atoms = cand
			if err := l.kernels(context.Background()); err != nil {
				t.Fatal(err)
			}
			var j float64
			for i := range l.m {
				j += energy(l.codes.RawRowView(i), l.kx.RawRowView(i), l.kfull, l.lambda[i])
			}
			return j
		}
		const h = 1e-6
		numeric := (jAt(h) - jAt(-h)) / (2 * h)
		sigma := l.o.Kernel.Sigma
		var want float64
		for _, e := range st.e {
			want -= sigma * sigma * (e - st.gamma) * (e - st.gamma)
		}
		if math.Abs(numeric-want) > 1e-4*math.Abs(want)+1e-9 {
			t.Errorf("atom %d: dJ/dt at 0 = %.10g numerically, −‖grad‖² = %.10g", r, numeric, want)
		}
	}
}

// TestFitDictionaryRiemannian checks that the Riemannian update lowers J
// at every atom update and every coding step, keeps the atoms SPD, and
// reports the J it reached.
func TestFitDictionaryRiemannian(t *testing.T) {
	train := trainingMixtures(t, 7, 60)
	o := DictionaryOptions{Atoms: 8, Kernel: spd.SteinKernel{Sigma: 2}, Lasso: LassoOptions{Lambda: 0.05}, Iters: 8, Update: RiemannianGradient, Seed: 3}
	dict, err := FitDictionary(context.Background(), train, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range dict.History {
		if !(it.JUpdated <= it.J) {
			t.Errorf("iteration %d: the Riemannian step took J from %.10g to %.10g", i, it.J, it.JUpdated)
		}
		next := dict.J
		if i+1 < len(dict.History) {
			next = dict.History[i+1].J
		}
		if next > it.JUpdated*(1+1e-9) {
			t.Errorf("iteration %d: sparse coding raised J from %.10g to %.10g", i, it.JUpdated, next)
		}
	}
	if first, last := dict.History[0].J, dict.J; !(last < 0.97*first) {
		t.Errorf("J went from %.6g to only %.6g", first, last)
	}
	for r := range o.Atoms {
		var ch mat.Cholesky
		if !ch.Factorize(dict.Atoms.At(r)) {
			t.Errorf("atom %d is not positive definite", r)
		}
	}
	if _, err := ParseAtomUpdate("newton"); !errors.Is(err, ErrInput) {
		t.Errorf("unknown update: %v", err)
	}
	for _, u := range atomUpdates {
		if got, err := ParseAtomUpdate(u.String()); err != nil || got != u {
			t.Errorf("ParseAtomUpdate(%q) = %v, %v", u, got, err)
		}
	}
	o.Update = 9
	if _, err := FitDictionary(context.Background(), train, o); !errors.Is(err, ErrInput) {
		t.Errorf("unknown update: %v", err)
	}
}

// TestRandomAtoms checks the random SPD initialisations: random-spd atoms
// have the training set's log-spectrum on average, Wishart atoms a mean
// near I whatever the training set, both seeded.
func TestRandomAtoms(t *testing.T) {
	train := scaledSet(t, trainingMixtures(t, 5, 50), 1000)
	spec, err := spd.FitSpectrum(train)
	if err != nil {
		t.Fatal(err)
	}
	atoms, err := RandomSPDAtoms(train, 400, 9)
	if err != nil {
		t.Fatal(err)
	}
	// E log det = Σ_r Mean[r], whatever the order of the draws.
	var want, logdet float64
	for _, m := range spec.Mean {
		want += m
	}
	for k := range atoms.Len() {
		var ch mat.Cholesky
		if !ch.Factorize(atoms.At(k)) {
			t.Fatalf("atom %d is not positive definite", k)
		}
		logdet += ch.LogDet() / float64(atoms.Len())
	}
	var spread float64
	for _, s := range spec.Std {
		spread += s * s
	}
	if math.Abs(logdet-want) > 4*math.Sqrt(spread/float64(atoms.Len())) {
		t.Errorf("atoms' mean log det %.4g, the training set's %.4g", logdet, want)
	}
	again, _ := RandomSPDAtoms(train, 400, 9)
	if !mat.Equal(again.At(17), atoms.At(17)) {
		t.Error("random-spd atoms differ for one seed")
	}
	w, err := WishartAtoms(5, 400, 9)
	if err != nil {
		t.Fatal(err)
	}
	var tr float64
	for k := range w.Len() {
		tr += mat.Trace(w.At(k)) / 400
	}
	if math.Abs(tr-5) > 0.3 {
		t.Errorf("Wishart atoms: mean trace %.4g, want 5", tr)
	}
	// Bad sizes, and sizes whose atoms would exceed the memory limit,
	// refused before anything is drawn.
	for _, tc := range []struct {
		name string
		call func() (*spd.Set, error)
		want string // a substring of a memory error; "" for another
	}{
		{"0 random-spd atoms", func() (*spd.Set, error) { return RandomSPDAtoms(train, 0, 1) }, ""},
		{"1e9 random-spd atoms", func() (*spd.Set, error) { return RandomSPDAtoms(train, 1e9, 1) }, "n: 1000000000 random atoms of 5×5, about 492 GiB, over the memory limit of 4 GiB"},
		{"d = 0", func() (*spd.Set, error) { return WishartAtoms(0, 3, 1) }, ""},
		{"1e9 Wishart atoms", func() (*spd.Set, error) { return WishartAtoms(3, 1e9, 1) }, "n: 1000000000 random atoms of 3×3, about 253 GiB"},
	} {
		atoms, err := tc.call()
		if !errors.Is(err, ErrInput) || atoms != nil || tc.want != "" && (!errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want an error wrapping ErrInput containing %q", tc.name, err, tc.want)
		}
	}
	for _, init := range []InitMethod{InitRandomSPD, InitWishart} {
		o := DictionaryOptions{Atoms: 6, Kernel: spd.SteinKernel{Sigma: 2}, Lasso: LassoOptions{Lambda: 0.05}, Iters: 2, Init: init, Seed: 3, KeepScale: true}
		if _, err := FitDictionary(context.Background(), trainingMixtures(t, 7, 40), o); err != nil {
			t.Errorf("init %v: %v", init, err)
		}
		if got, err := ParseInitMethod(init.String()); err != nil || got != init {
			t.Errorf("ParseInitMethod(%q) = %v, %v", init, got, err)
		}
	}
}
