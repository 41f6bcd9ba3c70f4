package svm

import (
	"fmt"
	"math"
	"slices"
)

// Restore returns the model of classes and machines that Fit or FitOn
// made over n training items, as read back from a file: the Model whose
// Classes and Machines they are, deciding on o.Workers goroutines, with
// class probabilities when o.Probability says that the machines carry
// their Platt sigmoids (o's other fields are not used). It returns an
// error for classes that are not at least two, distinct and ascending,
// machines that are not one per pair of classes in Fit's order, support
// vectors out of [0, n) or not ascending, coefficients that do not match
// them, and values that are not finite.
func Restore(classes []int, machines []Binary, n int, o Options) (*Model, error) {
	k := len(classes)
	if k < 2 {
		return nil, fmt.Errorf("svm: %d classes, want at least 2", k)
	}
	for c := 1; c < k; c++ {
		if classes[c] <= classes[c-1] {
			return nil, fmt.Errorf("svm: classes %v are not distinct and ascending", classes)
		}
	}
	if len(machines) != k*(k-1)/2 {
		return nil, fmt.Errorf("svm: %d machines for %d classes, want %d", len(machines), k, k*(k-1)/2)
	}
	p := 0
	for a := range k {
		for b := a + 1; b < k; b++ {
			bm := &machines[p]
			if bm.Pos != a || bm.Neg != b {
				return nil, fmt.Errorf("svm: machine %d is of classes (%d, %d), want (%d, %d)", p, bm.Pos, bm.Neg, a, b)
			}
			if len(bm.Coef) != len(bm.SV) {
				return nil, fmt.Errorf("svm: machine %d has %d coefficients for %d support vectors", p, len(bm.Coef), len(bm.SV))
			}
			for s, i := range bm.SV {
				if i < 0 || i >= n || s > 0 && i <= bm.SV[s-1] {
					return nil, fmt.Errorf("svm: machine %d: support vector %d (%d) out of range [0, %d) or not above the one before", p, s, i, n)
				}
				if c := bm.Coef[s]; math.IsNaN(c) || math.IsInf(c, 0) {
					return nil, fmt.Errorf("svm: machine %d: coefficient %d = %v", p, s, c)
				}
			}
			for _, v := range []float64{bm.Bias, bm.ProbA, bm.ProbB} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("svm: machine %d: bias or sigmoid %v", p, v)
				}
			}
			p++
		}
	}
	return &Model{Classes: slices.Clone(classes), Machines: slices.Clone(machines), n: n, workers: o.Workers, calibrated: o.Probability}, nil
}

// Compact returns the model over its support vectors only, and the
// training items they are, ascending: the union of the machines' support
// vectors, which the compact model's machines index (its n). Its
// decisions on a query's kernel values against those items are the
// model's on the values against all, bit for bit, so that a saved model
// need keep only the support vectors.
func (m *Model) Compact() (*Model, []int) {
	pos := make([]int, m.n)
	for i := range pos {
		pos[i] = -1
	}
	for _, bm := range m.Machines {
		for _, i := range bm.SV {
			pos[i] = 0
		}
	}
	var items []int
	for i, p := range pos {
		if p == 0 {
			pos[i] = len(items)
			items = append(items, i)
		}
	}
	c := &Model{Classes: slices.Clone(m.Classes), Machines: slices.Clone(m.Machines), n: len(items), workers: m.workers, calibrated: m.calibrated}
	for p := range c.Machines {
		bm := &c.Machines[p]
		sv := make([]int, len(bm.SV))
		for s, i := range bm.SV {
			sv[s] = pos[i]
		}
		bm.SV, bm.Coef = sv, slices.Clone(bm.Coef)
	}
	return c, items
}
