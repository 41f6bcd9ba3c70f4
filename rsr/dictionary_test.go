package rsr

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// smallLearner returns a learner on m mixtures of d×d matrices whose
// atoms are N further mixtures, with codes from one sparse coding step at
// λ = 0.05.
func smallLearner(t *testing.T, seed uint64, m, n, d int, keepScale bool) *learner {
	t.Helper()
	all := mixtureSet(t, seed, m+n, d, 4, 2)
	idx := make([]int, m+n)
	for i := range idx {
		idx[i] = i
	}
	train := all.Subset(idx[:m])
	l, err := newLearner(context.Background(), train, DictionaryOptions{Atoms: n, Kernel: spd.SteinKernel{Sigma: 1}, Lasso: LassoOptions{Lambda: 0.05}, KeepScale: keepScale, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	l.atoms = all.Subset(idx[m:])
	if err := l.kernels(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.code(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	return l
}

// steinEnergy is the fit term of J (Eqn. 10) for the given atoms and
// codes, from spd.SteinKernel.Eval entry by entry: independent of the Gram
// matrices and of the update's algebra.
func steinEnergy(t *testing.T, train *spd.Set, atoms []*mat.SymDense, v *mat.Dense, k spd.SteinKernel) float64 {
	t.Helper()
	eval := func(x, y mat.Symmetric) float64 {
		e, err := k.Eval(x, y)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	n := len(atoms)
	K := make([]float64, n*n)
	for i := range n {
		for r := range n {
			K[i*n+r] = eval(atoms[i], atoms[r])
		}
	}
	var J float64
	for j := range train.Len() {
		J++
		for i := range n {
			vi := v.At(j, i)
			J -= 2 * vi * eval(train.View(j), atoms[i])
			for r := range n {
				J += vi * v.At(j, r) * K[i*n+r]
			}
		}
	}
	return J
}

// fullOf returns the symmetric matrix whose upper triangle is in a
// (row-major d×d).
func symFromUpper(a []float64, d int) *mat.SymDense {
	s := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			s.SetSym(i, j, a[i*d+j])
		}
	}
	return s
}

// gradients returns ∂J/∂D_r by the closed form σ(F − 2G − γD⁻¹) of FitDictionary's
// doc, and by the printed Eqn. 12, σ(F − G_full − (a − b_full/2)D⁻¹) with
// the i = r terms G_full = G + (s/2)D⁻¹ and b_full = b + s, which is
// σ(F − G − (a − b/2)D⁻¹).
func gradients(t *testing.T, l *learner, r int) (ours, printed *mat.SymDense) {
	t.Helper()
	ws := newAtomWork(l.d, l.n)
	tm, ok := l.terms(r, ws)
	if !ok {
		t.Fatal("terms failed")
	}
	inv, err := spd.Pow(l.atoms.View(r), -1)
	if err != nil {
		t.Fatal(err)
	}
	sigma := l.o.Kernel.Sigma
	F, G := symFromUpper(ws.f, l.d), symFromUpper(ws.g, l.d)
	ours, printed = mat.NewSymDense(l.d, nil), mat.NewSymDense(l.d, nil)
	ours.AddSym(F, scaledSym(G, -2))
	ours.AddSym(ours, scaledSym(inv, -(tm.a-tm.b)))
	ours.ScaleSym(sigma, ours)
	printed.AddSym(F, scaledSym(G, -1))
	printed.AddSym(printed, scaledSym(inv, -(tm.a-tm.b/2)))
	printed.ScaleSym(sigma, printed)
	return ours, printed
}

func randomSymmetric(rng *rand.Rand, d int) *mat.SymDense {
	e := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			e.SetSym(i, j, rng.NormFloat64())
		}
	}
	return e
}

func frobeniusInner(a, b mat.Symmetric) float64 {
	var s float64
	n := a.SymmetricDim()
	for i := range n {
		for j := range n {
			s += a.At(i, j) * b.At(i, j)
		}
	}
	return s
}

// directional returns (J(D_r + hE) − J(D_r − hE))/2h with the codes and
// other atoms fixed.
func directionalDerivative(t *testing.T, l *learner, r int, e *mat.SymDense, h float64) float64 {
	atoms := make([]*mat.SymDense, l.n)
	for i := range atoms {
		atoms[i] = l.atoms.At(i)
	}
	at := func(c float64) float64 {
		atoms[r] = l.atoms.At(r)
		atoms[r].AddSym(atoms[r], scaledSym(e, c))
		return steinEnergy(t, l.train, atoms, l.codes, l.o.Kernel)
	}
	return (at(h) - at(-h)) / (2 * h)
}

// TestAtomGradient checks the closed-form gradient of J with respect to one
// atom against central differences of J along random symmetric directions,
// and that the printed Eqn. 12 (half the quadratic term) fails that check.
func TestAtomGradient(t *testing.T) {
	l := smallLearner(t, 3, 9, 4, 3, true)
	rng := rand.New(rand.NewPCG(5, 6))
	used := 0
	for r := range l.n {
		ours, printed := gradients(t, l, r)
		if mat.Norm(ours, 2) == 0 {
			continue // an unused atom: J does not depend on it
		}
		used++
		for range 3 {
			e := randomSymmetric(rng, l.d)
			fd := directionalDerivative(t, l, r, e, 1e-5)
			want := frobeniusInner(ours, e)
			if math.Abs(fd-want) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("atom %d: finite difference %.10g, closed form %.10g", r, fd, want)
			}
			if p := frobeniusInner(printed, e); math.Abs(fd-p) < 1e-3*math.Abs(fd) {
				t.Errorf("atom %d: printed Eqn. 12 gives %.10g, matching the finite difference %.10g: the test cannot tell them apart", r, p, fd)
			}
		}
	}
	if used < 2 {
		t.Fatalf("only %d atoms used by the codes", used)
	}
}

