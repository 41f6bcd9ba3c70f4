package rsr

import (
	"context"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// AtomUpdate selects how FitDictionary updates the atoms with the codes
// fixed (Algorithm 1, lines 6–10).
type AtomUpdate int

const (
	// FixedPoint replaces each atom by the root of its gradient with the
	// terms held at the current atoms, D_r ← γ_r (F_r − 2G_r)⁻¹, the
	// paper's update (see FitDictionary).
	FixedPoint AtomUpdate = iota
	// RiemannianGradient moves every atom along the negative Riemannian
	// gradient of J under the affine-invariant metric, with one step size
	// for all atoms chosen by Armijo backtracking on J with the codes
	// fixed, so that J never increases (after Cherian and Sra, "Riemannian
	// dictionary learning and sparse coding for positive definite
	// matrices", IEEE TNNLS 28, 2017).
	RiemannianGradient
)

var atomUpdates = []AtomUpdate{FixedPoint, RiemannianGradient}

func (u AtomUpdate) String() string {
	switch u {
	case FixedPoint:
		return "fixed-point"
	case RiemannianGradient:
		return "riemannian"
	}
	return fmt.Sprintf("AtomUpdate(%d)", int(u))
}

// ParseAtomUpdate parses "fixed-point" or "riemannian". The error wraps
// ErrInput.
func ParseAtomUpdate(s string) (AtomUpdate, error) {
	for _, u := range atomUpdates {
		if u.String() == s {
			return u, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown atom update %q (want fixed-point or riemannian)", ErrInput, s)
}

// Armijo's constant and the most halvings of the step before an
// iteration keeps its atoms.
const (
	armijoC        = 1e-4
	armijoHalvings = 30
)

// riemannStep is one atom's share of a Riemannian gradient step: its
// square root S = D^½, the eigenvectors P and eigenvalues e of
// M = S (F − 2G) S, and γ. The Riemannian gradient of J at D is
// σ S (M − γI) S, and the geodesic from D against it is
// D(t) = S P diag(exp(−tσ(e − γ))) Pᵀ S.
type riemannStep struct {
	s, p  *mat.Dense
	e     []float64
	gamma float64
	used  bool
}

// riemannianUpdate replaces the atoms by D_r(t) of their riemannStep, the
// step t the largest of t0·2⁻ᵏ, t0 = 1/(σ max |e_i − γ_r|), that lowers J
// (codes and their λ_j fixed) by at least armijoC·t·‖grad J‖² (Armijo's
// rule), ‖grad J‖² = σ² Σ_r ‖M_r − γ_r I‖²_F the squared Riemannian norm.
// When no step passes, the atoms stay (it.KeptSign counts the used ones:
// no descent was found).
func (l *learner) riemannianUpdate(ctx context.Context, it *LearnIteration) error {
	steps := make([]riemannStep, l.n)
	err := pool.ForCtx(ctx, l.n, l.workers, func(w, r int) error {
		if l.aws[w] == nil {
			l.aws[w] = newAtomWork(l.d, l.n)
		}
		var err error
		steps[r], err = l.riemannDirection(r, l.aws[w])
		return err
	})
	if err != nil {
		return err
	}
	sigma := l.o.Kernel.Sigma
	var norm2, big float64
	for _, st := range steps {
		if !st.used {
			it.Unused++
			continue
		}
		for _, e := range st.e {
			norm2 += sigma * sigma * (e - st.gamma) * (e - st.gamma)
			big = math.Max(big, math.Abs(e-st.gamma))
		}
	}
	if norm2 == 0 {
		return nil
	}
	j0 := 0.0
	for j := range l.m {
		j0 += l.obj[j]
	}
	old, oldKx, oldK := l.atoms, l.kx, append([]float64(nil), l.kfull...)
	t := 1 / (sigma * big)
	for range armijoHalvings {
		cand, err := l.stepAtoms(steps, t)
		if err != nil {
			return err
		}
		l.atoms = cand
		if err := l.kernels(ctx); err != nil {
			return err
		}
		var jt float64
		for j := range l.m {
			jt += energy(l.codes.RawRowView(j), l.kx.RawRowView(j), l.kfull, l.lambda[j])
		}
		if jt <= j0-armijoC*t*norm2 {
			l.fresh = true
			return nil
		}
		t /= 2
	}
	l.atoms, l.kx = old, oldKx
	copy(l.kfull, oldK)
	it.KeptSign += l.n - it.Unused
	return nil
}

// riemannDirection computes atom r's riemannStep from its update terms.
func (l *learner) riemannDirection(r int, ws *atomWork) (riemannStep, error) {
	t, ok := l.terms(r, ws)
	if !ok {
		return riemannStep{}, fmt.Errorf("atom %d: a sum X_j + D_r or D_i + D_r is not positive definite", r)
	}
	if t.s == 0 {
		return riemannStep{}, nil
	}
	d := l.d
	atom := l.atoms.At(r)
	var eig mat.EigenSym
	if !eig.Factorize(atom, true) {
		return riemannStep{}, fmt.Errorf("atom %d: eigendecomposition failed", r)
	}
	vals := eig.Values(nil)
	var u mat.Dense
	eig.VectorsTo(&u)
	s := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			var v float64
			for k := range d {
				v += u.At(i, k) * math.Sqrt(vals[k]) * u.At(j, k)
			}
			s.Set(i, j, v)
		}
	}
	fg := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			fg.SetSym(i, j, ws.f[i*d+j]-2*ws.g[i*d+j])
		}
	}
	var sm, m mat.Dense
	sm.Mul(s, fg)
	m.Mul(&sm, s)
	msym := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			msym.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
		}
	}
	if !eig.Factorize(msym, true) {
		return riemannStep{}, fmt.Errorf("atom %d: eigendecomposition of the gradient failed", r)
	}
	p := mat.NewDense(d, d, nil)
	eig.VectorsTo(p)
	return riemannStep{s: s, p: p, e: eig.Values(nil), gamma: t.a - t.b, used: true}, nil
}

// stepAtoms returns the atoms D_r(t) of steps (unused atoms unchanged).
func (l *learner) stepAtoms(steps []riemannStep, t float64) (*spd.Set, error) {
	d, dd := l.d, l.d*l.d
	data := append([]float64(nil), l.atoms.Data()...)
	sigma := l.o.Kernel.Sigma
	var q, sq, out mat.Dense
	for r, st := range steps {
		if !st.used {
			continue
		}
		ex := mat.NewDense(d, d, nil)
		for i := range d {
			for j := range d {
				var v float64
				for k := range d {
					v += st.p.At(i, k) * math.Exp(-t*sigma*(st.e[k]-st.gamma)) * st.p.At(j, k)
				}
				ex.Set(i, j, v)
			}
		}
		q.Mul(st.s, ex)
		sq.Mul(&q, st.s)
		out.CloneFrom(&sq)
		dst := data[r*dd : (r+1)*dd]
		for i := range d {
			for j := range d {
				dst[i*d+j] = (out.At(i, j) + out.At(j, i)) / 2
			}
		}
	}
	set, err := spd.NewSetFromData(d, data)
	if err != nil {
		return nil, fmt.Errorf("atoms after a Riemannian step: %w", err)
	}
	return set, nil
}
