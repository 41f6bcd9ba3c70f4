package tsc

import (
	"context"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas/blas64"
)

// The dual barrier method of Coder.SolveTo at small d.
//
// Dualising M(x) ⪯ I with Z ⪰ 0 and x ≥ 0 with z ≥ 0, and writing
// −log det M = sup_{Y≻0} (d + log det Y − tr YM), the Lagrangian
//
//	Σ_i x_i (c_i − tr ÂᵢY + tr ÂᵢZ − z_i) + d + log det Y − tr Z,
//
// c_i = tr Â_i + λ, is bounded below in x only where every bracket is
// zero, which gives the dual problem
//
//	maximise  g(Y, Z) = d + log det Y − tr Z
//	subject to Y ≻ 0, Z ⪰ 0,  s_i(Y, Z) = c_i − tr Â_i(Y − Z) >= 0,
//
// weakly dual (g(Y, Z) <= f(x) for every feasible pair) and strictly
// feasible on both sides (Y = I, Z = I/2 gives s_i = tr Â_i/2 + λ), so
// strongly dual. Its unknowns are two symmetric d×d matrices, 2m numbers
// for m = d(d+1)/2, whatever N; the slacks depend on W = Y − Z alone. The
// dual barrier method minimises
//
//	φ_t(Y, Z) = t(tr Z − log det Y) − log det Z − Σ_i log s_i
//
// for increasing t. −log det Y and −log det Z make φ_t strictly convex
// for any atoms, and the atoms being SPD bound Y given Z
// (tr Â_iY <= c_i + tr Â_iZ), so each φ_t has one minimiser. There the
// gradient in Y gives Y⁻¹ = Σ Â_i/(t s_i) and the gradient in Z gives
// I − Σ Â_i/(t s_i) = (tZ)⁻¹: the primal point x_i = 1/(t s_i) is
// strictly feasible with M(x) = Y⁻¹ (complementary slackness,
// x_i s_i = 1/t and (I − M)Z = I/t), and the duality gap is (N + d)/t.
//
// In svec coordinates (off-diagonal entries times √2, so that dot
// products are trace inner products) with a_i = svec Â_i the Newton
// system is 2m×2m,
//
//	[ t K(Y⁻¹) + G      −G      ] [ΔY]     [ −t svec Y⁻¹ + Σ a_i/s_i      ]
//	[     −G        K(Z⁻¹) + G  ] [ΔZ] = − [ t svec I − svec Z⁻¹ − Σ a_i/s_i ],
//
// K(P) the matrix of V ↦ PVP and G = Σ a_i a_iᵀ/s_i² the only part that
// depends on the atoms: forming it is O(N m²), solving O(m³). It is
// solved as it stands, by one Cholesky factorisation. Eliminating ΔY and
// ΔZ would leave m×m equations in ΔW = ΔY − ΔZ, (P⁻¹ + G)ΔW = P⁻¹r with
// P = K(Y)/t + K(Z), but taking ΔY and ΔZ back from ΔW multiplies ΔW's
// rounding errors by G, whose entries grow as t²x_i², and the method then
// stalls short of tight tolerances (at Tol = 1e-10 it did on half the
// queries of TestDualTightTolerance's kind, the 2m×2m form on none). Off the
// central path the primal estimate is the one the Newton equations
// linearise, x_i = (1 − Δs_i/s_i)/(t s_i) with Δs_i = −a_iᵀ(ΔY − ΔZ),
// for which they give M(x) = Y⁻¹ − Y⁻¹ΔY Y⁻¹ and
// I − M(x) = (Z⁻¹ − Z⁻¹ΔZ Z⁻¹)/t, feasible where Z − ΔZ ≻ 0. The
// certificate pairs the better feasible one of that x and x_i = 1/(t s_i)
// (checked by factorising M(x) and I − M(x) as summed from x) with the
// dual iterate, which is feasible by construction.

