package tsc

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The barrier method of Coder.SolveTo: Newton steps on the barrier
// function, each evaluated with Cholesky factors of M(x) and I − M(x),
// and the duality gaps that certify the result.

// barrier runs the barrier method on the ws.n whitened atoms of ws (ws.b,
// ws.bu, ws.cost with λ added), writing the code into x. With warm false
// it starts from the point of start; with warm true x holds a feasible
// code (M(x) ≺ I, zeros allowed) and it starts from x moved a twentieth
// of the way towards that point, which is strictly feasible because the
// feasible set is convex. Either way the first barrier parameter is
// (n+d)/gap at the starting point, so a start near the optimum begins
// far along the central path. It returns an error wrapping ctx.Err()
// once ctx is cancelled, which it looks at before every Newton step.
func (c *Coder) barrier(ctx context.Context, x []float64, ws *Workspace, warm bool) (Certificate, error) {
	d, n, m := c.d, ws.n, ws.m
	if warm {
		// On FERET's bg pose a twentieth took 7.7% fewer Newton steps than
		// cold starts, a fifth 1.7% fewer, and a hundredth left codes
		// short of the tolerance; starting t at the previous solve's final
		// value stalled every code.
		const theta = 0.05
		x0 := c.startValue(ws)
		for i := range x {
			x[i] = (1-theta)*x[i] + theta*x0
		}
	} else {
		c.start(x, ws)
	}
	ev, ok := c.eval(x, ws)
	if !ok {
		return Certificate{}, errors.New("tsc: starting point infeasible")
	}
	t := float64(n+d) / math.Max(ev.gap, 1e-300)
	cert := Certificate{}
	const (
		alpha  = 0.01
		centre = 1e-6 // Newton decrement λ²/2 at which a point counts as centred
	)
	for {
		if err := ctx.Err(); err != nil {
			return cert, fmt.Errorf("tsc: %w", err)
		}
		// Gradient of the barrier function, and the scaled Newton system.
		var fb float64
		st := math.Sqrt(t)
		for i, xi := range x {
			ws.g[i] = t*(ws.cost[i]-ws.trP[i]) - 1/xi + ws.trQ[i]
			ui, si := ws.u[i*2*m:(i+1)*2*m], ws.us[i*2*m:(i+1)*2*m]
			for k := range m {
				si[k] = st * xi * ui[k]
				si[m+k] = xi * ui[m+k]
			}
			ws.y[i] = -xi * ws.g[i]
			fb -= math.Log(xi)
		}
		fb += t*ev.f - ev.logdetR
		if !c.solve(ws) {
			break
		}
		var dec float64 // Newton decrement squared, −gᵀΔx
		smax := math.Inf(1)
		for i, xi := range x {
			ws.dx[i] = xi * ws.y[i]
			dec -= ws.g[i] * ws.dx[i]
			if ws.dx[i] < 0 {
				smax = math.Min(smax, -xi/ws.dx[i])
			}
		}
		gap := math.Min(ev.gap, c.newtonGap(ev, t, ws))
		cert.Objective, cert.Gap, cert.Dual, cert.Mu = ev.f, gap, ev.f-gap, 1/t
		if more, raised := c.advance(&cert, &t, dec/2 <= centre); !more {
			break
		} else if raised {
			continue
		}
		// ΔM, then backtracking that keeps x > 0, M ≻ 0 and R ≻ 0.
		for k := range ws.dmu {
			ws.dmu[k] = 0
		}
		for i, dxi := range ws.dx {
			axpy(dxi, ws.bu[i*m:(i+1)*m], ws.dmu)
		}
		s := math.Min(1, 0.99*smax)
		accepted := false
		for ; s > 1e-16; s *= 0.5 {
			var fx, lx float64
			for i := range x {
				ws.xt[i] = x[i] + s*ws.dx[i]
				fx += ws.cost[i] * ws.xt[i]
				lx += math.Log(ws.xt[i])
			}
			for k := range ws.dmu {
				ws.tmp[k] = ws.mu[k] + s*ws.dmu[k]
			}
			ldm, ldr, ok := c.factor(ws.tmp[:m], ws)
			if !ok {
				continue
			}
			if t*(fx-ldm)-lx-ldr <= fb-alpha*s*dec {
				accepted = true
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
		copy(x, ws.xt)
		if ev, ok = c.eval(x, ws); !ok {
			return cert, errors.New("tsc: lost feasibility (round-off)")
		}
	}
	cert.Bound = float64(n+d) * cert.Mu
	return cert, nil
}

// advance decides a barrier method's next move once cert holds the best
// certificate so far: more is false when it stops (cert's gap meets the
// tolerance, which sets Converged; MaxIter Newton steps taken; or t
// overflowed); raised reports that the point was centred, so t was raised
// instead of a step taken. Otherwise it counts the step about to be
// taken.
func (c *Coder) advance(cert *Certificate, t *float64, centred bool) (more, raised bool) {
	if cert.Gap <= c.opt.Tol*(1+math.Abs(cert.Objective)) {
		cert.Converged = true
		return false, false
	}
	if cert.Iterations >= c.opt.MaxIter {
		return false, false
	}
	if centred {
		return c.raise(t), true
	}
	cert.Iterations++
	return true, false
}

// raise multiplies the barrier parameter t by Options.Factor and reports
// whether it is still finite.
func (c *Coder) raise(t *float64) bool {
	*t *= c.opt.Factor
	return !math.IsInf(*t, 1)
}

// start writes into x the barrier methods' starting point
// x_i = 1/(2 tr Σ_j Â_j) on the whitened atoms of ws, which makes
// M(x) ⪯ I/2.
func (c *Coder) start(x []float64, ws *Workspace) {
	x0 := c.startValue(ws)
	for i := range x {
		x[i] = x0
	}
}

// startValue returns 1/(2 tr Σ_j Â_j) over the atoms of ws.
func (c *Coder) startValue(ws *Workspace) float64 {
	d := c.d
	var sum float64
	for i := range ws.n {
		sum += trace(ws.b[i*d*d:(i+1)*d*d], d)
	}
	return 1 / (2 * sum)
}

// sumM writes the packed M(x) = Σ x_i Â_i into ws.mu and factorises it
// and R = I − M (see factor).
func (c *Coder) sumM(x []float64, ws *Workspace) (ldm, ldr float64, ok bool) {
	m := ws.m
	for k := range ws.mu {
		ws.mu[k] = 0
	}
	for i, xi := range x {
		axpy(xi, ws.bu[i*m:(i+1)*m], ws.mu)
	}
	return c.factor(ws.mu, ws)
}

// whiten factorises the query S = LLᵀ and fills ws.b with Â_i = L⁻¹A_iL⁻ᵀ,
// ws.bu with their packed upper triangles and ws.cost with tr Â_i.
func (c *Coder) whiten(query mat.Symmetric, ws *Workspace) error {
	d := c.d
	if r, _ := query.Dims(); r != d {
		return fmt.Errorf("tsc: query: %w: %d×%d, atoms %d×%d", spd.ErrDimension, r, r, d, d)
	}
	for i := range d {
		for j := range d {
			v := query.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("tsc: query: %w", spd.ErrNotFinite)
			}
			ws.ls[i*d+j] = v
		}
	}
	if !dense.CholRows(ws.ls, d) {
		return fmt.Errorf("tsc: query: %w: Cholesky factorisation failed", spd.ErrNotSPD)
	}
	m := ws.m
	for i := range c.n {
		bi := ws.b[i*d*d : (i+1)*d*d]
		dense.Congruence(bi, c.atoms[i*d*d:(i+1)*d*d], ws.ls, ws.tmp, d)
		pack(ws.bu[i*m:(i+1)*m], bi, d, 1)
		ws.cost[i] = trace(bi, d)
	}
	return nil
}

// evaluation holds, at x, f(x), log det M, log det R, tr R⁻¹ and the
// duality gap of the dual point Y = M⁻¹, Z = s R⁻¹ (s least).
type evaluation struct {
	f, logdetM, logdetR, trRinv, gap float64
}

// eval factorises M(x) and R(x) and computes the traces, vectors and
// duality gap at x; ok is false when x is not strictly feasible.
func (c *Coder) eval(x []float64, ws *Workspace) (evaluation, bool) {
	d, m := c.d, ws.m
	ldm, ldr, ok := c.sumM(x, ws)
	if !ok {
		return evaluation{}, false
	}
	// ws.lm and ws.lr now hold the factors of M and R; P_i = L_M⁻¹ Â_i L_M⁻ᵀ
	// and Q_i = L_R⁻¹ Â_i L_R⁻ᵀ are products with the explicit inverses
	// (dense.CongruenceW), whose matrix-vector kernels are faster than
	// forward substitution at FERET's d. The rows of ws.linv are the
	// columns of L_R⁻¹.
	dense.InverseLower(ws.wm, ws.lm, ws.tmp, d)
	dense.InverseLowerT(ws.linv, ws.lr, d)
	dense.Transpose(ws.wr, ws.linv, d)
	var fx float64
	smin := 0.0
	for i, xi := range x {
		bi := ws.b[i*d*d : (i+1)*d*d]
		ui := ws.u[i*2*m : (i+1)*2*m]
		dense.CongruenceW(ws.full, bi, ws.wm, ws.tmp, d)
		ws.trP[i] = trace(ws.full, d)
		pack(ui[:m], ws.full, d, math.Sqrt2)
		dense.CongruenceW(ws.full, bi, ws.wr, ws.tmp, d)
		ws.trQ[i] = trace(ws.full, d)
		pack(ui[m:], ws.full, d, math.Sqrt2)
		fx += ws.cost[i] * xi
		smin = math.Max(smin, (ws.trP[i]-ws.cost[i])/ws.trQ[i])
	}
	// tr R⁻¹ = ‖L_R⁻¹‖²_F.
	var trRinv float64
	for _, v := range ws.linv {
		trRinv += v * v
	}
	gap := fx - float64(d) + smin*trRinv
	return evaluation{f: fx - ldm, logdetM: ldm, logdetR: ldr, trRinv: trRinv, gap: math.Max(gap, 0)}, true
}

// newtonGap returns the duality gap f(x) − g(Y, Z) of the dual point that
// the Newton step Δx = ws.dx at t predicts (+Inf if it is not dual
// feasible): with ΔM = Σ Δx_i Â_i,
//
//	Y = M⁻¹ − M⁻¹ΔM M⁻¹,  Z = (R⁻¹ + R⁻¹ΔM R⁻¹)/t + s R⁻¹,
//
// for which the Newton equations make the slacks
// z_i = c_i − tr(Y Â_i) + tr(Z Â_i) equal (1 − Δx_i/x_i)/(t x_i) up to
// round-off, and s >= 0 least with every computed z_i >= 0. It is dual
// feasible when Y ≻ 0 and Z ⪰ 0, and then
// g(Y, Z) = d + log det Y − tr Z <= f(x*). Near the central path it is far
// tighter than the gap of Y = M⁻¹, whose slacks carry the centring error
// of x amplified by the Hessian's condition.
func (c *Coder) newtonGap(ev evaluation, t float64, ws *Workspace) float64 {
	d, n, m := c.d, ws.n, ws.m
	// v = (vec P_Δ, vec Q_Δ) = Σ Δx_i (vec P_i, vec Q_i).
	u := blas64.General{Rows: n, Cols: 2 * m, Stride: 2 * m, Data: ws.u}
	blas64.Gemv(blas.Trans, 1, u, blas64.Vector{N: n, Inc: 1, Data: ws.dx}, 0, blas64.Vector{N: 2 * m, Inc: 1, Data: ws.v})
	// log det Y = −log det M + log det(I − P_Δ).
	unpackVec(ws.full, ws.v[:m], d)
	for i := range ws.full {
		ws.full[i] = -ws.full[i]
	}
	for i := range d {
		ws.full[i*d+i]++
	}
	if !dense.CholRows(ws.full, d) {
		return math.Inf(1)
	}
	logdetY := dense.LogDetRows(ws.full, d) - ev.logdetM
	// Z ⪰ 0 ⇔ I + Q_Δ ⪰ 0; tr(R⁻¹ΔM R⁻¹) = Σ_j v_jᵀ Q_Δ v_j over the
	// columns v_j of L_R⁻¹.
	unpackVec(ws.full, ws.v[m:], d)
	var tq float64
	for j := range d {
		vj := ws.linv[j*d : (j+1)*d]
		for a := range d {
			var s float64
			for b, w := range ws.full[a*d : (a+1)*d] {
				s += w * vj[b]
			}
			tq += vj[a] * s
		}
	}
	for i := range d {
		ws.full[i*d+i]++
	}
	if !dense.CholRows(ws.full, d) {
		return math.Inf(1)
	}
	trZ := (ev.trRinv + tq) / t
	var smin float64
	for i := range n {
		ui := ws.u[i*2*m : (i+1)*2*m]
		var pd, qd float64
		for k := range m {
			pd += ui[k] * ws.v[k]
			qd += ui[m+k] * ws.v[m+k]
		}
		z := ws.cost[i] - (ws.trP[i] - pd) + (ws.trQ[i]+qd)/t
		smin = math.Max(smin, -z/ws.trQ[i])
	}
	dual := float64(d) + logdetY - trZ - smin*ev.trRinv
	return math.Max(ev.f-dual, 0)
}

// factor factorises M (packed upper mu) into ws.lm and R = I − M into ws.lr
// and returns their log-determinants; ok is false unless both are SPD.
func (c *Coder) factor(mu []float64, ws *Workspace) (ldm, ldr float64, ok bool) {
	d := c.d
	unpack(ws.lm, mu, d)
	if !dense.CholRows(ws.lm, d) {
		return 0, 0, false
	}
	unpack(ws.lr, mu, d)
	for i := range ws.lr {
		ws.lr[i] = -ws.lr[i]
	}
	for i := range d {
		ws.lr[i*d+i]++
	}
	if !dense.CholRows(ws.lr, d) {
		return 0, 0, false
	}
	return dense.LogDetRows(ws.lm, d), dense.LogDetRows(ws.lr, d), true
}

// solve overwrites ws.y, holding the right-hand side r, with
// (I + ŨŨᵀ)⁻¹ r, Ũ = ws.us (N×2m), overwriting ws.us. It reports false
// when the matrix cannot be factorised (only in round-off disasters: it is
// >= I).
//
// For N <= 2m it factorises the N×N matrix. For N > 2m it factorises
// Ũ = QR by Householder reflections instead: I + ŨŨᵀ = Q(I + R̃R̃ᵀ)Qᵀ
// with R̃ = [R; 0], so only the leading 2m entries of Qᵀr meet the
// 2m×2m matrix I + RRᵀ and the rest pass unchanged. That costs O(N·m²)
// rather than O(N³), and unlike the Woodbury identity
// r − Ũ(I + ŨᵀŨ)⁻¹Ũᵀr, which subtracts nearly equal vectors once t is
// large and stalls the method short of the tolerance, it is backward
// stable: the solution is as accurate as the N×N factorisation's.
func (c *Coder) solve(ws *Workspace) bool {
	n, k := ws.n, 2*ws.m
	u := blas64.General{Rows: n, Cols: k, Stride: k, Data: ws.us}
	if n <= k {
		h := blas64.Symmetric{N: n, Stride: n, Data: ws.h[:n*n], Uplo: blas.Upper}
		for i := range n {
			for j := i; j < n; j++ {
				h.Data[i*n+j] = 0
			}
			h.Data[i*n+i] = 1
		}
		blas64.Syrk(blas.NoTrans, 1, u, 1, h)
		return dense.SolveSPD(h.Data, n, ws.y)
	}
	lapack64.Geqrf(u, ws.tau, ws.work, len(ws.work))
	y := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: ws.y}
	lapack64.Ormqr(blas.Left, blas.Trans, u, ws.tau, y, ws.work, len(ws.work))
	// I + RRᵀ, upper triangle: R_il is zero for l < i.
	for i := range k {
		ri := u.Data[i*k : (i+1)*k]
		for j := i; j < k; j++ {
			rj := u.Data[j*k : (j+1)*k]
			var s float64
			for l := j; l < k; l++ {
				s += ri[l] * rj[l]
			}
			if i == j {
				s++
			}
			ws.h[i*k+j] = s
		}
	}
	if !dense.SolveSPD(ws.h, k, ws.y[:k]) {
		return false
	}
	lapack64.Ormqr(blas.Left, blas.NoTrans, u, ws.tau, y, ws.work, len(ws.work))
	return true
}
