package gabor_test

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"sync"
	"testing"

	"github.com/covpipe/covpipe/gabor"
)

// grating returns 128 + 100·cos(k(x cos t + y sin t)) on a w×h image (x the
// column, y the row index).
func grating(w, h int, k, t float64) []float64 {
	img := make([]float64, w*h)
	for y := range h {
		for x := range w {
			img[y*w+x] = 128 + 100*math.Cos(k*(float64(x)*math.Cos(t)+float64(y)*math.Sin(t)))
		}
	}
	return img
}

// centreMeans returns each plane's mean magnitude over the centre square of
// side c.
func centreMeans(planes [][]float64, w, h, c int) []float64 {
	means := make([]float64, len(planes))
	for i, p := range planes {
		for y := (h - c) / 2; y < (h+c)/2; y++ {
			for x := (w - c) / 2; x < (w+c)/2; x++ {
				means[i] += p[y*w+x]
			}
		}
		means[i] /= float64(c * c)
	}
	return means
}

// TestGratingSelectivity filters a sinusoidal grating at wavenumber k_v and
// angle θ_u and checks that plane (v, u) has the strongest mean response
// in the centre, clearly ahead of the runner-up. The expected selectivity
// follows from the filter's Gaussian passband: the nearest orientation and
// scale respond with at most ≈ 0.05 and ≈ 0.18 of the matched amplitude
// (plus a small DC offset), so a factor 2 margin is safe. Orientation pairs
// (1, 7), (2, 6), (3, 5) pin down the sign convention of θ (from +x towards
// +y = down).
func TestGratingSelectivity(t *testing.T) {
	cases := [][2]int{{0, 0}, {0, 3}, {1, 2}, {1, 6}, {2, 5}, {2, 4}, {3, 7}, {3, 1}, {4, 4}, {4, 0}}
	const n, c = 128, 32
	for _, m := range []gabor.Method{gabor.Direct, gabor.FFT} {
		b := mustBank(t, gabor.Params{Method: m})
		for _, vu := range cases {
			v, u := vu[0], vu[1]
			t.Run(fmt.Sprintf("%v/v=%d,u=%d", m, v, u), func(t *testing.T) {
				if m == gabor.Direct && testing.Short() {
					t.Skip("direct engine at 128×128 in -short mode")
				}
				planes := magnitudes(t, b, grating(n, n, gabor.Wavenumber(v), gabor.Angle(u)), n, n)
				means := centreMeans(planes, n, n, c)
				best, second := -1, -1
				for i, m := range means {
					switch {
					case best < 0 || m > means[best]:
						best, second = i, best
					case second < 0 || m > means[second]:
						second = i
					}
				}
				if best != gabor.Index(v, u) {
					t.Fatalf("strongest plane %s (%.3g), want %s (%.3g)", gabor.Name(best/8, best%8), means[best], gabor.Name(v, u), means[gabor.Index(v, u)])
				}
				// The matched response is ≈ amplitude·π = 100π.
				if got := means[best]; math.Abs(got-100*math.Pi) > 0.05*100*math.Pi {
					t.Errorf("matched mean response %.4g, want ≈ 100π = %.4g", got, 100*math.Pi)
				}
				t.Logf("matched %.4g, runner-up %s at %.3g", means[best], gabor.Name(second/8, second%8), means[second]/means[best])
				if r := means[second] / means[best]; r > 0.5 {
					t.Errorf("runner-up %s at %.2g of the matched response", gabor.Name(second/8, second%8), r)
				}
			})
		}
	}
}

// TestDeltaResponse filters a unit impulse: away from any border effect
// the magnitude planes are |ψ| centred on the impulse. With ZeroPad there is
// no border effect at all; with Symmetric borders the mirrored impulses stay
// beyond the v = 0 support, so plane v = 0 is exact too.
func TestDeltaResponse(t *testing.T) {
	cases := []struct {
		border gabor.Border
		n      int
		scales int
	}{
		{gabor.ZeroPad, 33, gabor.NumScales},
		{gabor.Symmetric, 81, 1},
	}
	for _, c := range cases {
		for _, m := range []gabor.Method{gabor.Direct, gabor.FFT} {
			b := mustBank(t, gabor.Params{Border: c.border, Method: m})
			img := make([]float64, c.n*c.n)
			x0 := c.n / 2
			img[x0*c.n+x0] = 1
			planes := magnitudes(t, b, img, c.n, c.n)
			// The nearest mirrored impulse is min(x0+1, n−x0) pixels from any output.
			if c.border == gabor.Symmetric && min(x0+1, c.n-x0) <= b.Radius(0) {
				t.Fatalf("image %d too small for an exact v=0 response", c.n)
			}
			for v := range c.scales {
				for u := range gabor.NumOrientations {
					peak := cmplx.Abs(psi(v, u, 0, 0))
					var worst float64
					for y := range c.n {
						for x := range c.n {
							want := cmplx.Abs(psi(v, u, float64(x-x0), float64(y-x0)))
							worst = max(worst, math.Abs(planes[gabor.Index(v, u)][y*c.n+x]-want))
						}
					}
					if worst > 1e-12*peak {
						t.Errorf("%v %v: plane %s differs from |ψ| by %.3g (peak %.3g)", c.border, m, gabor.Name(v, u), worst, peak)
					}
				}
			}
		}
	}
}

