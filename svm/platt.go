package svm

import (
	"context"
	"math"
	"math/rand/v2"
)

// DefaultProbabilityFolds is the default number of folds of the internal
// cross-validation that calibrates a Model's probabilities, libsvm's.
const DefaultProbabilityFolds = 5

// minProb bounds the pairwise probabilities away from 0 and 1 before they
// are coupled, as libsvm does.
const minProb = 1e-7

// calibrate fits the Platt sigmoid P(y = +1 | f) = 1/(1 + exp(A f + B))
// of binary machine p, whose items have the row-major n×n kernel matrix k
// and labels y (±1). The decision values f of its items come from a
// cross-validation over folds random folds, each fold's from a machine
// trained with the same C on the other folds (Platt 1999, Sec. 2.3:
// values on the training data itself are biased towards the margin); the
// folds' permutation comes from the seed and p only, whatever the worker
// that trains the machine. A fold whose other folds hold one class only
// takes the decision value ±1 of that class, as in libsvm's
// svm_binary_svc_probability. (A, B) then minimise the cross-entropy
// against Platt's smoothed targets (sigmoidFit).
func calibrate(ctx context.Context, k, y []float64, c, tol float64, maxIter, folds int, seed uint64, p int, b *machineBufs) (probA, probB float64, err error) {
	n := len(y)
	perm := rand.New(rand.NewPCG(seed, uint64(p))).Perm(n)
	b.dec = resize(b.dec, n)
	for f := range folds {
		lo, hi := f*n/folds, (f+1)*n/folds
		if lo == hi {
			continue
		}
		// The items of the other folds, in permutation order, as libsvm
		// takes them.
		b.sub = append(append(b.sub[:0], perm[:lo]...), perm[hi:]...)
		pos, neg := 0, 0
		for _, t := range b.sub {
			if y[t] > 0 {
				pos++
			} else {
				neg++
			}
		}
		if pos == 0 || neg == 0 {
			v := 1.0
			if pos == 0 {
				v = -1
			}
			for _, t := range perm[lo:hi] {
				b.dec[t] = v
			}
			continue
		}
		m := len(b.sub)
		b.subK = resize(b.subK, m*m)
		b.subY = resize(b.subY, m)
		for a, i := range b.sub {
			b.subY[a] = y[i]
			row := k[i*n : (i+1)*n]
			for e, j := range b.sub {
				b.subK[a*m+e] = row[j]
			}
		}
		s, err := solve(ctx, b.subK, b.subY, c, tol, maxIter)
		if err != nil {
			return 0, 0, err
		}
		for _, t := range perm[lo:hi] {
			row := k[t*n : (t+1)*n]
			val := s.bias
			for a, i := range b.sub {
				if s.alpha[a] > 0 {
					val += b.subY[a] * s.alpha[a] * row[i]
				}
			}
			b.dec[t] = val
		}
	}
	probA, probB = sigmoidFit(b.dec, y)
	return probA, probB, nil
}

// sigmoidFit returns the (A, B) of Platt's sigmoid 1/(1 + exp(A f + B))
// that minimise the cross-entropy −Σ_i t_i log p_i + (1 − t_i) log(1 − p_i)
// of the decision values f against the targets t_i = (N₊ + 1)/(N₊ + 2) for
// y_i = +1 and 1/(N₋ + 2) for y_i = −1 (Platt 1999, Eqn. 6's
// regularised targets), by the Newton method with a backtracking line
// search of Lin, Lin and Weng, "A note on Platt's probabilistic outputs
// for support vector machines", Machine Learning 68 (2007) 267–276
// (Algorithm 1), which evaluates every term in a form that neither
// overflows nor cancels: libsvm's sigmoid_train.
func sigmoidFit(dec, y []float64) (a, b float64) {
	var prior1, prior0 float64
	for _, l := range y {
		if l > 0 {
			prior1++
		} else {
			prior0++
		}
	}
	const (
		maxIter = 100
		minStep = 1e-10
		sigma   = 1e-12 // keeps the Hessian strictly positive definite
		eps     = 1e-5
	)
	hi, lo := (prior1+1)/(prior1+2), 1/(prior0+2)
	target := func(l float64) float64 {
		if l > 0 {
			return hi
		}
		return lo
	}
	objective := func(a, b float64) float64 {
		var f float64
		for i, d := range dec {
			t, z := target(y[i]), d*a+b
			if z >= 0 {
				f += t*z + math.Log1p(math.Exp(-z))
			} else {
				f += (t-1)*z + math.Log1p(math.Exp(z))
			}
		}
		return f
	}
	a, b = 0, math.Log((prior0+1)/(prior1+1))
	fval := objective(a, b)
	for range maxIter {
		h11, h22, h21, g1, g2 := sigma, sigma, 0.0, 0.0, 0.0
		for i, d := range dec {
			z := d*a + b
			var p, q float64
			if z >= 0 {
				e := math.Exp(-z)
				p, q = e/(1+e), 1/(1+e)
			} else {
				e := math.Exp(z)
				p, q = 1/(1+e), e/(1+e)
			}
			d2 := p * q
			h11 += d * d * d2
			h22 += d2
			h21 += d * d2
			d1 := target(y[i]) - p
			g1 += d * d1
			g2 += d1
		}
		if math.Abs(g1) < eps && math.Abs(g2) < eps {
			break
		}
		det := h11*h22 - h21*h21
		da, db := -(h22*g1-h21*g2)/det, -(-h21*g1+h11*g2)/det
		gd := g1*da + g2*db
		step := 1.0
		for ; step >= minStep; step /= 2 {
			na, nb := a+step*da, b+step*db
			if nf := objective(na, nb); nf < fval+1e-4*step*gd {
				a, b, fval = na, nb, nf
				break
			}
		}
		if step < minStep {
			break
		}
	}
	return a, b
}

