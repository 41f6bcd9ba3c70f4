package gabor

import (
	"errors"
	"fmt"
	"math"
)

// Cost-model constants for Auto, measured on the development machine
// (2.8 GHz Xeon, gonum's SSE2 axpy/dot kernels, gonum's FFTPACK port). Only
// their ratios matter.
const (
	secPerMAC      = 0.25e-9 // one multiply-add inside an assembly kernel
	secPerCall     = 5e-9    // overhead of one dot or axpy call
	secPerFFTPoint = 4.4e-9  // per n·log2(n) of one complex FFT of length n
)

// MaxSide is the largest accepted image width or height. The bank is built
// for face crops; the Symmetric-border engine's cost grows like side³, so
// larger images should be tiled or downsampled first.
const MaxSide = 1024

// maxPlans bounds the number of per-size plans a Bank caches.
const maxPlans = 32

var (
	// ErrSize is wrapped by errors for bad image sizes, buffer lengths and
	// mismatched workspaces.
	ErrSize = errors.New("gabor: bad size")
	// ErrNotFinite is wrapped by errors for NaN or infinite pixels.
	ErrNotFinite = errors.New("gabor: non-finite pixel")
)

type planKey struct {
	w, h int
	m    Method // Direct, FFT, or Auto for the cached resolution
}

// cached returns the cached value for key, building it with mk on a miss.
// mk runs without the lock held, so concurrent misses may build twice; the
// first stored value wins.
func (b *Bank) cached(key planKey, mk func() any) any {
	b.mu.Lock()
	p, ok := b.plans[key]
	b.mu.Unlock()
	if ok {
		return p
	}
	p = mk()
	b.mu.Lock()
	defer b.mu.Unlock()
	if q, ok := b.plans[key]; ok {
		return q
	}
	if len(b.plans) >= maxPlans {
		for k := range b.plans {
			delete(b.plans, k)
			break
		}
	}
	b.plans[key] = p
	return p
}

// transformPlan returns the FFT-method plan for a w×h image: a *dctPlan for
// Symmetric borders, an *fftPlan for ZeroPad.
func (b *Bank) transformPlan(w, h int) any {
	return b.cached(planKey{w, h, FFT}, func() any {
		if b.border == Symmetric {
			return newDCTPlan(b, w, h)
		}
		return newFFTPlan(b, w, h)
	})
}

// resolve returns the engine used for w×h images: the bank's method, or
// for Auto the one with the lower modelled cost.
func (b *Bank) resolve(w, h int) Method {
	if b.method != Auto {
		return b.method
	}
	return b.cached(planKey{w, h, Auto}, func() any {
		var c float64
		switch p := b.transformPlan(w, h).(type) {
		case *dctPlan:
			c = p.cost()
		case *fftPlan:
			c = p.cost()
		}
		if directCost(b, w, h) < c {
			return Direct
		}
		return FFT
	}).(Method)
}

// Workspace holds the plan and scratch buffers for filtering w×h images
// with one Bank, so that MagnitudesTo allocates nothing. A Workspace is not
// safe for concurrent use: give each goroutine its own.
type Workspace struct {
	bank   *Bank
	w, h   int
	method Method

	direct *directPlan
	ds     *directScratch
	dct    *dctPlan
	cs     *dctScratch
	fft    *fftPlan
	fs     *fftScratch
}

func checkSize(w, h int) error {
	if w < 1 || h < 1 || w > MaxSide || h > MaxSide {
		return fmt.Errorf("%w: image %d×%d, want 1 ≤ width, height ≤ %d", ErrSize, w, h, MaxSide)
	}
	return nil
}

