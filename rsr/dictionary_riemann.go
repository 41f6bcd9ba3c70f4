package rsr

import (
	"context"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/spd"
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
// square root S = D^½, the eigenvectors P (columns) and eigenvalues e of
// M = S (F − 2G) S, all row-major d×d, and γ. The Riemannian gradient of
// J at D is σ S (M − γI) S, and the geodesic from D against it is
// D(t) = S P diag(exp(−tσ(e − γ))) Pᵀ S. The learner keeps one per atom
// across iterations (learner.rsteps).
type riemannStep struct {
	s, p, e []float64
	gamma   float64
	used    bool
}

// riemannianUpdate replaces the atoms by D_r(t) of their riemannStep, the
// step t the largest of t0·2⁻ᵏ, t0 = 1/(σ max |e_i − γ_r|), that lowers J
// (codes and their λ_j fixed) by at least armijoC·t·‖grad J‖² (Armijo's
// rule), ‖grad J‖² = σ² Σ_r ‖M_r − γ_r I‖²_F the squared Riemannian norm.
// When no step passes, the atoms stay (it.KeptSign counts the used ones:
// no descent was found).
func (l *learner) riemannianUpdate(ctx context.Context, it *LearnIteration) error {
	if l.rsteps == nil {
		dd := l.d * l.d
		l.rsteps = make([]riemannStep, l.n)
		for r := range l.rsteps {
			l.rsteps[r] = riemannStep{s: make([]float64, dd), p: make([]float64, dd), e: make([]float64, l.d)}
		}
	}
	steps := l.rsteps
	err := pool.ForCtx(ctx, l.n, l.workers, func(w, r int) error {
		if l.aws[w] == nil {
			l.aws[w] = newAtomWork(l.d, l.n)
		}
		return l.riemannDirection(&steps[r], r, l.aws[w])
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
	old, oldKx, oldK := l.atoms, l.kx, append([]float64(nil), l.kfull...)
	if l.aws[0] == nil {
		l.aws[0] = newAtomWork(l.d, l.n)
	}
	t := 1 / (sigma * big)
	for range armijoHalvings {
		cand, err := l.stepAtoms(steps, t, l.aws[0])
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
		if jt <= it.J-armijoC*t*norm2 {
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

// riemannDirection computes atom r's riemannStep from its update terms
// into st, on ws's buffers.
func (l *learner) riemannDirection(st *riemannStep, r int, ws *atomWork) error {
	t, ok := l.terms(r, ws)
	if !ok {
		return fmt.Errorf("atom %d: a sum X_j + D_r or D_i + D_r is not positive definite", r)
	}
	st.used = t.s != 0
	if !st.used {
		return nil
	}
	st.gamma = t.a - t.b
	d, dd := l.d, l.d*l.d
	// S = U diag(√μ) Uᵀ from the eigenvectors U (columns of buf).
	copy(ws.buf, l.atoms.Data()[r*dd:(r+1)*dd])
	if !ws.eigen(ws.buf) {
		return fmt.Errorf("atom %d: eigendecomposition failed", r)
	}
	for k, mu := range ws.vals {
		ws.vals[k] = math.Sqrt(mu)
	}
	ws.conjugate(st.s, ws.buf, ws.vals)
	// M = S (F − 2G) S, F and G upper triangles, then its eigenvectors.
	for i := range d {
		for j := i; j < d; j++ {
			v := ws.f[i*d+j] - 2*ws.g[i*d+j]
			ws.buf[i*d+j], ws.buf[j*d+i] = v, v
		}
	}
	ws.mul(ws.tmp, st.s, ws.buf)
	ws.mul(st.p, ws.tmp, st.s)
	for i := range d {
		for j := i; j < d; j++ {
			v := (st.p[i*d+j] + st.p[j*d+i]) / 2
			st.p[i*d+j], st.p[j*d+i] = v, v
		}
	}
	if !ws.eigen(st.p) {
		return fmt.Errorf("atom %d: eigendecomposition of the gradient failed", r)
	}
	copy(st.e, ws.vals)
	return nil
}

// stepAtoms returns the atoms D_r(t) of steps (unused atoms unchanged),
// on the buffers of ws.
func (l *learner) stepAtoms(steps []riemannStep, t float64, ws *atomWork) (*spd.Set, error) {
	d, dd := l.d, l.d*l.d
	data := append([]float64(nil), l.atoms.Data()...)
	sigma := l.o.Kernel.Sigma
	for r, st := range steps {
		if !st.used {
			continue
		}
		for k, e := range st.e {
			ws.vals[k] = math.Exp(-t * sigma * (e - st.gamma))
		}
		ws.conjugate(ws.buf, st.p, ws.vals)
		ws.mul(ws.tmp, st.s, ws.buf)
		dst := data[r*dd : (r+1)*dd]
		ws.mul(dst, ws.tmp, st.s)
		for i := range d {
			for j := i + 1; j < d; j++ {
				v := (dst[i*d+j] + dst[j*d+i]) / 2
				dst[i*d+j], dst[j*d+i] = v, v
			}
		}
	}
	set, err := spd.NewSetFromData(d, data)
	if err != nil {
		return nil, fmt.Errorf("atoms after a Riemannian step: %w", err)
	}
	return set, nil
}
