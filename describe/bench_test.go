package describe

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/imageio"
)

// BenchmarkDescribeMiniMars describes all of mini-mars (5572 JPEGs of
// 128×256) as the re-identification protocol does: resized to 32×64,
// the 17 reid features, whole-image descriptors; one op is the whole
// run, images/s is the throughput.
func BenchmarkDescribeMiniMars(b *testing.B) {
	list := miniMars(b)
	out := filepath.Join(b.TempDir(), "out")
	o := reidOptions()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Describe(context.Background(), []*datasets.List{list}, out, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*list.Len())/b.Elapsed().Seconds(), "images/s")
}

// BenchmarkDescribeMiniMarsFullJPEG is BenchmarkDescribeMiniMars with
// every JPEG decoded at full size (imageio.JPEGScaleOff), as before the
// reduced-scale decoder: the default decodes the 128x256 crops at 1/4.
func BenchmarkDescribeMiniMarsFullJPEG(b *testing.B) {
	list := miniMars(b)
	out := filepath.Join(b.TempDir(), "out")
	o := reidOptions()
	o.JPEGScale = imageio.JPEGScaleOff
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Describe(context.Background(), []*datasets.List{list}, out, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*list.Len())/b.Elapsed().Seconds(), "images/s")
}

// BenchmarkDescribeSmall measures the overhead of the pipeline on many
// small images (16×24 PNGs, 5 features), where image work is cheap.
func BenchmarkDescribeSmall(b *testing.B) {
	specs := make([]imageSpec, 400)
	for i := range specs {
		specs[i] = imageSpec{rel: filepath.Join(string(rune('a'+i%4)), string(rune('A'+i/26%26))+string(rune('a'+i%26))+".png"), w: 16, h: 24}
	}
	list := openFolders(b, writeImages(b, specs, 1))
	out := filepath.Join(b.TempDir(), "out")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Describe(context.Background(), []*datasets.List{list}, out, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*list.Len())/b.Elapsed().Seconds(), "images/s")
}