// dualBuffers are a workspace's buffers for the dual barrier method,
// allocated by its first dual solve.
type dualBuffers struct {
	at       []float64 // m×n: column i is svec Â_i (off-diagonal entries times √2)
	rt       []float64 // m×n: column i is svec Â_i / s_i
	inv      []float64 // 1/s_i
	s, st    []float64 // slacks at the iterate and at a trial point
	ds       []float64 // Δs_i
	xe, xb   []float64 // the primal estimates: Newton, basic
	y, z     []float64 // the iterate, d×d
	yt, zt   []float64 // a trial point, d×d
	ly, lz   []float64 // Cholesky factors of Y and Z
	yinv     []float64 // Y⁻¹, d×d
	zinv     []float64 // Z⁻¹, d×d
	sum      []float64 // Σ a_i/s_i, length m
	w        []float64 // svec(Y − Z) at a trial point, length m
	gram     []float64 // G, upper triangle packed
	kp       []float64 // K(P), m×m
	grad     []float64 // gradient, 2m
	step     []float64 // Newton step, 2m
	h        []float64 // Newton matrix, 2m×2m upper triangle
	mx, tmp  []float64 // d×d: M(x) and scratch
	eig      []float64 // 6d: eigenvalues of M(x) and their scratch
	pairs    [][2]int  // the (row, column) of each svec entry
	weight   []float64 // 1 on the diagonal's svec entries, √2 elsewhere
	identity []float64 // svec I
}

func newDualBuffers(d, n int) *dualBuffers {
	m := d * (d + 1) / 2
	dd := d * d
	b := &dualBuffers{
		at: make([]float64, n*m), rt: make([]float64, n*m), inv: make([]float64, n), s: make([]float64, n), st: make([]float64, n), ds: make([]float64, n),
		xe: make([]float64, n), xb: make([]float64, n),
		y: make([]float64, dd), z: make([]float64, dd), yt: make([]float64, dd), zt: make([]float64, dd),
		ly: make([]float64, dd), lz: make([]float64, dd), yinv: make([]float64, dd), zinv: make([]float64, dd),
		sum: make([]float64, m), w: make([]float64, m), gram: make([]float64, m*(m+1)/2), kp: make([]float64, m*m),
		grad: make([]float64, 2*m), step: make([]float64, 2*m), h: make([]float64, 4*m*m),
		mx: make([]float64, dd), tmp: make([]float64, dd), eig: make([]float64, 6*d),
		weight: make([]float64, m), identity: make([]float64, m),
	}
	for i := range d {
		for j := i; j < d; j++ {
			k := len(b.pairs)
			b.pairs = append(b.pairs, [2]int{i, j})
			b.weight[k] = math.Sqrt2
			if i == j {
				b.weight[k], b.identity[k] = 1, 1
			}
		}
	}
	return b
}

