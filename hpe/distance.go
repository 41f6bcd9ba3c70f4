package hpe

import (
	"context"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/appearance"
)

// Weights are the weights of the HPE distance (Distance):
// d = H·d_H + Generic·d_gE + Local·d_lE.
type Weights struct {
	H, Generic, Local float64
}

// DefaultWeights returns equal weights 1/3: each of the three distances
// lies in [0, 1], and the histogram, the generic and the local epitome
// count alike (see the package documentation).
func DefaultWeights() Weights { return Weights{H: 1.0 / 3, Generic: 1.0 / 3, Local: 1.0 / 3} }

// Validate returns an error unless the weights are finite, >= 0 and not
// all 0.
func (w Weights) Validate() error {
	ok := func(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }
	if !ok(w.H) || !ok(w.Generic) || !ok(w.Local) || w.H+w.Generic+w.Local == 0 {
		return fmt.Errorf("hpe weights %v (histograms), %v (generic epitome) and %v (local epitomes), want finite values >= 0, not all 0", w.H, w.Generic, w.Local)
	}
	return nil
}

// HistogramDistance returns d_H(A, B) = (d_B(torso) + d_B(legs))/2, the
// mean Bhattacharyya distance (appearance.Bhattacharyya) of the two
// signatures' accumulated part histograms; an error when they differ in
// length or hold invalid values.
func HistogramDistance(a, b *Signature) (float64, error) {
	dt, err := appearance.Bhattacharyya(a.Torso, b.Torso)
	if err != nil {
		return 0, fmt.Errorf("torso histograms: %w", err)
	}
	dl, err := appearance.Bhattacharyya(a.Legs, b.Legs)
	if err != nil {
		return 0, fmt.Errorf("legs histograms: %w", err)
	}
	return (dt + dl) / 2, nil
}

// GenericDistance returns d_gE(A, B), the Bhattacharyya distance of the
// generic epitomes' usage-weighted histograms (Signature.GenericHist).
// An epitome is defined up to a shift on its torus, so its pixels cannot
// be compared place by place; its colour content can. It returns an error
// when the histograms differ in length or hold invalid values.
func GenericDistance(a, b *Signature) (float64, error) {
	d, err := appearance.Bhattacharyya(a.GenericHist, b.GenericHist)
	if err != nil {
		return 0, fmt.Errorf("generic epitome histograms: %w", err)
	}
	return d, nil
}

// PatchDistance returns the root-mean-square difference
// √(Σ_{i,c} (a_ic − b_ic)²/n) of two local epitomes' means of n values
// each, in [0, 1] for colours in [0, 1]; it checks nothing.
func PatchDistance(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return math.Sqrt(s / float64(len(a)))
}

// LocalDistance returns d_lE(A, B) = (m(A, B) + m(B, A))/2 with
// m(A, B) = (1/|A|) Σ_{a∈A} min_{b∈B} PatchDistance(a, b): each local
// epitome is matched to its nearest on the other side, both ways. It is
// 1 when either signature has none, and an error when their patch sizes
// differ. PatchDistance is symmetric to the last bit (its differences
// only change sign), so each pair is measured once for both ways.
func LocalDistance(a, b *Signature) (float64, error) {
	if len(a.Locals) == 0 || len(b.Locals) == 0 {
		return 1, nil
	}
	if len(a.Locals[0].Mean) != len(b.Locals[0].Mean) {
		return 0, fmt.Errorf("local epitomes of %d and %d values", len(a.Locals[0].Mean), len(b.Locals[0].Mean))
	}
	// nearA[j] is the distance of b's j-th epitome to its nearest of a's.
	var buf [2 * DefaultLocal]float64
	nearA := buf[:0]
	if len(b.Locals) > len(buf) {
		nearA = make([]float64, 0, len(b.Locals))
	}
	for range b.Locals {
		nearA = append(nearA, math.Inf(1))
	}
	var sumA float64
	for _, x := range a.Locals {
		best := math.Inf(1)
		for j, y := range b.Locals {
			d := PatchDistance(x.Mean, y.Mean)
			best = min(best, d)
			nearA[j] = min(nearA[j], d)
		}
		sumA += best
	}
	var sumB float64
	for _, d := range nearA {
		sumB += d
	}
	return (sumA/float64(len(a.Locals)) + sumB/float64(len(b.Locals))) / 2, nil
}

// Distance returns the HPE distance of two signatures,
// w.H·d_H + w.Generic·d_gE + w.Local·d_lE (HistogramDistance,
// GenericDistance, LocalDistance; Bazzani et al., ICPR 2010, Sec. 3).
// For two signatures of Describe the Bhattacharyya coefficients are dot
// products of the histograms' square roots, computed once per signature.
// It returns an error when a signature is nil, w is invalid, or as the
// three distances.
func Distance(a, b *Signature, w Weights) (float64, error) {
	switch err := w.Validate(); {
	case err != nil:
		return 0, err
	case a == nil || b == nil:
		return 0, fmt.Errorf("hpe distance of a nil signature")
	}
	var dh, dg float64
	if ra, rb := a.roots, b.roots; ra != nil && rb != nil && len(ra[0]) == len(rb[0]) && len(ra[2]) == len(rb[2]) {
		// Signatures of Describe: valid histograms whose roots are cached.
		dh = (appearance.SqrtBhattacharyya(ra[0], rb[0]) + appearance.SqrtBhattacharyya(ra[1], rb[1])) / 2
		dg = appearance.SqrtBhattacharyya(ra[2], rb[2])
	} else {
		var err error
		if dh, err = HistogramDistance(a, b); err != nil {
			return 0, err
		}
		if dg, err = GenericDistance(a, b); err != nil {
			return 0, err
		}
	}
	dl, err := LocalDistance(a, b)
	if err != nil {
		return 0, err
	}
	return w.H*dh + w.Generic*dg + w.Local*dl, nil
}

// Rank returns the gallery identities (indices into gallery) in
// increasing Distance from the probe, ties by index, and the distances in
// that order: the ranking whose first k entries decide whether the probe
// counts at rank k of a cumulative matching characteristic (CMC). It
// returns an error wrapping ctx.Err() once ctx is cancelled (it looks
// between identities), or as Distance, naming the identity.
func Rank(ctx context.Context, probe *Signature, gallery []*Signature, w Weights) ([]int, []float64, error) {
	if err := w.Validate(); err != nil {
		return nil, nil, err
	}
	return appearance.RankGallery(ctx, len(gallery), func(g int) (float64, error) {
		return Distance(probe, gallery[g], w)
	})
}
