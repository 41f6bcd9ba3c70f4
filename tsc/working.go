package tsc

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/covpipe/covpipe/internal/dense"
)

// codeWorking solves the query's problem (ws whitened, λ added) by column
// generation: the barrier method on a working set of k atoms, those
// closest to the query in the Burg divergence D(Â_i, I), then a dual
// point of the whole problem built from its solution (see fullGap). Atoms
// outside the set whose dual slack is negative are what keeps that point
// from certifying the whole problem; up to k of the worst are added and
// the set is solved again, until none is left or the set is every atom.
// Each later solve starts from the last one's code, the joining atoms at
// zero (see barrier's warm start). The code is zero outside the final
// set, and the certificate is the whole problem's.
func (c *Coder) codeWorking(ctx context.Context, x []float64, k int, ws *Workspace) (Certificate, error) {
	d, n := c.d, c.n
	dd := d * d
	if ws.order == nil {
		ws.order, ws.set = make([]int, n), make([]int, 0, n)
		ws.score, ws.sn, ws.in = make([]float64, n), make([]float64, n), make([]bool, n)
		ws.yn, ws.zn, ws.rinv = make([]float64, dd), make([]float64, dd), make([]float64, dd)
		ws.minv, ws.dm, ws.tmp2 = make([]float64, dd), make([]float64, dd), make([]float64, dd)
		ws.subs = map[int]*Workspace{}
	}
	// D_Burg(Â_i, I) up to the query's constant log det S − d: the atoms'
	// log-determinants are the Coder's, computed once.
	for i := range n {
		ws.score[i] = trace(ws.b[i*dd:(i+1)*dd], d) - c.logdets[i]
		ws.order[i] = i
	}
	slices.SortFunc(ws.order, func(a, b int) int { return cmp.Or(cmp.Compare(ws.score[a], ws.score[b]), a-b) })
	in := ws.in
	set := append(ws.set[:0], ws.order[:k]...)
	var cert Certificate
	iters, warm := 0, false
	for {
		slices.Sort(set)
		sub := ws.subs[len(set)]
		if sub == nil {
			sub = newWorkspace(d, len(set))
			ws.subs[len(set)] = sub
		}
		m := ws.m
		for a, i := range set {
			copy(sub.b[a*dd:(a+1)*dd], ws.b[i*dd:(i+1)*dd])
			copy(sub.bu[a*m:(a+1)*m], ws.bu[i*m:(i+1)*m])
			sub.cost[a] = ws.cost[i]
		}
		xsub := subCode(sub)
		for a, i := range set {
			xsub[a] = x[i] // zero for atoms joining the set
		}
		var err error
		cert, err = c.barrier(ctx, xsub, sub, warm)
		iters += cert.Iterations
		cert.Iterations, cert.Atoms = iters, len(set)
		if err != nil {
			return cert, err
		}
		for i := range x {
			x[i], in[i] = 0, false
		}
		for a, i := range set {
			x[i], in[i] = xsub[a], true
		}
		warm = true
		worst := c.violators(x, in, 1/cert.Mu, sub, ws)
		if len(worst) == 0 {
			break
		}
		set = append(set, worst[:min(k, len(worst))]...)
	}
	cert.Bound = float64(len(set)+d) * cert.Mu
	return cert, nil
}

// subCode returns the code buffer of a sub-problem's workspace, kept
// beside its other buffers so that solving it allocates nothing after the
// first query of its size.
func subCode(sub *Workspace) []float64 {
	if sub.code == nil {
		sub.code = make([]float64, sub.n)
	}
	return sub.code
}

