package dense

import (
	"math"
	"slices"
)

// TridiagEigen8 is TridiagEigen on eight symmetric tridiagonal matrices
// of size n at once, lane-major as Tridiagonalize8 leaves them: diagonal
// p in diag[p·n : p·n+n], off-diagonal p in off[p·n : p·n+n−1]
// (destroyed); ok[p] is TridiagEigen's result for lane p, and work, of
// length at least 16n, keeps the copies for the fallback. Each lane's
// values are bit for bit TridiagEigen's, fallback to Sterf
// included: the lanes run the same steps in the same order.
//
// A sweep of the root-free iteration is a serial chain of divisions (see
// rootFree.step). Here the lanes' sweeps run in lockstep, a step of
// every lane in a sweep at a time, each lane at its own place and on its
// own schedule (its splits, deflations and shifts decided per lane, by
// pwkRun.advance, between its sweeps): on AVX-512 (TridiagLanes) one
// step of the eight is a vector step in pwk8AVX512, lanes out of a sweep
// masked, the lanes' next sweeps set up once all have ended theirs; else
// the plain steps of the Go model, pwkRun.step, in turn.
func TridiagEigen8(diag, off []float64, n int, work []float64, ok *[8]bool) {
	tridiagEigen8On(diag, off, n, work, ok, have512)
}

// tridiagEigen8On is TridiagEigen8 with the sweeps in pwk8AVX512 when asm
// is set (which needs AVX-512), else in the Go model pwkLockstep.
func tridiagEigen8On(diag, off []float64, n int, work []float64, ok *[8]bool, asm bool) {
	var runs [8]pwkRun
	for p := range runs {
		r := &runs[p]
		r.d, r.e = diag[p*n:p*n+n], off[p*n:p*n+max(n-1, 0)]
		r.d0, r.e0 = work[2*p*n:2*p*n+n], work[2*p*n+n:2*p*n+2*n]
		copy(r.d0, r.d)
		copy(r.e0, r.e)
		r.its = 30 * n
		r.state = pwkNext
		if n <= 1 {
			r.state = pwkDone
		}
	}
	if asm {
		pwkLanes(&runs, diag, off, n)
	} else {
		pwkLockstep(runs[:])
	}
	for p := range runs {
		r := &runs[p]
		ok[p] = true
		if n <= 1 {
			continue
		}
		if r.state == pwkFailed || !allFinite(r.d) {
			copy(r.d, r.d0)
			copy(r.e, r.e0)
			if !Sterf(r.d, r.e) {
				ok[p] = false
				continue
			}
		}
		slices.Sort(r.d)
	}
}

// pwkLockstep runs the problems' iterations to their end, a step of each
// problem in a sweep in turn: the Go model of pwkLanes.
func pwkLockstep(runs []pwkRun) {
	for live := len(runs); live > 0; {
		live = 0
		for p := range runs {
			r := &runs[p]
			if r.state == pwkSweep {
				r.step()
				live++
				continue
			}
			if r.state == pwkNext && r.advance() {
				live++
			}
		}
	}
}

// pwkLanes runs the eight problems' iterations to their end, their
// sweeps' steps eight at a time in pwk8AVX512, which returns when all
// its lanes have ended their sweeps.
func pwkLanes(runs *[8]pwkRun, diag, off []float64, n int) {
	var st pwk8State
	for p := range runs {
		runs[p].vec = true
	}
	for {
		for p := range runs {
			r := &runs[p]
			if r.state == pwkNext && r.advance() {
				st.set(p, r, n)
			}
		}
		if st.active == 0 {
			return
		}
		fin := pwk8AVX512(&diag[0], &off[0], &st)
		for p := range runs {
			if fin&(1<<p) != 0 {
				runs[p].state = pwkNext
			}
		}
	}
}

// pwk8State is the lanes' sweeps as pwk8AVX512 takes them (its offsets
// are tridiageig8_amd64.s's, checked by TestPWK8StateLayout): lane p's
// sweep is at step t of its own, its first sweep's step at index x1 (of
// diag and off, lane p's entries from p·n on), the second's at x2, both
// moving by dir; the reads of the diagonal are a indices ahead of off's,
// the writes wd and we; end and endD are where a sweep's end goes, dm
// d_m's index; n1 the steps of a sweep, last the t of the lane's last
// step. The floats are the shifts, the two sweeps' rootFree states and
// the entries d', e' that the first sweep left the step before (which
// the second reads); qr, dbl and active are bit masks of the lanes.
type pwk8State struct {
	x1, x2, t, dir, a, wd, we, endE, endD, dm, n1, last [8]int64
	sig, sig2, c, s, g, p, c2, s2, g2, p2, pd, pe       [8]float64
	qr, dbl, active                                     uint64
}

