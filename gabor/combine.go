package gabor

import "math"

// The engines decompose each complex response G_u = (K_u ⊛ I) of one scale
// into the real planes of the separable parts of
//
//	K_u = (hc + i·hs)(x) ⊗ (qc + i·qs)(y) − env(x) ⊗ dc(y),
//
// namely Pcc = (hc⊗qc)⊛I, Pss = (hs⊗qs)⊛I, Psc = (hs⊗qc)⊛I, Pcs = (hc⊗qs)⊛I
// and DC = (env⊗dc)⊛I, so that
//
//	Re G_u = Pcc − Pss − DC,   Im G_u = Psc + Pcs.
//
// Orientation 8−u has θ' = π−θ, i.e. hs → −hs with the same hc, qc, qs, so
// one set of four planes gives both members of the pair. Orientation 0 has
// qs = 0 and orientation 4 has hs = 0.

// combinePair writes |G_u| into gu and |G_{8−u}| into gbar.
func combinePair(gu, gbar, dc, pcc, pss, psc, pcs []float64) {
	gu, gbar = gu[:len(dc)], gbar[:len(dc)]
	pcc, pss, psc, pcs = pcc[:len(dc)], pss[:len(dc)], psc[:len(dc)], pcs[:len(dc)]
	for i, d := range dc {
		a := pcc[i] - d
		re1, re2 := a-pss[i], a+pss[i]
		im1, im2 := pcs[i]+psc[i], pcs[i]-psc[i]
		gu[i] = math.Sqrt(re1*re1 + im1*im1)
		gbar[i] = math.Sqrt(re2*re2 + im2*im2)
	}
}

// combineOne writes |G| = |(pcc − dc) + i·im| into g; im is Psc for u = 0
// and Pcs for u = 4.
func combineOne(g, dc, pcc, im []float64) {
	g, pcc, im = g[:len(dc)], pcc[:len(dc)], im[:len(dc)]
	for i, d := range dc {
		re := pcc[i] - d
		g[i] = math.Sqrt(re*re + im[i]*im[i])
	}
}
