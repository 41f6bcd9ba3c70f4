package hpe

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
)

// tilePatches returns the K×K patches at every position of a 16×16 image
// that repeats a 4×4 tile of random colours, and the tile.
func tilePatches(k int) (*Patches, []float64) {
	rng := rand.New(rand.NewPCG(3, 4))
	const side, size = 4, 16
	tile := make([]float64, 3*side*side)
	for i := range tile {
		tile[i] = rng.Float64()
	}
	p := &Patches{K: k}
	for y := 0; y+k <= size; y++ {
		for x := 0; x+k <= size; x++ {
			for i := range k * k {
				j := ((y+i/k)%side)*side + (x+i%k)%side
				p.Values = append(p.Values, tile[3*j:3*j+3]...)
			}
			p.Weights = append(p.Weights, 1)
		}
	}
	return p, tile
}

// TestEpitomeRecoversTile learns a 4×4 epitome from the patches of an
// image that repeats a 4×4 tile: the tile itself explains every patch
// exactly, and the epitome must be it, up to a shift on the torus.
func TestEpitomeRecoversTile(t *testing.T) {
	p, tile := tilePatches(3)
	e, err := FitEpitome(context.Background(), p, EpitomeOptions{W: 4, H: 4, Patch: 3, Iterations: 30})
	if err != nil {
		t.Fatal(err)
	}
	best := math.Inf(1)
	for shift := range 16 {
		sx, sy := shift%4, shift/4
		var worst float64
		for j := range 16 {
			x, y := j%4, j/4
			m := ((y+sy)%4)*4 + (x+sx)%4
			for c := range 3 {
				worst = max(worst, math.Abs(e.Mean[3*m+c]-tile[3*j+c]))
			}
		}
		best = min(best, worst)
	}
	if best > 1e-3 {
		t.Errorf("epitome means differ from every shift of the tile by up to %v; means %v", best, e.Mean)
	}
	for j, v := range e.Var {
		if v > 2*DefaultMinVariance {
			t.Errorf("variance %d = %v, want the floor %v for data the epitome explains exactly", j, v, DefaultMinVariance)
			break
		}
	}
}

