package features_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
)

func equalMaps(a, b *features.Map) bool {
	return a.W == b.W && a.H == b.H && slices.Equal(a.Names, b.Names) &&
		slices.EqualFunc(a.Planes, b.Planes, slices.Equal)
}

// TestComputeToReuse computes a sequence of images of changing sizes into
// one Map with one Workspace and compares each result with Compute.
func TestComputeToReuse(t *testing.T) {
	for _, spec := range []string{"texture", "reid", "face", "G_v3_u1,y"} {
		s := mustParse(t, spec)
		ws := s.NewWorkspace()
		var dst features.Map
		for i, size := range [][2]int{{8, 6}, {8, 6}, {5, 9}, {12, 12}, {3, 2}, {8, 6}} {
			img := randomImage(size[0], size[1], uint64(i))
			want, err := s.Compute(img)
			if err != nil {
				t.Fatal(err)
			}
			var first *float64
			if len(dst.Planes) > 0 && cap(dst.Planes[0]) >= size[0]*size[1] {
				first = &dst.Planes[0][:1][0]
			}
			if err := s.ComputeTo(&dst, img, ws); err != nil {
				t.Fatal(err)
			}
			if !equalMaps(&dst, want) {
				t.Errorf("%s, image %d (%dx%d): ComputeTo into a reused Map differs from Compute", spec, i, size[0], size[1])
			}
			if first != nil && first != &dst.Planes[0][0] {
				t.Errorf("%s, image %d: planes reallocated although large enough", spec, i)
			}
		}
	}
}

// TestZeroAllocs checks that ComputeTo allocates nothing once dst and ws
// have seen an image of the size.
func TestZeroAllocs(t *testing.T) {
	for _, tc := range []struct {
		spec string
		w, h int
	}{{"texture", 64, 64}, {"reid", 32, 64}, {"face", 32, 32}, {"G_v1_u1, x", 16, 16}} {
		s := mustParse(t, tc.spec)
		img := randomImage(tc.w, tc.h, 1)
		ws := s.NewWorkspace()
		var dst features.Map
		if err := s.ComputeTo(&dst, img, ws); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(5, func() {
			if err := s.ComputeTo(&dst, img, ws); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s %dx%d: %v allocations per ComputeTo, want 0", tc.spec, tc.w, tc.h, allocs)
		}
	}
}

// TestXYReadsNoPixels checks that a set of coordinates alone needs only
// the image size.
func TestXYReadsNoPixels(t *testing.T) {
	m, err := mustParse(t, "y,x").Compute(&imageio.Image{W: 3, H: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]float64{{0, 0, 0, 1, 1, 1}, {0, 1, 2, 0, 1, 2}}; !slices.EqualFunc(m.Planes, want, slices.Equal) {
		t.Errorf("planes %v, want %v", m.Planes, want)
	}
}

// TestConcurrent shares one Set between goroutines, each with its own
// Workspace and Map, and compares with sequential results (run with -race).
func TestConcurrent(t *testing.T) {
	s := mustParse(t, "face")
	imgs := make([]*imageio.Image, 6)
	want := make([]*features.Map, len(imgs))
	for i := range imgs {
		imgs[i] = randomImage(16+i%2, 16, uint64(i))
		var err error
		if want[i], err = s.Compute(imgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			ws := s.NewWorkspace()
			var dst features.Map
			for i := range imgs {
				i := (i + g) % len(imgs)
				if err := s.ComputeTo(&dst, imgs[i], ws); err != nil {
					t.Error(err)
					return
				}
				if !equalMaps(&dst, want[i]) {
					t.Errorf("goroutine %d, image %d differs", g, i)
				}
			}
		})
	}
	wg.Wait()
}
