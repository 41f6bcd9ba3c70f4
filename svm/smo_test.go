package svm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSecondOrderSelection checks the working-set selection of Fan, Chen
// and Lin: from α = 0 every negative violates equally (b = 2), so the first
// step must pair the positive with the negative of least curvature
// a = K_ii + K_jj − 2K_ij, the nearest one, which decreases the objective
// most (b²/2a); a first-order rule sees a tie and cannot tell them apart.
func TestSecondOrderSelection(t *testing.T) {
	x := [][]float64{{0}, {3}, {0.8}, {-2}}
	y := []float64{1, -1, -1, -1}
	k := rbf(x, x, 0.5)
	s, _ := solve(context.Background(), k.RawMatrix().Data, y, 10, DefaultTol, 1)
	if s.iters != 1 || !(s.alpha[2] > 0) || s.alpha[1] != 0 || s.alpha[3] != 0 {
		t.Errorf("after one step α = %v, want only α_0 and α_2 moved", s.alpha)
	}
	// The step is the exact minimiser along the pair: b/a = 2/(2 − 2K_02).
	if want := 2 / (2 - 2*k.At(0, 2)); math.Abs(s.alpha[0]-want) > 1e-12 || s.alpha[2] != s.alpha[0] {
		t.Errorf("α = %v, want α_0 = α_2 = %v", s.alpha, want)
	}
}

// solvePlain is the SMO step of Fan, Chen and Lin as the paper states it,
// on ∇f with three passes a step: select i, select j and find M, update
// ∇f (the box clip is solve's step). solve must reproduce its iterates bit
// for bit.
func solvePlain(k, y []float64, c, tol float64, maxIter int) solution {
	n := len(y)
	alpha, grad := make([]float64, n), make([]float64, n)
	for t := range grad {
		grad[t] = -1
	}
	s := solution{alpha: alpha}
	for s.iters = 0; ; s.iters++ {
		i, m := -1, math.Inf(-1)
		for t := range n {
			if v := -y[t] * grad[t]; inUp(alpha[t], y[t], c) && v > m {
				i, m = t, v
			}
		}
		j, best, bigM := -1, math.Inf(1), math.Inf(1)
		for t := range n {
			v := -y[t] * grad[t]
			if !inLow(alpha[t], y[t], c) {
				continue
			}
			bigM = min(bigM, v)
			if i >= 0 && v < m {
				curv := k[i*n+i] + k[t*n+t] - 2*k[i*n+t]
				if curv <= 0 {
					curv = tau
				}
				if obj := -(m - v) * (m - v) / curv; obj < best {
					j, best = t, obj
				}
			}
		}
		if s.gap = m - bigM; i < 0 || j < 0 || s.gap <= tol {
			s.converged = true
			break
		}
		if s.iters >= maxIter {
			break
		}
		curv := k[i*n+i] + k[j*n+j] - 2*k[i*n+j]
		if curv <= 0 {
			curv = tau
		}
		delta := step(alpha, y, i, j, (m+y[j]*grad[j])/curv, c)
		for t := range n {
			grad[t] += y[t] * delta * (k[i*n+t] - k[j*n+t])
		}
	}
	s.bias = bias(alpha, y, grad, c)
	for t, a := range alpha {
		s.objective -= 0.5 * a * (grad[t] - 1)
	}
	return s
}

// TestSolveMatchesPlain checks that solve's two-pass steps on v give the
// iterates of the plain three-pass form on ∇f bit for bit: the same α,
// bias, objective, violation and step count, on overlapping classes (many
// bounded α), separable ones, a Stein Gram matrix, an indefinite
// pseudo-kernel (the τ curvature), boxes from tight to loose, and
// iteration caps that stop mid-way.
func TestSolveMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	type problem struct {
		name string
		k    []float64
		y    []float64
	}
	var problems []problem
	for _, sd := range []float64{0.3, 1, 3} {
		x, labels := blobs(rng, [][]float64{{0, 0}, {1, 0.5}}, []int{0, 1}, 40, sd)
		y := make([]float64, len(labels))
		for i, l := range labels {
			y[i] = float64(1 - 2*l)
		}
		problems = append(problems, problem{"rbf", rbf(x, x, 1).RawMatrix().Data, y})
	}
	ks, labels, _, _ := steinProblem(t)
	idx := mergeTo(nil, classMembers(labels, 0), classMembers(labels, 1))
	y := make([]float64, len(idx))
	for a, i := range idx {
		y[a] = float64(1 - 2*labels[i])
	}
	problems = append(problems, problem{"stein", blockTo(nil, ks, idx), y})
	n := 30
	ind := make([]float64, n*n)
	for a := range n {
		for b := a; b < n; b++ {
			ind[a*n+b] = rng.NormFloat64()
			ind[b*n+a] = ind[a*n+b]
		}
	}
	yi := make([]float64, n)
	for a := range yi {
		yi[a] = float64(1 - 2*(a%2))
	}
	problems = append(problems, problem{"indefinite", ind, yi})
	for _, p := range problems {
		for _, c := range []float64{0.01, 1, 10, 100} {
			for _, maxIter := range []int{3, 100000} {
				got, _ := solve(context.Background(), p.k, p.y, c, DefaultTol, maxIter)
				want := solvePlain(p.k, p.y, c, DefaultTol, maxIter)
				same := got.iters == want.iters && got.converged == want.converged &&
					math.Float64bits(got.bias) == math.Float64bits(want.bias) &&
					math.Float64bits(got.objective) == math.Float64bits(want.objective) &&
					math.Float64bits(got.gap) == math.Float64bits(want.gap)
				for a := range got.alpha {
					same = same && math.Float64bits(got.alpha[a]) == math.Float64bits(want.alpha[a])
				}
				if !same {
					t.Errorf("%s, C = %v, cap %d: %d steps (converged %v), b = %v, D = %v; plain form %d (%v), b = %v, D = %v",
						p.name, c, maxIter, got.iters, got.converged, got.bias, got.objective, want.iters, want.converged, want.bias, want.objective)
				}
			}
		}
	}
}