// violators returns the atoms outside the working set (in[i] false) under
// which the dual point certifying the set's solution x is infeasible,
// worst first. The point is the better, over the set's atoms, of the two
// the barrier method builds (SolveTo): with M and R = I − M at x
// (factorised in sub), t the final barrier parameter and ΔM = Σ Δx_i Â_i
// for the sub-problem's last Newton step,
//
//	Y = M⁻¹,                 Z = s R⁻¹,
//	Y = M⁻¹ − M⁻¹ΔM M⁻¹,      Z = (R⁻¹ + R⁻¹ΔM R⁻¹)/t + s R⁻¹,
//
// the second when Y ≻ 0 and Z ⪰ 0, each with s >= 0 least over the set's
// atoms. An outside atom violates it when its slack
// z_i = c_i − ⟨Y, Â_i⟩ + ⟨Z, Â_i⟩ is negative at that s. With no violator
// the point is dual feasible for the whole problem, so the set's
// certificate is the whole problem's. The matrices here are formed
// explicitly, which is less accurate than the factored forms of eval and
// newtonGap but only decides which atoms join the set.
func (c *Coder) violators(x []float64, in []bool, t float64, sub, ws *Workspace) []int {
	d, n, dd := c.d, c.n, c.d*c.d
	var f float64
	for i, xi := range x {
		f += xi * ws.cost[i]
	}
	logdetM := dense.LogDetRows(sub.lm, d)
	f -= logdetM
	dense.InverseFromLower(ws.minv, sub.lm, ws.tmp2, d)
	dense.InverseFromLower(ws.rinv, sub.lr, ws.tmp2, d)
	trRinv := trace(ws.rinv, d)
	for k := range ws.dm {
		ws.dm[k] = 0
	}
	for a, dxa := range sub.dx {
		axpy(dxa, sub.b[a*dd:(a+1)*dd], ws.dm)
	}
	// Newton point: Y = M⁻¹(M − ΔM)M⁻¹, Z = R⁻¹(R + ΔM)R⁻¹/t.
	newton := true
	unpack(ws.tmp2, sub.mu, d)
	for k := range ws.tmp2 {
		ws.tmp2[k] -= ws.dm[k]
	}
	dense.Sandwich(ws.yn, ws.minv, ws.tmp2, ws.full, d)
	var logdetY float64
	if dense.CholRows(ws.tmp2, d) {
		logdetY = dense.LogDetRows(ws.tmp2, d) - 2*logdetM
	} else {
		newton = false
	}
	unpack(ws.tmp2, sub.mu, d)
	for k := range ws.tmp2 {
		ws.tmp2[k] = ws.dm[k] - ws.tmp2[k]
	}
	for j := range d {
		ws.tmp2[j*d+j]++
	}
	dense.Sandwich(ws.zn, ws.rinv, ws.tmp2, ws.full, d)
	for k := range ws.zn {
		ws.zn[k] /= t
	}
	trZ := trace(ws.zn, d)
	if newton && !dense.CholRows(ws.tmp2, d) {
		newton = false
	}
	// Each atom's least s under each point (score: basic, sn: Newton).
	sb, sn := ws.score, ws.sn
	var sInB, sInN float64
	for i := range n {
		bi := ws.b[i*dd : (i+1)*dd]
		r := dense.Dot(ws.rinv, bi)
		sb[i] = -(ws.cost[i] - dense.Dot(ws.minv, bi)) / r
		if in[i] {
			sInB = math.Max(sInB, sb[i])
		}
		if newton {
			v := -(ws.cost[i] - dense.Dot(ws.yn, bi) + dense.Dot(ws.zn, bi)) / r
			sn[i] = v
			if in[i] {
				sInN = math.Max(sInN, v)
			}
		}
	}
	score, sIn := sb, sInB
	if newton {
		gapB := f - (float64(d) - logdetM - sInB*trRinv)
		if gapN := f - (float64(d) + logdetY - trZ - sInN*trRinv); gapN < gapB {
			score, sIn = sn, sInN
		}
	}
	worst := ws.worst[:0]
	for i := range n {
		if !in[i] && score[i] > sIn {
			worst = append(worst, i)
		}
	}
	ws.worst = worst
	slices.SortFunc(worst, func(a, b int) int { return cmp.Or(cmp.Compare(score[b], score[a]), a-b) })
	return worst
}