// NewWorkspace returns a workspace for w×h images (w columns, h rows), with
// the engine resolved for that size. It returns an error wrapping ErrSize
// unless 1 ≤ w, h ≤ MaxSide.
func (b *Bank) NewWorkspace(w, h int) (*Workspace, error) {
	if err := checkSize(w, h); err != nil {
		return nil, err
	}
	ws := &Workspace{bank: b, w: w, h: h, method: b.resolve(w, h)}
	switch {
	case ws.method == Direct:
		ws.direct = b.cached(planKey{w, h, Direct}, func() any { return newDirectPlan(b, w, h) }).(*directPlan)
		ws.ds = newDirectScratch(w, h)
	case b.border == Symmetric:
		ws.dct = b.transformPlan(w, h).(*dctPlan)
		ws.cs = newDCTScratch(w, h)
	default:
		ws.fft = b.transformPlan(w, h).(*fftPlan)
		ws.fs = newFFTScratch(ws.fft)
	}
	return ws, nil
}

// Size returns the image width and height the workspace was made for.
func (ws *Workspace) Size() (w, h int) { return ws.w, ws.h }

// Method returns the engine the workspace uses, Direct or FFT.
func (ws *Workspace) Method() Method { return ws.method }

// MagnitudesTo computes the 40 Gabor magnitude planes of the w×h image img
// (row-major, img[y·w+x]) into dst, allocating nothing:
//
//	dst[v·8+u][y·w+x] = |G_{u,v}(x, y)| = |Σ_{s,t} I_ext(s, t)·ψ_{u,v}(x−s, y−t)|
//
// (paper, Sec. 5.1, "Face Recognition"; ψ as in Bank.Kernel, I_ext the image
// extended by the bank's Border). dst must hold NumPlanes slices of length
// w·h that do not overlap img. ws must come from b.NewWorkspace(w, h); nil
// allocates a temporary one. It returns an error wrapping ErrSize for a bad
// size, img or dst length or a mismatched workspace, and ErrNotFinite for
// NaN or infinite pixels; dst is then unchanged.
func (b *Bank) MagnitudesTo(dst [][]float64, img []float64, w, h int, ws *Workspace) error {
	if err := checkSize(w, h); err != nil {
		return err
	}
	if len(img) != w*h {
		return fmt.Errorf("%w: image %d×%d has %d pixels, want %d", ErrSize, w, h, len(img), w*h)
	}
	if len(dst) != NumPlanes {
		return fmt.Errorf("%w: %d destination planes, want %d", ErrSize, len(dst), NumPlanes)
	}
	for i, d := range dst {
		if len(d) != w*h {
			return fmt.Errorf("%w: destination plane %d (%s) has length %d, want %d", ErrSize, i, Name(i/NumOrientations, i%NumOrientations), len(d), w*h)
		}
	}
	for i, p := range img {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			return fmt.Errorf("%w: pixel (x=%d, y=%d) is %v", ErrNotFinite, i%w, i/w, p)
		}
	}
	if ws == nil {
		var err error
		if ws, err = b.NewWorkspace(w, h); err != nil {
			return err
		}
	}
	if ws.bank != b {
		return fmt.Errorf("%w: workspace belongs to another Bank", ErrSize)
	}
	if ws.w != w || ws.h != h {
		return fmt.Errorf("%w: workspace for %d×%d images, image is %d×%d", ErrSize, ws.w, ws.h, w, h)
	}
	switch {
	case ws.direct != nil:
		ws.direct.run(dst, img, ws.ds)
	case ws.dct != nil:
		ws.dct.run(dst, img, ws.cs)
	default:
		ws.fft.run(dst, img, ws.fs)
	}
	return nil
}

// Magnitudes is the allocating form of MagnitudesTo: it returns the 40
// planes dst[v·8+u], each of length w·h, backed by one allocation.
func (b *Bank) Magnitudes(img []float64, w, h int) ([][]float64, error) {
	if err := checkSize(w, h); err != nil {
		return nil, err
	}
	buf := make([]float64, NumPlanes*w*h)
	dst := make([][]float64, NumPlanes)
	for i := range dst {
		dst[i] = buf[i*w*h : (i+1)*w*h : (i+1)*w*h]
	}
	if err := b.MagnitudesTo(dst, img, w, h, nil); err != nil {
		return nil, err
	}
	return dst, nil
}
