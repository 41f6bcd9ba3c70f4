package dense

import (
	"fmt"
	"testing"

	"github.com/covpipe/covpipe/internal/roofline"
)

// BenchmarkAIRMStages measures, one core, each stage of the generalised
// eigenvalues behind spd's AIRM distance at the face descriptors' d = 43
// (spd's fastEigen): a factorisation X = LLᵀ, Z = L⁻¹M, G = ZᵀZ, the
// tridiagonalisation of G and the eigenvalues of the tridiagonal matrix,
// with the factorisations' rate against the peak (the eigenvalues' root-
// free QL/QR steps are a serial chain, O(d²) operations: no rate). Also
// the four-lane factorisation of the Stein blocks, per matrix.
func BenchmarkAIRMStages(b *testing.B) {
	const d = 43
	r := newRand(1)
	x, y := spdOf(r, d, 1.5), spdOf(r, d, 1.5)
	l, m, z, g := make([]float64, d*d), make([]float64, d*d), make([]float64, d*d), make([]float64, d*d)
	work := make([]float64, 4*d)
	diag, off := make([]float64, d), make([]float64, d)
	CholLower(l, x, nil, d)
	CholLower(m, y, nil, d)
	SolveLowerT(z, l, m, work[:d], d)
	GramUpperT(g, z, d)
	g0 := append([]float64(nil), g...)
	Tridiagonalize(g, d, diag, off, work[:d], work[d:2*d])
	d0, e0 := append([]float64(nil), diag...), append([]float64(nil), off...)
	n3 := float64(d * d * d)
	b.Run(fmt.Sprintf("d=%d/cholesky", d), func(b *testing.B) {
		buf := make([]float64, d*d)
		for b.Loop() {
			CholLower(buf, x, y, d)
		}
		roofline.Report(b, n3/3)
	})
	b.Run(fmt.Sprintf("d=%d/cholesky4", d), func(b *testing.B) {
		var ys [4][]float64
		for q := range ys {
			ys[q] = spdOf(r, d, 1.5)
		}
		// One allocation: two of this size start on page boundaries
		// alike, which slows this loop (not spd's blocks, whose X
		// changes from row to row) by a third.
		h := make([]float64, 8*d*d)
		h, buf := h[:4*d*d], h[4*d*d:]
		PackHalf4(h, ys[0], ys[1], ys[2], ys[3], d)
		for b.Loop() {
			Chol4(buf, x, h, d)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(4*b.N), "ns/matrix")
		roofline.Report(b, 4*n3/3)
	})
	b.Run(fmt.Sprintf("d=%d/cholesky8", d), func(b *testing.B) {
		r := newRand(2)
		var ys [8][]float64
		for q := range ys {
			ys[q] = spdOf(r, d, 1.5)
		}
		h := make([]float64, 16*d*d)
		h, buf := h[:8*d*d], h[8*d*d:]
		PackHalf8(h, &ys, d)
		for b.Loop() {
			Chol8(buf, x, h, d)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(8*b.N), "ns/matrix")
		roofline.Report(b, 8*n3/3)
	})
	b.Run(fmt.Sprintf("d=%d/solve", d), func(b *testing.B) {
		buf := make([]float64, d*d)
		for b.Loop() {
			SolveLowerT(buf, l, m, work[:d], d)
		}
		roofline.Report(b, n3/3)
	})
	b.Run(fmt.Sprintf("d=%d/gram", d), func(b *testing.B) {
		buf := make([]float64, d*d)
		for b.Loop() {
			GramUpperT(buf, z, d)
		}
		roofline.Report(b, n3/3)
	})
	b.Run(fmt.Sprintf("d=%d/whitenedgram8", d), func(b *testing.B) {
		if !Lanes8(d) {
			b.Skip("no AVX-512")
		}
		// Eight targets' Z = L⁻¹M, scaled, and G = ZᵀZ: the solve and
		// Gram stages of eight distances.
		var ms [8][]float64
		for p := range ms {
			ms[p] = make([]float64, d*d)
			CholLower(ms[p], spdOf(r, d, 1.5), nil, d)
		}
		h, mz := make([]float64, 8*d*d), make([]float64, 8*d*d)
		var s [8]int
		var ok [8]bool
		for b.Loop() {
			WhitenedGram8(h, mz, l, &ms, d, &s, &ok)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(8*b.N), "ns/matrix")
		roofline.Report(b, 8*2*n3/3)
	})
	b.Run(fmt.Sprintf("d=%d/tridiagonalize", d), func(b *testing.B) {
		p, q := make([]float64, d), make([]float64, d)
		for b.Loop() {
			copy(g, g0)
			Tridiagonalize(g, d, diag, off, p, q)
		}
		roofline.Report(b, 4*n3/3)
	})
	b.Run(fmt.Sprintf("d=%d/tridiagonalize8", d), func(b *testing.B) {
		var gs [8][]float64
		for p := range gs {
			gs[p] = airmGram(uint64(200+p), d, 1.5)
		}
		h0 := pack8(gs, d)
		h := make([]float64, len(h0))
		diag, off := make([]float64, 8*d), make([]float64, 8*d)
		p, q := make([]float64, 8*d), make([]float64, 8*d)
		for b.Loop() {
			copy(h, h0)
			Tridiagonalize8(h, d, diag, off, p, q)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(8*b.N), "ns/matrix")
		roofline.Report(b, 8*4*n3/3)
	})
	b.Run(fmt.Sprintf("d=%d/eigenvalues8", d), func(b *testing.B) {
		// Eight problems of eight pairs (the distances of a batch), not
		// one problem eight times: their iterations deflate apart.
		h := make([]float64, 8*d*d)
		var gs [8][]float64
		for p := range gs {
			gs[p] = airmGram(uint64(300+p), d, 1.5)
		}
		copy(h, pack8(gs, d))
		d0, e0 := make([]float64, 8*d), make([]float64, 8*d)
		Tridiagonalize8(h, d, d0, e0, make([]float64, 8*d), make([]float64, 8*d))
		diag, off, w := make([]float64, 8*d), make([]float64, 8*d), make([]float64, 16*d)
		var ok [8]bool
		for b.Loop() {
			copy(diag, d0)
			copy(off, e0)
			TridiagEigen8(diag, off, d, w, &ok)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(8*b.N), "ns/matrix")
	})
	b.Run(fmt.Sprintf("d=%d/eigenvalues", d), func(b *testing.B) {
		for b.Loop() {
			copy(diag, d0)
			copy(off, e0)
			if !TridiagEigen(diag, off[:d-1], work[d:]) {
				b.Fatal("no convergence")
			}
		}
	})
}