// dualBarrier runs the dual barrier method on the whitened atoms of ws
// (ws.b, ws.bu, ws.cost with λ added), writing the code into x. It
// returns an error wrapping ctx.Err() once ctx is cancelled, which it
// looks at before every Newton step. A certificate that is not Converged
// means the method stalled short of the tolerance (SolveTo then runs the
// primal barrier method).
func (c *Coder) dualBarrier(ctx context.Context, x []float64, ws *Workspace) (Certificate, error) {
	d, n, m := c.d, ws.n, ws.m
	if ws.dual == nil {
		ws.dual = newDualBuffers(d, n)
	}
	b := ws.dual
	for i := range n {
		bu := ws.bu[i*m : (i+1)*m]
		for k, w := range b.weight {
			b.at[k*n+i] = w * bu[k]
		}
	}
	// Start at Y = I, Z = I/2, with t from the duality gap of the primal
	// barrier method's starting point x_i = 1/(2 tr Σ_j Â_j).
	for k := range b.y {
		b.y[k], b.z[k] = 0, 0
	}
	for j := range d {
		b.y[j*d+j], b.z[j*d+j] = 1, 0.5
	}
	c.start(x, ws)
	f0, ok := c.primalObjective(x, ws)
	if !ok {
		return Certificate{}, fmt.Errorf("tsc: starting point infeasible")
	}
	t := float64(n+d) / math.Max(f0-float64(d)/2, 1e-300)
	if !c.dualFactor(b.y, b.z, b.ly, b.lz) || !c.slacks(b.s, b.y, b.z, ws) {
		return Certificate{}, fmt.Errorf("tsc: dual starting point infeasible")
	}
	cert := Certificate{Solver: DualBarrier, Atoms: n, Gap: math.Inf(1)}
	const (
		alpha = 0.01
		// centre is the Newton decrement λ²/2 at which a point counts as
		// centred. It is loose: the certificate, not the centring,
		// decides convergence, and the Newton primal estimate is good well
		// outside the region of quadratic convergence.
		centre = 0.5
	)
	ls := logSum(b.s)
	for {
		if err := ctx.Err(); err != nil {
			return cert, fmt.Errorf("tsc: %w", err)
		}
		if !c.dualNewton(t, ws) {
			break
		}
		var dec float64 // Newton decrement squared, −gᵀΔ
		for k, g := range b.grad {
			dec -= g * b.step[k]
		}
		ldy, ldz := dense.LogDetRows(b.ly, d), dense.LogDetRows(b.lz, d)
		trZ := trace(b.z, d)
		dual := float64(d) + ldy - trZ
		// The gap is (N + d)/t on the central path: certify where it is
		// near the tolerance, and at every centred point. A point counts
		// as centred only once its primal estimate is feasible (or its
		// decrement is at round-off level): raising t from a point too
		// far from the path for that leaves the next centring further
		// still.
		centred := dec/2 <= centre
		if centred || float64(n+d)/t <= 4*c.opt.Tol*(1+math.Abs(dual)) {
			xc, f, ok := c.dualCertificate(t, ws)
			if gap := max(f-dual, 0); ok && gap < cert.Gap {
				copy(x, xc)
				cert.Objective, cert.Dual, cert.Gap, cert.Mu = f, dual, gap, 1/t
			}
			centred = centred && (ok || dec/2 <= 1e-9)
		}
		if more, raised := c.advance(&cert, &t, centred); !more {
			break
		} else if raised {
			continue
		}
		// Backtracking that keeps Y ≻ 0, Z ≻ 0 and every slack positive,
		// the slacks recomputed from the trial point so that the iterate
		// stays exactly dual feasible.
		smax := math.Inf(1)
		for i, v := range b.ds {
			if r := -b.s[i] / v; v < 0 && r < smax {
				smax = r
			}
		}
		phi := t*(trZ-ldy) - ldz - ls
		accepted := false
		for step := min(1, 0.99*smax); step > 1e-16; step *= 0.5 {
			c.dualTrial(step, ws)
			if !c.dualFactor(b.yt, b.zt, b.tmp, b.mx) || !c.slacks(b.st, b.yt, b.zt, ws) {
				continue
			}
			lt := logSum(b.st)
			pt := t*(trace(b.zt, d)-dense.LogDetRows(b.tmp, d)) - dense.LogDetRows(b.mx, d) - lt
			if pt <= phi-alpha*step*dec {
				accepted, ls = true, lt
				break
			}
		}
		if !accepted {
			// Round-off dominates the decrease: this is as central as the
			// arithmetic allows.
			if !c.raise(&t) {
				break
			}
			continue
		}
		// The accepted trial point's factors, in tmp and mx, are the new
		// iterate's: swap them in instead of factorising it again.
		b.y, b.yt = b.yt, b.y
		b.z, b.zt = b.zt, b.z
		b.s, b.st = b.st, b.s
		b.ly, b.tmp = b.tmp, b.ly
		b.lz, b.mx = b.mx, b.lz
	}
	cert.Bound = float64(n+d) * cert.Mu
	return cert, nil
}

// dualFactor writes the Cholesky factors of y and z into ly and lz and
// reports whether both are positive definite.
func (c *Coder) dualFactor(y, z, ly, lz []float64) bool {
	copy(ly, y)
	copy(lz, z)
	return dense.CholRows(ly, c.d) && dense.CholRows(lz, c.d)
}

// slacks writes s_i = c_i − tr Â_i(Y − Z) into s and reports whether
// every one is positive.
func (c *Coder) slacks(s, y, z []float64, ws *Workspace) bool {
	b, n := ws.dual, ws.n
	copy(s, ws.cost[:n])
	for k, p := range b.pairs {
		i, j := p[0], p[1]
		w := b.weight[k] * (y[i*c.d+j] - z[i*c.d+j]) // svec(Y − Z)_k
		blas64.Axpy(-w, vec(b.at[k*n:(k+1)*n]), vec(s))
	}
	for _, v := range s {
		if !(v > 0) {
			return false
		}
	}
	return true
}

