package describe_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
)

// Describe a folder of two classes, one image each, with the texture
// features over a 2×2 grid, then read the result back as an SPD set.
func ExampleDescribe() {
	root := tempDir("describe-example")
	defer os.RemoveAll(root)
	list := textures(filepath.Join(root, "images"), []string{"bark/1.png", "sand/1.png"}, 16, 7)

	out := filepath.Join(root, "descriptors")
	layout, err := covariance.ParseLayout("grid:2x2")
	if err != nil {
		log.Fatal(err)
	}
	meta, err := describe.Describe(context.Background(), []*datasets.List{list}, out, describe.Options{Regions: layout})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(meta.Features, meta.Regions, meta.Counts.Descriptors)

	got, err := store.Read(out)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range got.Rows[:5] {
		fmt.Println(r.Index, r.Path, r.Label, r.Region)
	}
	set, err := spd.NewSetFromData(got.Meta.Dim, got.Data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d SPD matrices of size %d\n", set.Len(), set.Dim())
	// Output:
	// [I Ix Iy Ixx Iyy] grid:2x2 8
	// 0 bark/1.png bark 8x8+0+0
	// 1 bark/1.png bark 8x8+8+0
	// 2 bark/1.png bark 8x8+0+8
	// 3 bark/1.png bark 8x8+8+8
	// 4 sand/1.png sand 8x8+0+0
	// 8 SPD matrices of size 5
}

// From two image files to the Stein divergence (Eqn. 3) of their region
// covariance descriptors: open each file as a list of one image, describe
// both into memory with the default options (the texture features
// I, |Ix|, |Iy|, |Ixx|, |Iyy| over the whole image, trace ridge), and
// compare them. docs/library.md shows the same lines.
func Example_steinDivergence() {
	dir, err := os.MkdirTemp("", "stein-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	pathA, pathB := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	writeTexture(pathA, 16, 0)
	writeTexture(pathB, 16, 7)

	var inputs []*datasets.List
	for _, path := range []string{pathA, pathB} {
		l, err := datasets.Open(path) // an image file: a list of one image
		if err != nil {
			log.Fatal(err)
		}
		inputs = append(inputs, l)
	}
	out, err := describe.Collect(context.Background(), inputs, describe.Options{})
	if err != nil {
		log.Fatal(err)
	}
	set, err := spd.NewSetFromData(out.Meta.Dim, out.Data) // checks that they are SPD
	if err != nil {
		log.Fatal(err)
	}
	s, err := spd.Stein(set.View(0), set.View(1))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d descriptors of %dx%d, Stein divergence %.4f\n", set.Len(), set.Dim(), set.Dim(), s)
	// Output:
	// 2 descriptors of 5x5, Stein divergence 0.0386
}

// Collect describes a folder into memory, as Describe and store.Read would,
// without writing a file.
func ExampleCollect() {
	root := tempDir("collect-example")
	defer os.RemoveAll(root)
	list := textures(root, []string{"bark/1.png", "bark/2.png", "sand/1.png"}, 8, 5)
	set, err := features.Parse("I,x,y")
	if err != nil {
		log.Fatal(err)
	}
	out, err := describe.Collect(context.Background(), []*datasets.List{list}, describe.Options{Features: set})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Meta.FeatureSpec, out.Meta.Counts.Descriptors, len(out.Data))
	for _, r := range out.Rows {
		fmt.Println(r.Index, r.Path, r.Label, r.Region)
	}
	// Output:
	// I,x,y 3 27
	// 0 bark/1.png bark 8x8+0+0
	// 1 bark/2.png bark 8x8+0+0
	// 2 sand/1.png sand 8x8+0+0
}

// An Extractor describes chosen regions of an image already in memory,
// such as the cells of a texture mosaic, with the same code and
// regularisation as Describe.
func ExampleExtractor_Regions() {
	img := &imageio.Image{W: 8, H: 4, Gray: make([]float64, 32)}
	for i := range img.Gray {
		img.Gray[i] = float64(i*(i+3)%17) / 16
	}
	set, err := features.Parse("I,x,y")
	if err != nil {
		log.Fatal(err)
	}
	e, err := describe.NewExtractor(describe.Options{Features: set, Reg: covariance.Regularization{Kind: covariance.None}})
	if err != nil {
		log.Fatal(err)
	}
	left := covariance.Region{W: 4, H: 4}
	right := covariance.Region{X: 4, W: 4, H: 4}
	c, err := e.Regions(img, []covariance.Region{left, right})
	if err != nil {
		log.Fatal(err)
	}
	d := e.Dim()
	for k, r := range []covariance.Region{left, right} {
		fmt.Printf("%v: var(x) = %.4f, var(y) = %.4f\n", r, c[k*d*d+1*d+1], c[k*d*d+2*d+2])
	}
	// Output:
	// 4x4+0+0: var(x) = 1.3333, var(y) = 1.3333
	// 4x4+4+0: var(x) = 1.3333, var(y) = 1.3333
}

// Describe a folder in two shards, as two jobs of a cluster array would,
// then merge them (store.Merge) into the output of the unsharded run.
func Example_shards() {
	root := tempDir("merge-example")
	defer os.RemoveAll(root)
	list := textures(filepath.Join(root, "images"), []string{"a/1.png", "a/2.png", "b/1.png"}, 8, 3)
	var shards []string
	for i := range 2 {
		dir := filepath.Join(root, fmt.Sprintf("shard%d", i))
		meta, err := describe.Describe(context.Background(), []*datasets.List{list}, dir, describe.Options{Shard: store.Shard{Index: i, Count: 2}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("shard %v: %d images\n", meta.Shard, meta.Counts.Images)
		shards = append(shards, dir)
	}
	meta, err := store.Merge(context.Background(), filepath.Join(root, "all"), shards)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("merged: %d descriptors of %dx%d\n", meta.Counts.Descriptors, meta.Dim, meta.Dim)
	// Output:
	// shard 0/2: 1 images
	// shard 1/2: 2 images
	// merged: 3 descriptors of 5x5
}

// tempDir makes a temporary folder whose name starts with prefix.
func tempDir(prefix string) string {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		log.Fatal(err)
	}
	return dir
}

// textures writes the textures of side×side pixels named names under
// dir, the kth with the shift k·step (see writeTexture), and opens dir as
// a dataset.
func textures(dir string, names []string, side, step int) *datasets.List {
	for k, name := range names {
		writeTexture(filepath.Join(dir, name), side, step*k)
	}
	list, err := datasets.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	return list
}

// writeTexture writes a side×side grey PNG of a deterministic texture,
// pixel i = i·(i+shift) mod 251, to path, creating its folder.
func writeTexture(path string, side, shift int) {
	img := image.NewGray(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * (i + shift) % 251)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
}
