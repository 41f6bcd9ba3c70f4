package describe

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/imagetest"
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
	return set, imageio.Options{Color: set.NeedsColor(), Width: o.Width, Height: o.Height, Filter: o.Filter}
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

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
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

// readDir returns the files of dir (names and contents); it fails on
// subfolders.
func readDir(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := make(map[string][]byte)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// sameFiles reports the first difference between the files of two
// folders, or "" when they hold the same names and bytes.
func sameFiles(t testing.TB, a, b string) string {
	t.Helper()
	return diffFiles(readDir(t, a), readDir(t, b))
}

// diffFiles reports the first difference between two sets of files read
// by readDir, or "" when they hold the same names and bytes.
func diffFiles(fa, fb map[string][]byte) string {
	na, nb := slices.Sorted(maps.Keys(fa)), slices.Sorted(maps.Keys(fb))
	if !slices.Equal(na, nb) {
		return fmt.Sprint("files ", na, " vs ", nb)
	}
	for name, x := range fa {
		if !bytes.Equal(x, fb[name]) {
			return name + " differs"
		}
	}
	return ""
}