// set loads lane p with the sweep that r's advance has set up.
func (st *pwk8State) set(p int, r *pwkRun, n int) {
	offs := int64(p * n)
	m, l := int64(r.m), int64(r.l)
	bit := uint64(1) << p
	if r.qr {
		st.x1[p], st.dir[p], st.a[p] = offs+m, 1, 1
		st.endE[p], st.n1[p] = offs+l-1, l-m
		st.qr |= bit
	} else {
		st.x1[p], st.dir[p], st.a[p] = offs+m-1, -1, 0
		st.endE[p], st.n1[p] = offs+l, m-l
		st.qr &^= bit
	}
	st.x2[p] = st.x1[p] - 2*st.dir[p]
	st.wd[p], st.we[p] = 1-st.a[p], 1-2*st.a[p]
	st.endD[p], st.dm[p] = offs+l, offs+m
	st.t[p] = 0
	st.last[p] = st.n1[p]
	if r.double {
		st.last[p]++
		st.dbl |= bit
	} else {
		st.dbl &^= bit
	}
	st.sig[p], st.sig2[p] = r.sig, r.sig2
	st.c[p], st.s[p], st.g[p], st.p[p] = r.w.c, r.w.s, r.w.gamma, r.w.p
	st.active |= bit
	r.state = pwkSweep
}

