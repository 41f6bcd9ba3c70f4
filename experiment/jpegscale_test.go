package experiment

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/internal/imagetest"
)

// TestDataJPEGScale checks data.jpeg_scale: parsed once, auto by default,
// strict errors naming the key.
func TestDataJPEGScale(t *testing.T) {
	for _, tc := range []struct {
		extra string
		want  imageio.JPEGScale
		err   string
	}{
		{"  resize: 8x8\n", imageio.JPEGScaleAuto, ""},
		{"  resize: 8x8\n  jpeg_scale: auto\n", imageio.JPEGScaleAuto, ""},
		{"  resize: 8x8\n  jpeg_scale: off\n", imageio.JPEGScaleOff, ""},
		{"  resize: 8x8\n  jpeg_scale: Fast\n", imageio.JPEGScaleFast, ""},
		{"  resize: 8x8\n  jpeg_scale: half\n", 0, `jpeg_scale "half" is not a JPEG scale setting: want auto, off or fast`},
	} {
		p, err := Parse(fmt.Appendf(nil, estimatorYAML, tc.extra))
		if failed(t, fmt.Sprintf("%q", tc.extra), err, tc.err) {
			continue
		}
		if p.data.jpeg != tc.want {
			t.Errorf("%q: JPEG scale %v, want %v", tc.extra, p.data.jpeg, tc.want)
		}
	}
}

// TestJPEGScaleCache checks that runs on JPEGs with jpeg_scale auto and
// off keep their descriptors in cache entries of their own, each what
// describe writes with that setting.
func TestJPEGScaleCache(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rel := range []string{"two/cats/a.jpg", "two/cats/b.jpg", "two/dogs/a.jpg", "two/dogs/b.jpg"} {
		imagetest.Write(t, filepath.Join(root, filepath.FromSlash(rel)), imagetest.NoiseGray(rng, 32, 32))
	}
	dirs := runCached(t, root, cache, "  resize: 8x8\n", "  resize: 8x8\n  jpeg_scale: off\n")
	if len(dirs) != 2 {
		t.Fatalf("cache folders %v, want one per JPEG scale setting", dirs)
	}
	for _, scale := range []imageio.JPEGScale{imageio.JPEGScaleAuto, imageio.JPEGScaleOff} {
		want := describeDataset(t, root, "two", "I,Ix,Iy", describe.Options{Width: 8, Height: 8, JPEGScale: scale})
		same := 0
		for _, dir := range dirs {
			if foldertest.Same(t, want, dir) == "" {
				same++
			}
		}
		if same != 1 {
			t.Errorf("%d of the cache folders %v are describe's with JPEG scale %v, want 1", same, dirs, scale)
		}
	}
}