// TestEpitomeLikelihoodIncreases checks EM's certificate: the weighted
// log-likelihood never decreases from one iteration to the next, on
// random patches with random weights and on the tiled image's patches,
// and it does increase overall.
func TestEpitomeLikelihoodIncreases(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	random := &Patches{K: 3}
	for range 120 {
		base := [3]float64{rng.Float64(), rng.Float64(), rng.Float64()}
		for range 9 {
			for c := range 3 {
				random.Values = append(random.Values, base[c]+0.1*rng.NormFloat64())
			}
		}
		random.Weights = append(random.Weights, rng.Float64())
	}
	tiled, _ := tilePatches(3)
	for name, p := range map[string]*Patches{"random": random, "tiled": tiled} {
		for _, o := range []EpitomeOptions{{W: 6, H: 5, Patch: 3, Iterations: 25}, {W: 3, H: 3, Patch: 3, Iterations: 25, MinVariance: 1e-2}} {
			e, err := FitEpitome(context.Background(), p, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(e.LogLik) != o.Iterations+1 {
				t.Fatalf("%s: %d log-likelihoods, want %d", name, len(e.LogLik), o.Iterations+1)
			}
			for k := 1; k < len(e.LogLik); k++ {
				if e.LogLik[k] < e.LogLik[k-1]-1e-9*math.Abs(e.LogLik[k-1]) {
					t.Errorf("%s %d×%d: log-likelihood fell at iteration %d: %v -> %v", name, o.W, o.H, k, e.LogLik[k-1], e.LogLik[k])
				}
			}
			if !(e.LogLik[len(e.LogLik)-1] > e.LogLik[0]) {
				t.Errorf("%s %d×%d: log-likelihood %v -> %v, want an increase", name, o.W, o.H, e.LogLik[0], e.LogLik[len(e.LogLik)-1])
			}
			var usage, pos float64
			for j := range e.Usage {
				usage += e.Usage[j]
				pos += e.Position[j]
			}
			var total float64
			for _, w := range p.Weights {
				total += w
			}
			if math.Abs(pos-total) > 1e-9*total || math.Abs(usage-9*total) > 1e-9*total {
				t.Errorf("%s: posterior weights %v over positions and %v over pixels, want %v and %v", name, pos, usage, total, 9*total)
			}
		}
	}
}

// TestEpitomeLikelihoodClosedForm compares the log-likelihood of a 1×1
// epitome of 1×1 patches, a single Gaussian per channel, with its closed
// form after one iteration: the data's weighted mean and variance.
func TestEpitomeLikelihoodClosedForm(t *testing.T) {
	p := &Patches{K: 1, Values: []float64{0.1, 0.2, 0.3, 0.5, 0.2, 0.9}, Weights: []float64{1, 3}}
	e, err := FitEpitome(context.Background(), p, EpitomeOptions{W: 1, H: 1, Patch: 1, Iterations: 1, MinVariance: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for c := range 3 {
		x0, x1 := p.Values[c], p.Values[3+c]
		m := (x0 + 3*x1) / 4
		v := max(1e-6, (x0*x0+3*x1*x1)/4-m*m)
		if math.Abs(e.Mean[c]-m) > 1e-12 || math.Abs(e.Var[c]-v) > 1e-12 {
			t.Errorf("channel %d: mean %v variance %v, want %v and %v", c, e.Mean[c], e.Var[c], m, v)
		}
		for s, x := range []float64{x0, x1} {
			want += p.Weights[s] * (-0.5*math.Log(2*math.Pi*v) - (x-m)*(x-m)/(2*v))
		}
	}
	if got := e.LogLik[1]; math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("log-likelihood %v, want %v", got, want)
	}
}

func TestEpitomeErrors(t *testing.T) {
	good, _ := tilePatches(3)
	o := EpitomeOptions{W: 4, H: 4, Patch: 3}
	for _, c := range []struct {
		p    *Patches
		o    EpitomeOptions
		want string
	}{
		{good, EpitomeOptions{W: -1}, "size"},
		{good, EpitomeOptions{W: 4, H: 4, Patch: 5}, "patch"},
		{good, EpitomeOptions{Stride: -1}, "stride"},
		{good, EpitomeOptions{Iterations: -1}, "iterations"},
		{good, EpitomeOptions{MinVariance: math.NaN()}, "variance"},
		{good, EpitomeOptions{W: 4, H: 4, Patch: 2}, "side"},
		{&Patches{K: 3, Values: good.Values[:10], Weights: good.Weights}, o, "values"},
		{&Patches{K: 3, Values: good.Values, Weights: make([]float64, len(good.Weights))}, o, "no patch with weight"},
		{&Patches{K: 3, Values: append([]float64{math.NaN()}, good.Values[1:]...), Weights: good.Weights}, o, "patch 0 pixel 0"},
		{&Patches{K: 3, Values: good.Values, Weights: append([]float64{-1}, good.Weights[1:]...)}, o, "patch 0 weight"},
	} {
		if _, err := FitEpitome(context.Background(), c.p, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.o, err, c.want)
		}
	}
}

// TestEpitomeAllocations checks that the EM allocates nothing per patch:
// fitting 16 times as many patches on a reused workspace allocates as
// often.
func TestEpitomeAllocations(t *testing.T) {
	small, _ := tilePatches(13)
	large, _ := tilePatches(4)
	var ws epitomeWork
	count := func(p *Patches) float64 {
		o := EpitomeOptions{W: 13, H: 13, Patch: p.K, Iterations: 3}
		return testing.AllocsPerRun(5, func() {
			if _, err := ws.fit(context.Background(), p, o); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := count(small), count(large); a != b {
		t.Errorf("%v allocations for %d patches, %v for %d", a, small.Len(), b, large.Len())
	}
}

func TestEpitomeCancel(t *testing.T) {
	p, _ := tilePatches(3)
	_, err := FitEpitome(canceltest.Cancelled(t), p, EpitomeOptions{W: 4, H: 4, Patch: 3})
	canceltest.Check(t, "FitEpitome", err)
	// Far too many iterations to finish before the context is cancelled.
	_, err = FitEpitome(canceltest.Soon(t), p, EpitomeOptions{W: 16, H: 16, Patch: 3, Iterations: 1 << 30})
	canceltest.Check(t, "FitEpitome while it runs", err)
}
