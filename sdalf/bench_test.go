package sdalf

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/appearance"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/shareddata"
)

// marsImages loads n mini-mars images spread over the dataset, resized to
// the re-identification protocol's 32×64, with their person folders.
func marsImages(tb testing.TB, n int) ([]*appearance.Image, []string) {
	tb.Helper()
	dir := shareddata.Dir(tb, "mini-mars")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.jpg"))
	if err != nil || len(files) < n {
		tb.Fatalf("mini-mars: %d images, %v", len(files), err)
	}
	slices.Sort(files)
	var imgs []*appearance.Image
	var ids []string
	for k := range n {
		f := files[k*len(files)/n]
		im, err := imageio.Load(f, imageio.Options{Color: true, Width: 32, Height: 64})
		if err != nil {
			tb.Fatal(err)
		}
		for _, p := range [][]float64{im.R, im.G, im.B} {
			for i, v := range p {
				p[i] = min(1, max(0, v)) // resampling overshoots
			}
		}
		img, err := appearance.NewImage(im.W, im.H, im.R, im.G, im.B)
		if err != nil {
			tb.Fatal(err)
		}
		imgs = append(imgs, img)
		ids = append(ids, filepath.Base(filepath.Dir(f)))
	}
	return imgs, ids
}

// TestMiniMARS describes real pedestrian crops with each mask: the axes
// lie in their search ranges in the right order, every histogram half
// sums to 1/2 or is empty, and the images have blobs.
func TestMiniMARS(t *testing.T) {
	imgs, _ := marsImages(t, 24)
	for _, kind := range []appearance.MaskKind{appearance.NoMask, appearance.BorderMask, appearance.CentreMask} {
		var ws Workspace
		blobs := 0
		for k, img := range imgs {
			s, err := ws.Describe(img, Options{Mask: appearance.MaskOptions{Kind: kind}})
			if err != nil {
				t.Fatalf("%v mask, image %d: %v", kind, k, err)
			}
			a := s.Axes
			if a.HeadTorso < 2 || a.TorsoLegs-a.HeadTorso < 2 || a.TorsoLegs < 16 || a.TorsoLegs > 48 ||
				a.TorsoSym < 8 || a.TorsoSym > 23 || a.LegsSym < 8 || a.LegsSym > 23 {
				t.Errorf("%v mask, image %d: axes %+v", kind, k, a)
			}
			n := appearance.DefaultBins().Len()
			for part := range 2 {
				var sum float64
				for _, v := range s.WHSV[part*n : (part+1)*n] {
					sum += v
				}
				if sum != 0 && (sum < 0.5-1e-9 || sum > 0.5+1e-9) {
					t.Errorf("%v mask, image %d: part %d sums to %v", kind, k, part, sum)
				}
			}
			blobs += len(s.Blobs)
		}
		if blobs < len(imgs) {
			t.Errorf("%v mask: %d blobs in %d images", kind, blobs, len(imgs))
		}
		t.Logf("%v mask: %.1f blobs an image", kind, float64(blobs)/float64(len(imgs)))
	}
}

// BenchmarkDescribe times one signature of a 32×64 image (the
// re-identification protocol's size), the per-image cost of a run.
func BenchmarkDescribe(b *testing.B) {
	imgs, _ := marsImages(b, 16)
	var ws Workspace
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ws.Describe(imgs[i%len(imgs)], Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDistance times one single-shot comparison of two real
// signatures, the cost of each (test, training) pair.
func BenchmarkDistance(b *testing.B) {
	imgs, _ := marsImages(b, 16)
	sigs := make([]*Signature, len(imgs))
	for k, img := range imgs {
		var err error
		if sigs[k], err = Describe(img, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Distance(sigs[i%len(sigs)], sigs[(i+7)%len(sigs)], DefaultWeights()); err != nil {
			b.Fatal(err)
		}
	}
}