// setAtom replaces atom r of the learner by a and recomputes the kernels.
func setAtom(t *testing.T, l *learner, r int, a []float64) {
	t.Helper()
	data := slices.Clone(l.atoms.Data())
	copy(data[r*l.d*l.d:], a)
	atoms, err := spd.NewSetFromData(l.d, data)
	if err != nil {
		t.Fatal(err)
	}
	l.atoms = atoms
	if err := l.kernels(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestAtomUpdateFixedPoint checks that the update is the fixed point of the
// gradient: algebraically, D_new⁻¹ = D⁻¹ + ∂J/∂D / (σγ) at any atom, so
// D_new = D exactly where the gradient vanishes; and by iterating one
// atom's update with the codes fixed to its limit, where central
// differences of J (independent of the update's algebra) vanish in every
// direction and J is lower than at the start.
func TestAtomUpdateFixedPoint(t *testing.T) {
	l := smallLearner(t, 3, 9, 4, 3, true)
	d, dd := l.d, l.d*l.d
	ws := newAtomWork(d, l.n)
	dst := make([]float64, dd)
	for r := range l.n {
		grad, _ := gradients(t, l, r)
		tm, _ := l.terms(r, ws)
		if g := l.updateAtom(dst, r, ws); g != updated {
			if g == unused {
				continue
			}
			t.Fatalf("atom %d: guard %d", r, g)
		}
		newInv, err := spd.Pow(symFromUpper(dst, d), -1)
		if err != nil {
			t.Fatal(err)
		}
		oldInv, _ := spd.Pow(l.atoms.View(r), -1)
		want := mat.NewSymDense(d, nil)
		want.AddSym(oldInv, scaledSym(grad, 1/(l.o.Kernel.Sigma*(tm.a-tm.b))))
		if !mat.EqualApprox(newInv, want, 1e-9*mat.Norm(want, 2)) {
			t.Errorf("atom %d: D_new⁻¹ = %v, want D⁻¹ + ∇J/(σγ) = %v", r, mat.Formatted(newInv), mat.Formatted(want))
		}
	}

	const r = 1
	orig := l.atoms.At(r)
	before := steinEnergy(t, l.train, learnerAtoms(l), l.codes, l.o.Kernel)
	grad0, _ := gradients(t, l, r)
	step := math.Inf(1)
	for it := 0; it < 500 && step > 1e-13; it++ {
		if g := l.updateAtom(dst, r, ws); g != updated {
			t.Fatalf("iteration %d: guard %d", it, g)
		}
		old := l.atoms.Data()[r*dd : (r+1)*dd]
		step = 0
		for i := range dst {
			step = math.Max(step, math.Abs(dst[i]-old[i]))
		}
		setAtom(t, l, r, dst)
	}
	if step > 1e-13 {
		t.Fatalf("the update of one atom did not settle: last step %.3g", step)
	}
	if mat.EqualApprox(orig, l.atoms.View(r), 1e-3) {
		t.Fatal("the atom hardly moved: the test checks nothing")
	}
	after := steinEnergy(t, l.train, learnerAtoms(l), l.codes, l.o.Kernel)
	if !(after < before) {
		t.Errorf("J went from %.10g to %.10g at the fixed point", before, after)
	}
	scale := mat.Norm(grad0, 2)
	for a := range d {
		for b := a; b < d; b++ {
			e := mat.NewSymDense(d, nil)
			e.SetSym(a, b, 1)
			if fd := directionalDerivative(t, l, r, e, 1e-5); math.Abs(fd) > 1e-6*scale {
				t.Errorf("at the fixed point dJ/dD[%d][%d] = %.3g (%.3g at the start)", a, b, fd, scale)
			}
		}
	}
}

func learnerAtoms(l *learner) []*mat.SymDense {
	out := make([]*mat.SymDense, l.n)
	for i := range out {
		out[i] = l.atoms.At(i)
	}
	return out
}

// TestAtomUpdateGuards builds codes for which the update of atom 0 has
// γ > 0 but F − 2G indefinite, atom 2 has γ < 0 (a negative code) and
// atom 3 is unused, and checks that update keeps those atoms bit for bit
// and counts each guard.
func TestAtomUpdateGuards(t *testing.T) {
	diag := func(a, b float64) *mat.SymDense { return mat.NewSymDense(2, []float64{a, 0, 0, b}) }
	train, err := spd.NewSet([]*mat.SymDense{diag(1, 1), diag(2, 0.5), diag(0.5, 2), diag(1, 3)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := newLearner(context.Background(), train, DictionaryOptions{Atoms: 4, Kernel: spd.SteinKernel{Sigma: 1}, Lasso: LassoOptions{Lambda: 0.1}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	// k(I, D_1) = exp(−S(I, D_1)) = 4/(1.01·101) ≈ 0.0392, so for atom 0:
	// γ = 1 − 20·0.0392 > 0 and F − 2G = I − 40·0.0392·(D_1 + I)⁻¹ has
	// a negative first entry.
	if l.atoms, err = spd.NewSet([]*mat.SymDense{diag(1, 1), diag(0.01, 100), diag(3, 3), diag(1, 2)}); err != nil {
		t.Fatal(err)
	}
	if err := l.kernels(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.codes.Set(0, 0, 1)
	l.codes.Set(0, 1, 20)
	l.codes.Set(1, 2, -1)
	old := slices.Clone(l.atoms.Data())
	var it LearnIteration
	if err := l.update(context.Background(), &it); err != nil {
		t.Fatal(err)
	}
	for r, want := range map[int]guard{0: notSPD, 2: badSign, 3: unused} {
		if l.kept[r] != want {
			t.Errorf("atom %d: guard %d, want %d", r, l.kept[r], want)
		}
		if !slices.Equal(l.atoms.Data()[4*r:4*r+4], old[4*r:4*r+4]) {
			t.Errorf("atom %d was changed by a failed update", r)
		}
	}
	var tally [4]int
	for _, g := range l.kept {
		tally[g]++
	}
	if it.KeptNotSPD != tally[notSPD] || it.KeptSign != tally[badSign] || it.Unused != tally[unused] || it.Kept() != tally[notSPD]+tally[badSign] {
		t.Errorf("counts %+v, per-atom outcomes %v", it, l.kept)
	}
	if it.KeptNotSPD < 1 || it.KeptSign < 1 || it.Unused != 1 {
		t.Errorf("counts %+v: every guard should have triggered", it)
	}
}

// TestSpectralNormExact checks the atom update's spectral norm against
// LAPACK's eigenvalue of the unscaled matrix, bit for bit, on normally
// scaled SPD matrices of sizes on both sides of Dsytrd's blocking, and
// that scaling the matrix by 2^k scales the norm by exactly 2^k, down to
// magnitudes where LAPACK's own rescaling panics.
func TestSpectralNormExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 2, 3, 5, 17, 40} {
		ws := newAtomWork(d, 1)
		for range 20 {
			m := randomSPDUpper(rng, d)
			want := directNorm(t, m, d)
			got, ok := ws.spectralNorm(m)
			if !ok || got != want {
				t.Fatalf("d = %d: spectralNorm = %v, %v; LAPACK on the unscaled matrix: %v", d, got, ok, want)
			}
			for _, k := range []int{-1000, -430, 7, 430} {
				s := make([]float64, len(m))
				for i, v := range m {
					s[i] = math.Ldexp(v, k)
				}
				got, ok := ws.spectralNorm(s)
				if !ok || got != math.Ldexp(want, k) {
					t.Fatalf("d = %d, scale 2^%d: spectralNorm = %v, %v, want %v", d, k, got, ok, math.Ldexp(want, k))
				}
			}
		}
	}
}

// TestUpdateAtomTinyAndHugeScales checks the atom update on descriptors
// of magnitude 1e-130 to 1e-300 and 1e130, where LAPACK's rescaling of
// an unscaled spectral norm panics: the update is homogeneous of
// degree one in the data (the Stein kernel is invariant to scaling both
// arguments), so it must be the normally scaled update times the scale
// with KeepScale, and the same unit-norm atom without.
func TestUpdateAtomTinyAndHugeScales(t *testing.T) {
	for _, keep := range []bool{true, false} {
		ref := smallLearner(t, 3, 9, 4, 3, keep)
		d, dd := ref.d, ref.d*ref.d
		ws := newAtomWork(d, ref.n)
		want := make([][]float64, ref.n)
		guards := make([]guard, ref.n)
		for r := range ref.n {
			want[r] = make([]float64, dd)
			guards[r] = ref.updateAtom(want[r], r, ws)
		}
		for _, c := range []float64{1e-130, 1e-200, 1e-300, 1e130} {
			l := smallLearner(t, 3, 9, 4, 3, keep)
			l.train = scaledSet(t, l.train, c)
			l.atoms = scaledSet(t, l.atoms, c)
			if err := l.kernels(context.Background()); err != nil {
				t.Fatalf("scale %g: %v", c, err)
			}
			got := make([]float64, dd)
			for r := range l.n {
				g := l.updateAtom(got, r, ws)
				if g != guards[r] {
					t.Fatalf("keep %v, scale %g, atom %d: guard %d, want %d as at scale 1", keep, c, r, g, guards[r])
				}
				if g != updated {
					continue
				}
				f := c
				if !keep {
					f = 1
				}
				for i, w := range want[r] {
					if math.Abs(got[i]-f*w) > 1e-9*f*math.Abs(want[r][0]) {
						t.Fatalf("keep %v, scale %g, atom %d: entry %d = %g, want %g", keep, c, r, i, got[i], f*w)
					}
				}
			}
		}
	}
}

// randomSPDUpper returns a random d×d SPD matrix AAᵀ/d + I/10, row-major
// with both triangles.
func randomSPDUpper(rng *rand.Rand, d int) []float64 {
	a := make([]float64, d*d)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	m := make([]float64, d*d)
	for i := range d {
		for j := range d {
			var s float64
			for k := range d {
				s += a[i*d+k] * a[j*d+k]
			}
			m[i*d+j] = s / float64(d)
		}
		m[i*d+i] += 0.1
	}
	return m
}

// directNorm is the largest eigenvalue of m by LAPACK on an unscaled copy.
func directNorm(t *testing.T, m []float64, d int) float64 {
	t.Helper()
	a := append([]float64(nil), m...)
	vals := make([]float64, d)
	s := blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: a}
	var q [1]float64
	lapack64.Syev(lapack.EVNone, s, vals, q[:], -1)
	work := make([]float64, int(q[0]))
	if !lapack64.Syev(lapack.EVNone, s, vals, work, len(work)) {
		t.Fatal("Syev did not converge")
	}
	return vals[d-1]
}

// scaledSet returns the matrices of s times c.
func scaledSet(t *testing.T, s *spd.Set, c float64) *spd.Set {
	t.Helper()
	data := append([]float64(nil), s.Data()...)
	for i := range data {
		data[i] *= c
	}
	out, err := spd.NewSetFromData(s.Dim(), data)
	if err != nil {
		t.Fatalf("scale %g: %v", c, err)
	}
	return out
}

// trainingMixtures returns m mixtures of 5×5 covariances.
func trainingMixtures(t *testing.T, seed uint64, m int) *spd.Set {
	return mixtureSet(t, seed, m, 5, 16, 3)
}

// TestFitDictionaryDecreasesEnergy checks on a small problem that each atom update
// lowers J (or a guard triggers and is counted) and each sparse coding step
// does not raise it, and that the reported energies match J recomputed
// from spd.SteinKernel.Eval.
func TestFitDictionaryDecreasesEnergy(t *testing.T) {
	train := trainingMixtures(t, 7, 60)
	for _, keep := range []bool{true, false} {
		o := DictionaryOptions{Atoms: 8, Kernel: spd.SteinKernel{Sigma: 2}, Lasso: LassoOptions{Lambda: 0.05}, Iters: 6, KeepScale: keep, Seed: 3}
		dict, err := FitDictionary(context.Background(), train, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(dict.History) != o.Iters {
			t.Fatalf("KeepScale=%v: %d iterations, want %d", keep, len(dict.History), o.Iters)
		}
		for i, it := range dict.History {
			if keep && !(it.JUpdated < it.J) && it.Kept() == 0 {
				t.Errorf("iteration %d: the update took J from %.10g to %.10g with no guard", i, it.J, it.JUpdated)
			}
			next := dict.J
			if i+1 < len(dict.History) {
				next = dict.History[i+1].J
			}
			if next > it.JUpdated*(1+1e-9) {
				t.Errorf("KeepScale=%v iteration %d: sparse coding raised J from %.10g to %.10g", keep, i, it.JUpdated, next)
			}
		}
		var l1 float64
		for j := range train.Len() {
			for i := range o.Atoms {
				l1 += math.Abs(dict.Codes.At(j, i))
			}
		}
		want := steinEnergy(t, train, setMatrices(dict.Atoms), dict.Codes, o.Kernel) + o.Lasso.Lambda*l1
		if math.Abs(dict.J-want) > 1e-9*want {
			t.Errorf("KeepScale=%v: J = %.12g, recomputed %.12g", keep, dict.J, want)
		}
		if keep {
			if first, last := dict.History[0].J, dict.J; !(last < 0.95*first) {
				t.Errorf("J went from %.6g to only %.6g", first, last)
			}
			continue
		}
		for r := range o.Atoms {
			if top := largestEigenvalue(t, dict.Atoms.View(r)); math.Abs(top-1) > 1e-12 {
				t.Errorf("atom %d has spectral norm %.15g after normalisation", r, top)
			}
		}
	}
}

func setMatrices(s *spd.Set) []*mat.SymDense {
	out := make([]*mat.SymDense, s.Len())
	for i := range out {
		out[i] = s.At(i)
	}
	return out
}

func largestEigenvalue(t *testing.T, a mat.Symmetric) float64 {
	var e mat.EigenSym
	if !e.Factorize(a, false) {
		t.Fatal("eigendecomposition failed")
	}
	v := e.Values(nil)
	return v[len(v)-1]
}

// TestFitDictionaryTolerance checks early stopping: learning stops at the first
// relative change of J below Tol, and not before.
func TestFitDictionaryTolerance(t *testing.T) {
	train := trainingMixtures(t, 8, 60)
	o := DictionaryOptions{Atoms: 6, Kernel: spd.SteinKernel{Sigma: 2}, Lasso: LassoOptions{Lambda: 0.05}, Iters: 100, Tol: 1e-3, KeepScale: true}
	dict, err := FitDictionary(context.Background(), train, o)
	if err != nil {
		t.Fatal(err)
	}
	if !dict.Converged || len(dict.History) >= o.Iters {
		t.Fatalf("converged %v after %d iterations", dict.Converged, len(dict.History))
	}
	js := make([]float64, 0, len(dict.History)+1)
	for _, it := range dict.History {
		js = append(js, it.J)
	}
	js = append(js, dict.J)
	for i := 1; i < len(js); i++ {
		change := math.Abs(js[i]-js[i-1]) / js[i-1]
		if last := i == len(js)-1; last != (change <= o.Tol) {
			t.Errorf("step %d of %d: relative change %.3g against Tol %g", i, len(js)-1, change, o.Tol)
		}
	}
}

// TestFitDictionaryDeterministic checks that the worker count does not change a
// single bit of the result, for either initialisation, and that the seed
// alone fixes it.
func TestFitDictionaryDeterministic(t *testing.T) {
	train := trainingMixtures(t, 9, 150)
	for _, init := range []InitMethod{InitRandom, InitKMeans} {
		o := DictionaryOptions{Atoms: 12, Kernel: spd.SteinKernel{Sigma: 2}, Lasso: LassoOptions{LambdaRatio: 0.1}, Iters: 4, Seed: 11, Init: init}
		var ref *Dictionary
		for _, w := range []int{1, 2, 3, 1} {
			o.Workers = w
			dict, err := FitDictionary(context.Background(), train, o)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = dict
				continue
			}
			if !slices.Equal(dict.Atoms.Data(), ref.Atoms.Data()) || !slices.Equal(dict.Codes.RawMatrix().Data, ref.Codes.RawMatrix().Data) ||
				!slices.Equal(dict.History, ref.History) || dict.J != ref.J {
				t.Errorf("%v, workers = %d: the dictionary differs from workers = 1", init, w)
			}
		}
		o.Seed++
		other, err := FitDictionary(context.Background(), train, o)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(other.Atoms.Data(), ref.Atoms.Data()) {
			t.Errorf("%v: another seed gave the same dictionary", init)
		}
	}
}

// TestFitDictionaryInit checks the initial dictionaries: N distinct training
// samples, or the centroids of spd.KMeans with the AIRM and the same seed.
func TestFitDictionaryInit(t *testing.T) {
	train := trainingMixtures(t, 13, 40)
	o := DictionaryOptions{Atoms: 5, Kernel: spd.SteinKernel{Sigma: 2}, Lasso: LassoOptions{Lambda: 0.1}, Seed: 4, Workers: 2}
	l, err := newLearner(context.Background(), train, o)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for r := range o.Atoms {
		atom := l.atoms.Data()[r*25 : (r+1)*25]
		for j := range train.Len() {
			if slices.Equal(atom, train.Data()[j*25:(j+1)*25]) {
				seen[j] = true
			}
		}
	}
	if len(seen) != o.Atoms {
		t.Errorf("random initialisation: atoms are %d distinct training samples, want %d", len(seen), o.Atoms)
	}
	o.Init = InitKMeans
	if l, err = newLearner(context.Background(), train, o); err != nil {
		t.Fatal(err)
	}
	km, err := spd.KMeans(context.Background(), train, spd.KMeansOptions{K: o.Atoms, Metric: spd.AIRMMetric, Seed: o.Seed})
	if err != nil {
		t.Fatal(err)
	}
	for r, c := range km.Centroids {
		if !mat.EqualApprox(c, l.atoms.View(r), 1e-14) {
			t.Errorf("k-means initialisation: atom %d is not centroid %d", r, r)
		}
	}
}

// TestFitDictionaryBadInput checks that invalid input gives an error wrapping
// ErrInput (and spd.ErrSigma for σ), never a panic.
func TestFitDictionaryBadInput(t *testing.T) {
	train := trainingMixtures(t, 10, 10)
	good := DictionaryOptions{Atoms: 4, Kernel: spd.SteinKernel{Sigma: 2}, Lasso: LassoOptions{Lambda: 0.1}, Iters: 2}
	nan := math.NaN()
	cases := []struct {
		name  string
		train *spd.Set
		edit  func(*DictionaryOptions)
		also  error // another sentinel the error wraps: spd.ErrSigma, ErrMemory
	}{
		{"nil set", nil, func(*DictionaryOptions) {}, nil},
		{"no atoms", train, func(o *DictionaryOptions) { o.Atoms = 0 }, nil},
		{"more atoms than samples", train, func(o *DictionaryOptions) { o.Atoms = 11 }, nil},
		{"more atoms than samples, k-means", train, func(o *DictionaryOptions) { o.Atoms, o.Init = 11, InitKMeans }, nil},
		{"sigma outside Theorem 1", train, func(o *DictionaryOptions) { o.Kernel.Sigma = 0.7 }, spd.ErrSigma},
		{"sigma zero", train, func(o *DictionaryOptions) { o.Kernel.Sigma = 0 }, spd.ErrSigma},
		{"sigma NaN", train, func(o *DictionaryOptions) { o.Kernel.Sigma = nan }, spd.ErrSigma},
		{"sigma NaN, pseudo", train, func(o *DictionaryOptions) { o.Kernel = spd.SteinKernel{Sigma: nan, Pseudo: true} }, spd.ErrSigma},
		{"lambda and ratio", train, func(o *DictionaryOptions) { o.Lasso.LambdaRatio = 0.1 }, nil},
		{"lambda NaN", train, func(o *DictionaryOptions) { o.Lasso.Lambda = nan }, nil},
		{"lambda negative", train, func(o *DictionaryOptions) { o.Lasso.Lambda = -1 }, nil},
		{"ratio NaN", train, func(o *DictionaryOptions) { o.Lasso = LassoOptions{LambdaRatio: nan} }, nil},
		{"ratio 1", train, func(o *DictionaryOptions) { o.Lasso = LassoOptions{LambdaRatio: 1} }, nil},
		{"tolerance NaN", train, func(o *DictionaryOptions) { o.Tol = nan }, nil},
		{"tolerance 1", train, func(o *DictionaryOptions) { o.Tol = 1 }, nil},
		{"negative iterations", train, func(o *DictionaryOptions) { o.Iters = -1 }, nil},
		{"unknown initialisation", train, func(o *DictionaryOptions) { o.Init = 7 }, nil},
		{"iterations over the memory limit", train, func(o *DictionaryOptions) { o.Iters = 1e9 }, ErrMemory},
	}
	for _, c := range cases {
		o := good
		c.edit(&o)
		dict, err := FitDictionary(context.Background(), c.train, o)
		if !errors.Is(err, ErrInput) || dict != nil {
			t.Errorf("%s: got %v, want an error wrapping ErrInput", c.name, err)
		}
		if c.also != nil && !errors.Is(err, c.also) {
			t.Errorf("%s: %v does not wrap %v", c.name, err, c.also)
		}
	}
	// A pseudo-kernel is allowed when asked for.
	o := good
	o.Kernel = spd.SteinKernel{Sigma: 0.7, Pseudo: true}
	if _, err := FitDictionary(context.Background(), train, o); err != nil {
		t.Errorf("pseudo-kernel: %v", err)
	}
}

func TestParseInitMethod(t *testing.T) {
	for _, m := range []InitMethod{InitRandom, InitKMeans} {
		if got, err := ParseInitMethod(m.String()); err != nil || got != m {
			t.Errorf("ParseInitMethod(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseInitMethod("kmeans++"); !errors.Is(err, ErrInput) {
		t.Errorf("unknown method: %v", err)
	}
}

// TestEncode checks that Encode's codes are the kernel Lasso's solutions
// computed one query at a time from kernel values of spd.SteinKernel.Eval,
// whatever the worker count, and that a dictionary's codes of its own
// training samples reach the energy FitDictionary reports.
func TestEncode(t *testing.T) {
	all := trainingMixtures(t, 12, 70)
	idx := make([]int, 70)
	for i := range idx {
		idx[i] = i
	}
	train, queries := all.Subset(idx[:50]), all.Subset(idx[50:])
	k := spd.SteinKernel{Sigma: 2}
	o := LassoOptions{Lambda: 0.02}
	dict, err := FitDictionary(context.Background(), train, DictionaryOptions{Atoms: 10, Kernel: k, Lasso: o, Iters: 3})
	if err != nil {
		t.Fatal(err)
	}
	atoms := setMatrices(dict.Atoms)
	K := mat.NewSymDense(len(atoms), nil)
	for i := range atoms {
		for r := i; r < len(atoms); r++ {
			v, err := k.Eval(atoms[i], atoms[r])
			if err != nil {
				t.Fatal(err)
			}
			K.SetSym(i, r, v)
		}
	}
	lasso, err := NewLasso(K, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{1, 3} {
		o := o
		o.Workers = w
		codes, certs, err := Encode(context.Background(), queries, dict.Atoms, k, o)
		if err != nil {
			t.Fatal(err)
		}
		if r, c := codes.Dims(); r != queries.Len() || c != len(atoms) || len(certs) != r {
			t.Fatalf("codes %d×%d, %d certificates", r, c, len(certs))
		}
		for q := range queries.Len() {
			kx := make([]float64, len(atoms))
			for i := range atoms {
				if kx[i], err = k.Eval(queries.View(q), atoms[i]); err != nil {
					t.Fatal(err)
				}
			}
			v, cert, err := lasso.Solve(kx, 1)
			if err != nil {
				t.Fatal(err)
			}
			for i := range v {
				if math.Abs(v[i]-codes.At(q, i)) > 1e-9 {
					t.Fatalf("workers = %d, query %d: code %v, one by one %v", w, q, mat.Row(nil, q, codes), v)
				}
			}
			if math.Abs(cert.Objective-certs[q].Objective) > 1e-12 {
				t.Errorf("query %d: objective %.15g, one by one %.15g", q, certs[q].Objective, cert.Objective)
			}
		}
	}
	_, certs, err := dict.Transform(context.Background(), train)
	if err != nil {
		t.Fatal(err)
	}
	var J float64
	for _, c := range certs {
		J += c.Objective
	}
	if math.Abs(J-dict.J) > 1e-6*dict.J {
		t.Errorf("energy of the training codes %.10g, FitDictionary reports %.10g", J, dict.J)
	}
	if _, _, err := Encode(context.Background(), queries, dict.Atoms, spd.SteinKernel{Sigma: 0.7}, o); !errors.Is(err, spd.ErrSigma) {
		t.Errorf("bad sigma: %v", err)
	}
	if _, _, err := Encode(context.Background(), queries, dict.Atoms, k, LassoOptions{Lambda: 1, LambdaRatio: 0.1}); !errors.Is(err, ErrInput) {
		t.Errorf("both lambdas: %v", err)
	}
}
