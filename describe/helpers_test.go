package describe

import (
	"context"
	"image"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/store"
)

// fset returns the feature set of spec, for test tables; it panics on a
// bad spec.
func fset(spec string) *features.Set {
	s, err := features.Parse(spec)
	if err != nil {
		panic(err)
	}
	return s
}

// loading returns the feature set of o (the default set when o has none)
// and the options that load an image for it, as Describe loads them.
func loading(o Options) (*features.Set, imageio.Options) {
	set := o.Features
	if set == nil {
		set = fset(DefaultFeatures)
	}
	return set, imageio.Options{Color: set.NeedsColor(), Width: o.Width, Height: o.Height, Filter: o.Filter, JPEGScale: o.JPEGScale}
}

// imageSpec is one generated test image: its path below the folder, its
// size, whether it is colour (PNG) or grey (PGM for odd seeds, else PNG).
type imageSpec struct {
	rel   string
	w, h  int
	color bool
}

// testImages are 7 images of 3 classes with uneven counts (3, 2, 2), so
// that 2 and 3 shards have uneven sizes, in sizes that grid:2x2 divides.
var testImages = []imageSpec{
	{"a/1.png", 16, 12, true},
	{"a/2.pgm", 12, 16, false},
	{"a/sub/3.png", 20, 20, false},
	{"b/1.png", 16, 16, true},
	{"b/x y.pgm", 14, 10, false},
	{"c,1/1.png", 10, 14, true},
	{"c,1/2.png", 18, 12, true},
}

// writeImages writes the images of specs into a new temporary folder with
// noise pixels from seed, and returns the folder.
func writeImages(t testing.TB, specs []imageSpec, seed uint64) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, s := range specs {
		var img image.Image
		if s.color {
			img = imagetest.NoiseNRGBA(rng, s.w, s.h)
		} else {
			img = imagetest.NoiseGray(rng, s.w, s.h)
		}
		imagetest.Write(t, filepath.Join(dir, s.rel), img)
	}
	return dir
}

// flat returns a w×h image of one grey level: every feature but x and y
// is constant, so texture descriptors without a ridge are singular.
func flat(w, h int) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = 100
	}
	return m
}

func openFolders(t testing.TB, dir string) *datasets.List {
	t.Helper()
	l, err := datasets.Folders(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// describe runs Describe into a new temporary folder and returns it.
func describeTo(t testing.TB, inputs []*datasets.List, o Options) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Describe(context.Background(), inputs, out, o); err != nil {
		t.Fatalf("Describe: %v", err)
	}
	return out
}

// shardRun describes shards 0..n−1 of a run, each on another number of
// workers, and returns their folders.
func shardRun(t *testing.T, inputs []*datasets.List, o Options, n int) []string {
	t.Helper()
	dirs := make([]string, n)
	for i := range n {
		o.Shard = store.Shard{Index: i, Count: n}
		o.Workers = 1 + i%3
		dirs[i] = describeTo(t, inputs, o)
	}
	return dirs
}
