package describe

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/store"
)

// TestCollectVectors checks the vectors of Options.Vectors against the
// images' intensities read independently, sampled every Step pixels, and
// the errors of vectors where they cannot be made.
func TestCollectVectors(t *testing.T) {
	dir := writeImages(t, testImages, 3)
	list, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Features: fset("texture"), Width: 10, Height: 8, Vectors: VectorSpec{Features: fset("I,Ix"), Step: 2}}
	out, err := Collect(context.Background(), []*datasets.List{list}, o)
	if err != nil {
		t.Fatal(err)
	}
	if out.VectorLen != 2*5*4 || len(out.Vectors) != len(out.Rows)*out.VectorLen {
		t.Fatalf("%d vectors of %d values for %d rows", len(out.Vectors)/max(1, out.VectorLen), out.VectorLen, len(out.Rows))
	}
	for i, r := range out.Rows {
		img, err := imageio.Load(filepath.Join(dir, r.Path), imageio.Options{Width: 10, Height: 8})
		if err != nil {
			t.Fatal(err)
		}
		v := out.Vectors[i*out.VectorLen : (i+1)*out.VectorLen]
		k := 0
		for y := 0; y < 8; y += 2 {
			for x := 0; x < 10; x += 2 {
				if v[k] != img.Gray[y*10+x] {
					t.Fatalf("%s: vector[%d] = %v, intensity (%d, %d) = %v", r.Path, k, v[k], x, y, img.Gray[y*10+x])
				}
				k++
			}
		}
	}
	// Descriptors are the same with or without vectors.
	plain, err := Collect(context.Background(), []*datasets.List{list}, Options{Features: fset("texture"), Width: 10, Height: 8})
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain.Data {
		if plain.Data[i] != out.Data[i] {
			t.Fatalf("descriptor value %d differs with vectors", i)
		}
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Vectors: VectorSpec{Features: fset("I"), Step: 1}}, "different sizes"},
		{Options{Width: 8, Height: 8, Vectors: VectorSpec{Features: fset("I")}}, "vector step 0"},
		{Options{Width: 8, Height: 8, Regions: covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2, Cols: 2}, Vectors: VectorSpec{Features: fset("I"), Step: 1}}, "whole-image layout"},
	} {
		if _, err := Collect(context.Background(), []*datasets.List{list}, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o.Vectors, err, tc.want)
		}
	}
	// Describe writes them into vectors.npy, recorded in meta.json, and
	// store.Read gives back what Collect gives.
	dirOut := describeTo(t, []*datasets.List{list}, o)
	read, err := store.Read(dirOut)
	if err != nil {
		t.Fatal(err)
	}
	if read.Meta.Vectors == nil || *read.Meta.Vectors != (store.Vectors{FeatureSpec: "I,Ix", Step: 2}) || out.Meta.Vectors == nil || *out.Meta.Vectors != *read.Meta.Vectors {
		t.Errorf("meta.json vectors %+v, Collect's %+v", read.Meta.Vectors, out.Meta.Vectors)
	}
	read.Meta.Files = nil
	if !reflect.DeepEqual(read, out) {
		t.Errorf("store.Read of Describe's folder differs from Collect's output")
	}
	if _, err := Describe(context.Background(), []*datasets.List{list}, t.TempDir(), Options{Vectors: VectorSpec{Features: fset("I"), Step: 1}}); err == nil || !strings.Contains(err.Error(), "different sizes") {
		t.Errorf("Describe with vectors of images of different sizes: %v", err)
	}
	// A run without vectors into the folder removes its vectors.npy.
	if _, err := Describe(context.Background(), []*datasets.List{list}, dirOut, Options{Features: fset("texture"), Width: 10, Height: 8}); err != nil {
		t.Fatal(err)
	}
	if d := foldertest.Same(t, dirOut, describeTo(t, []*datasets.List{list}, Options{Features: fset("texture"), Width: 10, Height: 8})); d != "" {
		t.Errorf("a run without vectors over one with them: %s", d)
	}
}