// vec returns v as a unit-stride blas64.Vector.
func vec(v []float64) blas64.Vector { return blas64.Vector{N: len(v), Inc: 1, Data: v} }

// dualNewton forms the gradient and the Newton matrix of φ_t at the
// iterate (factors in ws.dual.ly, lz) and solves for the step, writing
// Δs_i into ws.dual.ds. It reports false when the Newton matrix cannot be
// factorised (it is positive definite, so only in round-off disasters).
func (c *Coder) dualNewton(t float64, ws *Workspace) bool {
	d, n, m := c.d, ws.n, ws.m
	b := ws.dual
	dense.InverseFromLower(b.yinv, b.ly, b.tmp, d)
	dense.InverseFromLower(b.zinv, b.lz, b.tmp, d)
	// G = Σ r_i r_iᵀ, r_i = a_i/s_i: with the r_i as the columns of an
	// m×N matrix, its entries are dot products of rows, each a unit-stride
	// pass over the atoms.
	for i, v := range b.s {
		b.inv[i] = 1 / v
	}
	gp := b.gram
	for k := range m {
		rk, ak := b.rt[k*n:(k+1)*n], b.at[k*n:(k+1)*n]
		var sum float64
		for i, v := range ak {
			rk[i] = v * b.inv[i]
			sum += rk[i]
		}
		b.sum[k] = sum
	}
	k := 0
	for p := range m {
		rp := vec(b.rt[p*n : (p+1)*n])
		for q := p; q < m; q++ {
			gp[k] = blas64.Dot(rp, vec(b.rt[q*n:(q+1)*n]))
			k++
		}
	}
	k2 := 2 * m
	h := b.h
	symKron(b.kp, b.yinv, b.pairs, d)
	k = 0
	for p := range m {
		for q := p; q < m; q++ {
			g := gp[k]
			k++
			h[p*k2+q] = t*b.kp[p*m+q] + g
			h[(m+p)*k2+m+q] = g
			h[p*k2+m+q] = -g
			if q > p {
				h[q*k2+m+p] = -g
			}
		}
	}
	symKron(b.kp, b.zinv, b.pairs, d)
	for p := range m {
		for q := p; q < m; q++ {
			h[(m+p)*k2+m+q] += b.kp[p*m+q]
		}
	}
	for k, pr := range b.pairs {
		i, j := pr[0], pr[1]
		w := b.weight[k]
		b.grad[k] = -t*w*b.yinv[i*d+j] + b.sum[k]
		b.grad[m+k] = t*b.identity[k] - w*b.zinv[i*d+j] - b.sum[k]
	}
	for k, g := range b.grad {
		b.step[k] = -g
	}
	// At 2m <= 42 the plain right-looking factorisation and row-wise
	// solves cost less than LAPACK's blocked calls and their overhead.
	if !dense.CholSmall(h, k2) {
		return false
	}
	dense.CholSolve(h, k2, b.step)
	// Δs_i = −a_iᵀ(Δy − Δz).
	for i := range b.ds {
		b.ds[i] = 0
	}
	for k := range m {
		blas64.Axpy(b.step[m+k]-b.step[k], vec(b.at[k*n:(k+1)*n]), vec(b.ds))
	}
	return true
}

// symKron writes into dst (m×m, upper triangle) the matrix of V ↦ PVP on
// svec coordinates for the symmetric d×d p: with the basis E_ii and
// (E_ij + E_ji)/√2,
//
//	K_(ij),(kl) = β_ij β_kl · 2(P_ik P_jl + P_il P_jk),
//
// β = 1/2 on the diagonal and 1/√2 off it.
func symKron(dst, p []float64, pairs [][2]int, d int) {
	m := len(pairs)
	for a, pa := range pairs {
		i, j := pa[0], pa[1]
		ba := 0.5
		if i != j {
			ba = 1 / math.Sqrt2
		}
		for q := a; q < m; q++ {
			k, l := pairs[q][0], pairs[q][1]
			bq := 0.5
			if k != l {
				bq = 1 / math.Sqrt2
			}
			dst[a*m+q] = 2 * ba * bq * (p[i*d+k]*p[j*d+l] + p[i*d+l]*p[j*d+k])
		}
	}
}