func allFinite(d []float64) bool {
	for _, v := range d {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// The states of a pwkRun.
const (
	pwkNext   = iota // between sweeps: advance decides what comes next
	pwkSweep         // in a sweep: step takes its next step
	pwkDone          // converged (the caller checks finiteness)
	pwkFailed        // out of iterations or out of range: the fallback
)

// pwkRun is pwk's iteration on one problem as a resumable state: advance
// runs its control (the splitting into blocks and the deflation tests of
// pwkQL and pwkQR) up to the start of a sweep, and step takes one step of
// that sweep, the loop body of pwkQL's or pwkQR's sweeps.
type pwkRun struct {
	d, e, d0, e0 []float64
	its          int
	state        int
	vec          bool // the deflation tests in deflQL8AVX512, deflQR8AVX512

	l1        int  // pwk's next block start
	inBlock   bool // a block l..lend is being reduced
	qr        bool // by pwkQR (l > lend)
	l, lend   int
	m, i, lo  int // the sweep's range and its next index
	double    bool
	sig, sig2 float64
	w, w2     rootFree
}

// advance runs the problem's control to the start of its next sweep and
// reports whether there is one; else the state is pwkDone or pwkFailed.
func (r *pwkRun) advance() bool {
	d, e := r.d, r.e
	n := len(d)
	for {
		if !r.inBlock {
			// pwk's loop over the unreduced blocks.
			if r.l1 >= n {
				r.state = pwkDone
				return false
			}
			l1 := r.l1
			if l1 > 0 {
				e[l1-1] = 0
			}
			m := l1
			for ; m < n-1; m++ {
				if math.Abs(e[m]) <= math.Sqrt(math.Abs(d[m]))*math.Sqrt(math.Abs(d[m+1]))*0x1p-53 {
					e[m] = 0
					break
				}
			}
			l, lend := l1, m
			r.l1 = m + 1
			if lend == l {
				continue
			}
			var anorm float64
			for i := l; i <= lend; i++ {
				anorm = max(anorm, math.Abs(d[i]))
			}
			for i := l; i < lend; i++ {
				anorm = max(anorm, math.Abs(e[i]))
				e[i] *= e[i]
			}
			if !(anorm >= 1e-60 && anorm <= 1e60) {
				r.state = pwkFailed
				return false
			}
			r.inBlock = true
			r.qr = math.Abs(d[lend]) < math.Abs(d[l])
			if r.qr {
				r.l, r.lend = lend, l
			} else {
				r.l, r.lend = l, lend
			}
		}
		var start bool
		if r.qr {
			start = r.nextQR()
		} else {
			start = r.nextQL()
		}
		if r.state == pwkFailed {
			return false
		}
		if start {
			r.state = pwkSweep
			return true
		}
		r.inBlock = false
	}
}

// nextQL is the top of pwkQL's loop: it deflates and reports whether a
// sweep starts (set up in r), or false when the block is diagonal or the
// iterations run out (then the state is pwkFailed).
func (r *pwkRun) nextQL() bool {
	d, e := r.d, r.e
	for {
		l, lend := r.l, r.lend
		m := l
		if r.vec {
			// The scan's first test here, where a block most often
			// deflates: the assembly's call costs more.
			if l < lend && !(math.Abs(e[l]) <= pwkEps2*math.Abs(d[l]*d[l+1])) {
				_, _ = d[lend], e[lend-1]
				m = deflQL8AVX512(&d[0], &e[0], l+1, lend)
			}
		} else {
			for ; m < lend; m++ {
				if math.Abs(e[m]) <= pwkEps2*math.Abs(d[m]*d[m+1]) {
					break
				}
			}
		}
		if m < lend {
			e[m] = 0
		}
		p := d[l]
		if m == l {
			if r.l++; r.l > lend {
				return false
			}
			continue
		}
		if m == l+1 {
			d[l], d[l+1] = gonumLapack.Dlae2(d[l], math.Sqrt(e[l]), d[l+1])
			e[l] = 0
			if r.l += 2; r.l > lend {
				return false
			}
			continue
		}
		if r.its == 0 {
			r.state = pwkFailed
			return false
		}
		r.its--
		r.sig = wilkinson(p, d[l+1], e[l])
		r.w = newRootFree(d[m], r.sig)
		r.m, r.i = m, m-1
		r.double = m-l >= pwkMinDouble
		if r.double {
			r.sig2 = p + d[l+1] - r.sig
			r.lo = l - pwkLag
		} else {
			r.lo = l - 1
		}
		return true
	}
}

// nextQR is nextQL's mirror image for pwkQR.
func (r *pwkRun) nextQR() bool {
	d, e := r.d, r.e
	for {
		l, lend := r.l, r.lend
		m := l
		if r.vec {
			if l > lend && !(math.Abs(e[l-1]) <= pwkEps2*math.Abs(d[l]*d[l-1])) {
				_ = d[l]
				m = deflQR8AVX512(&d[0], &e[0], l-1, lend)
			}
		} else {
			for ; m > lend; m-- {
				if math.Abs(e[m-1]) <= pwkEps2*math.Abs(d[m]*d[m-1]) {
					break
				}
			}
		}
		if m > lend {
			e[m-1] = 0
		}
		p := d[l]
		if m == l {
			if r.l--; r.l < lend {
				return false
			}
			continue
		}
		if m == l-1 {
			d[l], d[l-1] = gonumLapack.Dlae2(d[l], math.Sqrt(e[l-1]), d[l-1])
			e[l-1] = 0
			if r.l -= 2; r.l < lend {
				return false
			}
			continue
		}
		if r.its == 0 {
			r.state = pwkFailed
			return false
		}
		r.its--
		r.sig = wilkinson(p, d[l-1], e[l-1])
		r.w = newRootFree(d[m], r.sig)
		r.m, r.i = m, m
		r.double = l-m >= pwkMinDouble
		if r.double {
			r.sig2 = p + d[l-1] - r.sig
			r.lo = l + pwkLag - 1
		} else {
			r.lo = l
		}
		return true
	}
}

// step takes the sweep's next step: one iteration of the loop of pwkQL's
// or pwkQR's sweeps, and the sweep's end after the last.
func (r *pwkRun) step() {
	d, e := r.d, r.e
	l, m, i := r.l, r.m, r.i
	if !r.qr {
		if i >= l {
			alpha := d[i]
			next, ei := r.w.step(e[i], alpha, r.sig)
			if i != m-1 {
				e[i+1] = ei
			}
			d[i+1] = r.w.gamma + (alpha - next.gamma)
			r.w = next
		} else if i == l-1 {
			e[l], d[l] = r.w.end(r.sig)
		}
		if r.double {
			if j := i + pwkLag; j == m {
				r.w2 = newRootFree(d[m], r.sig2)
			} else if j < m {
				alpha := d[j]
				next, ej := r.w2.step(e[j], alpha, r.sig2)
				if j != m-1 {
					e[j+1] = ej
				}
				d[j+1] = r.w2.gamma + (alpha - next.gamma)
				r.w2 = next
			}
		}
		if r.i = i - 1; i == r.lo {
			if r.double {
				e[l], d[l] = r.w2.end(r.sig2)
			}
			r.state = pwkNext
		}
		return
	}
	if i < l {
		alpha := d[i+1]
		next, ei := r.w.step(e[i], alpha, r.sig)
		if i != m {
			e[i-1] = ei
		}
		d[i] = r.w.gamma + alpha - next.gamma
		r.w = next
	} else if i == l {
		e[l-1], d[l] = r.w.end(r.sig)
	}
	if r.double {
		if j := i - pwkLag; j == m-1 {
			r.w2 = newRootFree(d[m], r.sig2)
		} else if j > m-1 {
			alpha := d[j+1]
			next, ej := r.w2.step(e[j], alpha, r.sig2)
			if j != m {
				e[j-1] = ej
			}
			d[j] = r.w2.gamma + alpha - next.gamma
			r.w2 = next
		}
	}
	if r.i = i + 1; i == r.lo {
		if r.double {
			e[l-1], d[l] = r.w2.end(r.sig2)
		}
		r.state = pwkNext
	}
}