// TestFlipAndTranspose checks the geometric covariance of the bank on a
// random image: mirroring x maps orientation u to (8−u) mod 8, and swapping
// x and y maps u to (12−u) mod 8 (θ → π/2−θ), for both borders and engines.
func TestFlipAndTranspose(t *testing.T) {
	const n = 24
	img := randomImage(n, n, 7)
	flip, trans := make([]float64, n*n), make([]float64, n*n)
	for y := range n {
		for x := range n {
			flip[y*n+x] = img[y*n+n-1-x]
			trans[y*n+x] = img[x*n+y]
		}
	}
	for _, border := range borders {
		for _, m := range []gabor.Method{gabor.Direct, gabor.FFT} {
			b := mustBank(t, gabor.Params{Border: border, Method: m})
			g := magnitudes(t, b, img, n, n)
			gf := magnitudes(t, b, flip, n, n)
			gt := magnitudes(t, b, trans, n, n)
			var peak, df, dt float64
			for v := range gabor.NumScales {
				for u := range gabor.NumOrientations {
					p := g[gabor.Index(v, u)]
					pf := gf[gabor.Index(v, (8-u)%8)]
					pt := gt[gabor.Index(v, (12-u)%8)]
					for y := range n {
						for x := range n {
							peak = max(peak, p[y*n+x])
							df = max(df, math.Abs(pf[y*n+n-1-x]-p[y*n+x]))
							dt = max(dt, math.Abs(pt[x*n+y]-p[y*n+x]))
						}
					}
				}
			}
			if df > 1e-12*peak || dt > 1e-12*peak {
				t.Errorf("%v %v: flip mismatch %.3g, transpose mismatch %.3g (peak %.3g)", border, m, df, dt, peak)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, p := range []gabor.Params{
		{Border: 7}, {Method: -1}, {Support: -1}, {Support: 0.5}, {Support: 25},
		{Support: math.NaN()}, {Support: math.Inf(1)},
	} {
		if _, err := gabor.NewBank(p); !errors.Is(err, gabor.ErrParams) {
			t.Errorf("NewBank(%+v): error %v, want ErrParams", p, err)
		}
	}
	b := mustBank(t, gabor.Params{})
	for _, sz := range [][2]int{{0, 5}, {5, -1}, {gabor.MaxSide + 1, 1}} {
		if _, err := b.NewWorkspace(sz[0], sz[1]); !errors.Is(err, gabor.ErrSize) {
			t.Errorf("NewWorkspace(%d, %d): error %v, want ErrSize", sz[0], sz[1], err)
		}
	}
	const w, h = 6, 5
	ws, err := b.NewWorkspace(w, h)
	if err != nil {
		t.Fatal(err)
	}
	other, err := mustBank(t, gabor.Params{}).NewWorkspace(w, h)
	if err != nil {
		t.Fatal(err)
	}
	small, err := b.NewWorkspace(w, h-1)
	if err != nil {
		t.Fatal(err)
	}
	planes := func(n int) [][]float64 {
		d := make([][]float64, gabor.NumPlanes)
		for i := range d {
			d[i] = make([]float64, n)
			if n > 0 {
				d[i][0] = -1 // sentinel: must survive a failed call
			}
		}
		return d
	}
	good := randomImage(w, h, 3)
	withNaN := append([]float64(nil), good...)
	withNaN[7] = math.NaN()
	withInf := append([]float64(nil), good...)
	withInf[0] = math.Inf(-1)
	cases := []struct {
		name string
		dst  [][]float64
		img  []float64
		w, h int
		ws   *gabor.Workspace
		want error
	}{
		{"zero width", planes(0), nil, 0, h, nil, gabor.ErrSize},
		{"negative height", planes(w * h), good, w, -h, nil, gabor.ErrSize},
		{"short image", planes(w * h), good[:w*h-1], w, h, ws, gabor.ErrSize},
		{"NaN pixel", planes(w * h), withNaN, w, h, ws, gabor.ErrNotFinite},
		{"Inf pixel", planes(w * h), withInf, w, h, ws, gabor.ErrNotFinite},
		{"39 planes", planes(w * h)[:39], good, w, h, ws, gabor.ErrSize},
		{"short plane", planes(w*h - 1), good, w, h, ws, gabor.ErrSize},
		{"foreign workspace", planes(w * h), good, w, h, other, gabor.ErrSize},
		{"workspace size", planes(w * h), good, w, h, small, gabor.ErrSize},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := b.MagnitudesTo(c.dst, c.img, c.w, c.h, c.ws)
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
			for i, d := range c.dst {
				if len(d) > 0 && d[0] != -1 {
					t.Fatalf("plane %d written despite the error", i)
				}
			}
		})
	}
	if p, err := b.Magnitudes(withNaN, w, h); err == nil || p != nil {
		t.Errorf("Magnitudes with NaN: %v, %v; want nil and an error", p, err)
	}
	if _, err := b.Magnitudes(good, 0, h); !errors.Is(err, gabor.ErrSize) {
		t.Errorf("Magnitudes 0×%d: error %v, want ErrSize", h, err)
	}
}

// TestMagnitudesToAllocs checks that MagnitudesTo allocates nothing with a
// workspace, for every engine.
func TestMagnitudesToAllocs(t *testing.T) {
	const w, h = 17, 13
	img := randomImage(w, h, 5)
	dst := newPlanes(w * h)
	for _, border := range borders {
		for _, m := range []gabor.Method{gabor.Auto, gabor.Direct, gabor.FFT} {
			b := mustBank(t, gabor.Params{Border: border, Method: m})
			ws, err := b.NewWorkspace(w, h)
			if err != nil {
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(5, func() {
				if err := b.MagnitudesTo(dst, img, w, h, ws); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v %v (%v): %v allocations per call, want 0", border, m, ws.Method(), allocs)
			}
		}
	}
}

// TestAutoAndWorkspaceMethod checks that Auto resolves to a concrete engine
// whose results match the explicit engines.
func TestAutoAndWorkspaceMethod(t *testing.T) {
	const w, h = 20, 12
	img := randomImage(w, h, 9)
	for _, border := range borders {
		auto := mustBank(t, gabor.Params{Border: border})
		ws, err := auto.NewWorkspace(w, h)
		if err != nil {
			t.Fatal(err)
		}
		if m := ws.Method(); m != gabor.Direct && m != gabor.FFT {
			t.Fatalf("%v: Auto resolved to %v", border, m)
		}
		if gw, gh := ws.Size(); gw != w || gh != h {
			t.Errorf("Size() = %d×%d, want %d×%d", gw, gh, w, h)
		}
		got := magnitudes(t, auto, img, w, h)
		want := magnitudes(t, mustBank(t, gabor.Params{Border: border, Method: gabor.Direct}), img, w, h)
		if d := maxRelDiff(got, want); d > 1e-9 {
			t.Errorf("%v: Auto (%v) differs from Direct by %.3g", border, ws.Method(), d)
		}
	}
}

// TestConcurrentUse shares one Bank between goroutines with their own
// workspaces, including concurrent first use of an image size, and checks
// the results against a sequential run.
func TestConcurrentUse(t *testing.T) {
	b := mustBank(t, gabor.Params{})
	const w, h, workers = 19, 23, 4
	imgs := make([][]float64, workers)
	want := make([][][]float64, workers)
	for i := range imgs {
		imgs[i] = randomImage(w, h, uint64(100+i))
	}
	got := make([][][]float64, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			ws, err := b.NewWorkspace(w, h)
			if err != nil {
				t.Error(err)
				return
			}
			dst := newPlanes(w * h)
			for range 3 {
				if err := b.MagnitudesTo(dst, imgs[i], w, h, ws); err != nil {
					t.Error(err)
					return
				}
			}
			got[i] = dst
		})
	}
	wg.Wait()
	seq := mustBank(t, gabor.Params{})
	for i := range imgs {
		var err error
		if want[i], err = seq.Magnitudes(imgs[i], w, h); err != nil {
			t.Fatal(err)
		}
		for p := range want[i] {
			for j := range want[i][p] {
				if got[i] == nil || got[i][p][j] != want[i][p][j] {
					t.Fatalf("worker %d: plane %d differs from the sequential result", i, p)
				}
			}
		}
	}
}