// dualTrial writes the trial point (Y, Z) + step·(ΔY, ΔZ) into ws.dual.yt
// and zt.
func (c *Coder) dualTrial(step float64, ws *Workspace) {
	d, m := c.d, ws.m
	b := ws.dual
	copy(b.yt, b.y)
	copy(b.zt, b.z)
	for k, p := range b.pairs {
		i, j := p[0], p[1]
		w := step / b.weight[k]
		dy, dz := w*b.step[k], w*b.step[m+k]
		b.yt[i*d+j] += dy
		b.zt[i*d+j] += dz
		if i != j {
			b.yt[j*d+i] += dy
			b.zt[j*d+i] += dz
		}
	}
}

// dualCertificate returns the better feasible of the two primal
// estimates at the iterate (see the derivation above), in one of
// ws.dual's buffers, and f there; ok is false when neither is feasible.
// An estimate
// whose M(x) is not below I is first scaled by 1/λ_max(M(x)) (less a few
// ulps): near the optimum, where M(x) ⪯ I is active, round-off in the
// slacks can put M(x) a hair above I.
func (c *Coder) dualCertificate(t float64, ws *Workspace) ([]float64, float64, bool) {
	b := ws.dual
	newton := true
	for i, s := range b.s {
		b.xb[i] = 1 / (t * s)
		b.xe[i] = b.xb[i] * (1 - b.ds[i]/s)
		newton = newton && b.xe[i] > 0
	}
	fb, okb := c.feasibleObjective(b.xb, ws)
	fe, oke := math.Inf(1), false
	if newton {
		fe, oke = c.feasibleObjective(b.xe, ws)
	}
	switch {
	case oke && (!okb || fe <= fb):
		return b.xe, fe, true
	case okb:
		return b.xb, fb, true
	}
	return nil, 0, false
}

// feasibleObjective returns f(x) (primalObjective) after scaling x into
// M(x) ⪯ I where it is not; ok is false when that fails.
func (c *Coder) feasibleObjective(x []float64, ws *Workspace) (float64, bool) {
	if f, ok := c.primalObjective(x, ws); ok {
		return f, true
	}
	d, b := c.d, ws.dual
	unpack(b.mx, ws.mu, d) // M(x), summed by primalObjective
	ev := b.eig
	dense.Tridiagonalize(b.mx, d, ev[:d], ev[d:2*d], ev[2*d:3*d], ev[3*d:4*d])
	if !dense.TridiagEigen(ev[:d], ev[d:2*d-1], ev[4*d:]) {
		return 0, false
	}
	lmax := ev[d-1]
	if !(lmax > 0) || lmax > 1+1e-6 {
		return 0, false // not round-off: the estimate is not near feasible
	}
	scale := (1 - float64(4*d)*0x1p-52) / lmax
	for i := range x {
		x[i] *= scale
	}
	return c.primalObjective(x, ws)
}

// primalObjective returns f(x) = Σ x_i c_i − log det M(x); ok is false
// unless M(x) ≻ 0 and I − M(x) ≻ 0 (x >= 0 is the caller's).
func (c *Coder) primalObjective(x []float64, ws *Workspace) (float64, bool) {
	ldm, _, ok := c.sumM(x, ws)
	if !ok {
		return 0, false
	}
	var fx float64
	for i, xi := range x {
		fx += xi * ws.cost[i]
	}
	return fx - ldm, true
}

// logSum returns Σ log v_i for positive v, taking one logarithm per eight
// entries: the products of eight values in [2⁻⁶⁴, 2⁶⁴] cannot overflow or
// underflow, and larger or smaller values go one at a time.
func logSum(v []float64) float64 {
	var s float64
	i := 0
	for ; i+8 <= len(v); i += 8 {
		p := 1.0
		ok := true
		for _, w := range v[i : i+8] {
			p *= w
			ok = ok && w >= 0x1p-64 && w <= 0x1p64
		}
		if ok {
			s += math.Log(p)
			continue
		}
		for _, w := range v[i : i+8] {
			s += math.Log(w)
		}
	}
	for _, w := range v[i:] {
		s += math.Log(w)
	}
	return s
}
