package describe

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/netpbm"
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
			m := image.NewNRGBA(image.Rect(0, 0, s.w, s.h))
			for p := range m.Pix {
				m.Pix[p] = uint8(rng.IntN(256))
				if p%4 == 3 {
					m.Pix[p] = 255
				}
			}
			img = m
		} else {
			m := image.NewGray(image.Rect(0, 0, s.w, s.h))
			for p := range m.Pix {
				m.Pix[p] = uint8(rng.IntN(256))
			}
			img = m
		}
		var buf bytes.Buffer
		var err error
		if filepath.Ext(s.rel) == ".pgm" {
			err = netpbm.Encode(&buf, img, nil)
		} else {
			err = png.Encode(&buf, img)
		}
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, s.rel), buf.Bytes())
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

// constantPNG returns a w×h PNG of one grey level: every feature but x and
// y is constant, so texture descriptors without a ridge are singular.
func constantPNG(t testing.TB, w, h int) []byte {
	m := image.NewGray(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = 100
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
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