// sigmoid returns Platt's P(y = +1 | f) = 1/(1 + exp(A f + B)) without
// overflow, bounded to [minProb, 1 − minProb].
func sigmoid(f, a, b float64) float64 {
	z := f*a + b
	var p float64
	if z >= 0 {
		e := math.Exp(-z)
		p = e / (1 + e)
	} else {
		p = 1 / (1 + math.Exp(z))
	}
	return min(max(p, minProb), 1-minProb)
}

// couple returns in p the class probabilities that best agree with the
// pairwise probabilities r (row-major k×k, r[i*k+j] = P(i | i or j), and
// r[j*k+i] = 1 − r[i*k+j]): Wu, Lin and Weng, "Probability estimates for
// multi-class classification by pairwise coupling", JMLR 5 (2004)
// 975–1005, method 2 (their Eqn. 4):
//
//	min_p Σ_i Σ_{j≠i} (r_ji p_i − r_ij p_j)²  s.t. Σ_i p_i = 1, p_i ≥ 0,
//
// solved by their fixed-point iteration (Eqns. 18–19), as libsvm's
// multiclass_probability does, with Q_tt = Σ_{j≠t} r_jt² and
// Q_tj = −r_jt r_tj, to max |(Qp)_t − pᵀQp| < 0.005/k or max(100, k)
// iterations. qp is scratch of length k.
func couple(p, r, qp []float64) {
	k := len(p)
	for t := range p {
		p[t] = 1 / float64(k)
	}
	if k == 1 {
		return
	}
	q := func(t, j int) float64 {
		if t == j {
			var s float64
			for i := range k {
				if i != t {
					s += r[i*k+t] * r[i*k+t]
				}
			}
			return s
		}
		return -r[j*k+t] * r[t*k+j]
	}
	// The diagonal of Q, read at every step.
	diag := qp[k : 2*k]
	for t := range k {
		diag[t] = q(t, t)
	}
	qp = qp[:k]
	eps := 0.005 / float64(k)
	for range max(100, k) {
		var pqp float64
		for t := range k {
			var s float64
			for j := range k {
				if j == t {
					s += diag[t] * p[j]
				} else {
					s += q(t, j) * p[j]
				}
			}
			qp[t] = s
			pqp += p[t] * s
		}
		worst := 0.0
		for t := range k {
			worst = math.Max(worst, math.Abs(qp[t]-pqp))
		}
		if worst < eps {
			break
		}
		for t := range k {
			diff := (-qp[t] + pqp) / diag[t]
			p[t] += diff
			pqp = (pqp + diff*(diff*diag[t]+2*qp[t])) / (1 + diff) / (1 + diff)
			for j := range k {
				qtj := diag[t]
				if j != t {
					qtj = q(t, j)
				}
				qp[j] = (qp[j] + diff*qtj) / (1 + diff)
				p[j] /= 1 + diff
			}
		}
	}
}

// Calibrated reports whether the model's decisions carry class
// probabilities (Options.Probability).
func (m *Model) Calibrated() bool { return m.calibrated }

// coupling is the scratch of one query's probabilities: the pairwise
// probabilities r (k×k) and couple's 2k values.
type coupling struct {
	k     int
	r, qp []float64
}

func (m *Model) newCoupling() *coupling {
	k := len(m.Classes)
	return &coupling{k: k, r: make([]float64, k*k), qp: make([]float64, 2*k)}
}

// pair records the Platt probabilities of machine b's classes from its
// decision value f.
func (c *coupling) pair(b *Binary, f float64) {
	p := sigmoid(f, b.ProbA, b.ProbB)
	c.r[b.Pos*c.k+b.Neg], c.r[b.Neg*c.k+b.Pos] = p, 1-p
}
