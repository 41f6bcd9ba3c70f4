package rsr

import "math"

// sci returns the sparsity concentration index of the code v (see
// Decision.SCI).
func (c *Classifier) sci(v []float64) float64 {
	k := len(c.members)
	if k == 1 {
		return 1
	}
	var total, most float64
	for _, atoms := range c.members {
		var mass float64
		for _, j := range atoms {
			mass += math.Abs(v[j])
		}
		total += mass
		most = math.Max(most, mass)
	}
	if total == 0 {
		return 0
	}
	return (float64(k)*most/total - 1) / float64(k-1)
}

// Shares returns the class scores of d normalised to shares that sum to
// one, in the order of Labels, so that they can be compared across
// queries and thresholded (SharesTo writes them into a caller's slice).
//
// For the MinResidual rule (Eqn. 9) a class's share is the part of the
// query's energy k(X, X) that its atoms explain, out of what all classes
// explain:
//
//	p_i = (k(X,X) − ε_i)₊ / Σ_j (k(X,X) − ε_j)₊,
//
// with (t)₊ = max(t, 0): ε_i = k(X,X) when class i has no coefficient, so
// classes the code does not use get 0 however many there are, and the
// kernel's scale cancels. For the similarity rules the shares are those of
// the positive similarities, p_i = (h_i)₊ / Σ_j (h_j)₊. The class with the
// best score has the largest share. When no class explains anything (an
// all-zero code) every class has the share 1/k. It panics when d has more
// scores than c has classes (a Decision of another classifier), like slice
// indexing.
func (c *Classifier) Shares(d Decision) []float64 {
	dst := make([]float64, len(d.Scores))
	c.SharesTo(dst, d)
	return dst
}

// SharesTo writes Shares(d) into dst, which must have one element per
// class.
func (c *Classifier) SharesTo(dst []float64, d Decision) {
	dst = dst[:len(c.labels)]
	var total float64
	for i, s := range d.Scores {
		if c.rule == MinResidual {
			s = d.kxx - s
		}
		dst[i] = math.Max(s, 0)
		total += dst[i]
	}
	if !(total > 0) {
		for i := range dst {
			dst[i] = 1 / float64(len(dst))
		}
		return
	}
	for i := range dst {
		dst[i] /= total
	}
}
