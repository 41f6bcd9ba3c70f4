package gabor

import (
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"
)

// The ZeroPad transform engine: circular convolution on a px×py torus
// holding the zero-padded image. Only taps |d| < n can reach an image pixel
// along an axis of length n, so the kernel is cut to radius
// min(R_v, n−1) there (exactly: the cut taps only ever meet zeros) and
// px ≥ w + min(R_max, w−1) keeps wrapped taps on the zero padding.
//
// The image is transformed once (real FFT of each row, complex FFT of each
// column) and shared by all 40 filters. Each kernel spectrum is separable,
// K̂(ky, kx) = H(kx)·Q(ky) − Gx(kx)·Gy(ky), so only 1-D spectra are cached.
// The inverse transforms columns first, only for the kx where the kernel
// spectrum is not negligible (relative bandEps), and then only the rows
// inside the image.

type fftPlan struct {
	w, h, px, py int
	gx, gy       [NumScales][]complex128 // DC factor spectra; gy includes 1/(px·py)
	filt         [NumPlanes]fftFilter
}

type fftFilter struct {
	hx, qy []complex128 // qy includes 1/(px·py)
	cols   []int32      // retained kx
}

// goodSize returns the smallest n' ≥ n whose only prime factors are 2, 3
// and 5, the lengths gonum's FFT handles fastest.
func goodSize(n int) int {
	for m := max(n, 1); ; m++ {
		k := m
		for _, f := range []int{2, 3, 5} {
			for k%f == 0 {
				k /= f
			}
		}
		if k == 1 {
			return m
		}
	}
}

// spectrum returns Σ_{|d| ≤ reff} (re(d) + i·sgn·im(d))·exp(−2πi·k·d/p) for
// k = 0..p−1, scaled by scale; im may be nil.
func spectrum(re, im []float64, sgn float64, reff, p int, scale float64) []complex128 {
	r := (len(re) - 1) / 2
	tw := make([]complex128, p)
	for m := range tw {
		tw[m] = cmplx.Rect(1, -2*math.Pi*float64(m)/float64(p))
	}
	out := make([]complex128, p)
	for k := range p {
		var sum complex128
		for d := -reff; d <= reff; d++ {
			f := complex(re[r+d], 0)
			if im != nil {
				f = complex(re[r+d], sgn*im[r+d])
			}
			m := (k * d) % p
			if m < 0 {
				m += p
			}
			sum += f * tw[m]
		}
		out[k] = sum * complex(scale, 0)
	}
	return out
}

func maxAbs(z []complex128) float64 {
	var m float64
	for _, v := range z {
		m = max(m, cmplx.Abs(v))
	}
	return m
}

func newFFTPlan(b *Bank, w, h int) *fftPlan {
	rmax := b.scales[NumScales-1].radius
	p := &fftPlan{w: w, h: h}
	p.px = goodSize(w + min(rmax, w-1))
	p.py = goodSize(h + min(rmax, h-1))
	norm := 1 / float64(p.px*p.py)
	for v := range NumScales {
		s := &b.scales[v]
		rx, ry := min(s.radius, w-1), min(s.radius, h-1)
		p.gx[v] = spectrum(s.env, nil, 0, rx, p.px, 1)
		p.gy[v] = spectrum(s.dc, nil, 0, ry, p.py, norm)
		mgy := maxAbs(p.gy[v])
		for u := range NumOrientations {
			uu, sgn := u, 1.0
			if u > 4 {
				uu, sgn = NumOrientations-u, -1
			}
			f := &p.filt[Index(v, u)]
			f.hx = spectrum(s.hc[uu], s.hs[uu], sgn, rx, p.px, 1)
			f.qy = spectrum(s.qc[uu], s.qs[uu], 1, ry, p.py, norm)
			mq := maxAbs(f.qy)
			var peak float64
			col := make([]float64, p.px)
			for kx := range p.px {
				col[kx] = cmplx.Abs(f.hx[kx])*mq + cmplx.Abs(p.gx[v][kx])*mgy
				peak = max(peak, col[kx])
			}
			for kx, c := range col {
				if c > bandEps*peak {
					f.cols = append(f.cols, int32(kx))
				}
			}
		}
	}
	return p
}

// fftSec models the seconds of one complex gonum FFT of length n.
func fftSec(n int) float64 {
	return secPerFFTPoint * float64(n) * math.Log2(float64(max(n, 2)))
}

// cost estimates the seconds per image: the forward transform, then per
// filter the retained column transforms and the h row transforms.
func (p *fftPlan) cost() float64 {
	c := float64(p.h)*fftSec(p.px)/2 + float64(p.px/2+1)*fftSec(p.py)
	for i := range p.filt {
		c += float64(len(p.filt[i].cols))*fftSec(p.py) + float64(p.h)*fftSec(p.px)
		c += float64(len(p.filt[i].cols)*p.py) * 4 * secPerMAC
	}
	return c
}

type fftScratch struct {
	rfft      *fourier.FFT
	cx, cy    *fourier.CmplxFFT
	row       []float64
	half      []complex128
	spec      []complex128 // py×px spectrum of the padded image
	col, rowc []complex128
	tmp       []complex128 // h×px column-transformed product
}

func newFFTScratch(p *fftPlan) *fftScratch {
	return &fftScratch{
		rfft: fourier.NewFFT(p.px), cx: fourier.NewCmplxFFT(p.px), cy: fourier.NewCmplxFFT(p.py),
		row: make([]float64, p.px), half: make([]complex128, p.px/2+1),
		spec: make([]complex128, p.px*p.py),
		col:  make([]complex128, p.py), rowc: make([]complex128, p.px),
		tmp: make([]complex128, p.h*p.px),
	}
}

func (p *fftPlan) run(dst [][]float64, img []float64, s *fftScratch) {
	w, h, px, py := p.w, p.h, p.px, p.py
	for y := range h {
		copy(s.row, img[y*w:(y+1)*w])
		s.rfft.Coefficients(s.half, s.row)
		copy(s.spec[y*px:y*px+px/2+1], s.half)
	}
	for kx := 0; kx <= px/2; kx++ {
		for ky := range py {
			s.col[ky] = 0
			if ky < h {
				s.col[ky] = s.spec[ky*px+kx]
			}
		}
		s.cy.Coefficients(s.col, s.col)
		for ky := range py {
			s.spec[ky*px+kx] = s.col[ky]
		}
	}
	for ky := range py {
		mirror := ((py - ky) % py) * px
		for kx := px/2 + 1; kx < px; kx++ {
			s.spec[ky*px+kx] = cmplx.Conj(s.spec[mirror+px-kx])
		}
	}
	for v := range NumScales {
		gx, gy := p.gx[v], p.gy[v]
		for u := range NumOrientations {
			i := Index(v, u)
			f := &p.filt[i]
			for _, kx := range f.cols {
				hx, g := f.hx[kx], gx[kx]
				for ky := range py {
					s.col[ky] = s.spec[ky*px+int(kx)] * (hx*f.qy[ky] - g*gy[ky])
				}
				s.cy.Sequence(s.col, s.col)
				for y := range h {
					s.tmp[y*px+int(kx)] = s.col[y]
				}
			}
			out := dst[i]
			for y := range h {
				s.cx.Sequence(s.rowc, s.tmp[y*px:(y+1)*px])
				for x := range w {
					z := s.rowc[x]
					out[y*w+x] = math.Sqrt(real(z)*real(z) + imag(z)*imag(z))
				}
			}
			for _, kx := range f.cols {
				for y := range h {
					s.tmp[y*px+int(kx)] = 0
				}
			}
		}
	}
}
