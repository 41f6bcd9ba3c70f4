package store_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/store"
)

// A descriptor folder written image by image, then read back; describe
// writes its folders this way.
func ExampleCreate() {
	dir := filepath.Join(os.TempDir(), "covpipe-example-create")
	defer os.RemoveAll(dir)
	list := &datasets.List{Root: "photos", Items: []datasets.Item{{Rel: "cat/1.png", Label: "cat"}, {Rel: "dog/1.png", Label: "dog"}}}
	m := store.Meta{Format: store.Format, Version: "example", FeatureSpec: "I,x", Features: []string{"I", "x"}, Dim: 2,
		Ridge: store.Ridge{Kind: "none"}, Regions: "whole"}
	m.Inputs, m.ItemsSHA256 = store.Inputs([]*datasets.List{list})
	w, err := store.Create(context.Background(), dir, &m)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort()
	whole := []covariance.Region{{W: 4, H: 4}}
	for i, it := range list.Items {
		if err := w.Add(0, it.Rel, it.Label, whole, []float64{1 + float64(i), 0.5, 0.5, 2}); err != nil {
			log.Fatal(err)
		}
	}
	m.Counts = store.Counts{Images: 2, Described: 2, Descriptors: 2}
	if err := w.Commit(&m); err != nil {
		log.Fatal(err)
	}
	out, err := store.Read(dir)
	if err != nil {
		log.Fatal(err)
	}
	for i, r := range out.Rows {
		fmt.Println(r.Path, r.Label, r.Region, out.Data[4*i:4*i+4])
	}
	for _, f := range out.Meta.Files {
		fmt.Println(f.Name, f.Size)
	}
	// Output:
	// cat/1.png cat 4x4+0+0 [1 0.5 0.5 2]
	// dog/1.png dog 4x4+0+0 [2 0.5 0.5 2]
	// descriptors.npy 192
	// manifest.csv 72
}

// An output set: files that appear together, with the marker meta.json
// that records them, or not at all. A second writer into the folder
// fails at once; OpenSet reads the set back, checking each file.
func ExampleFolder() {
	dir := filepath.Join(os.TempDir(), "covpipe-example-folder")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	f, err := store.CreateFolder(ctx, dir, store.FormatRun)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Abort()
	for _, name := range []string{"results.json", "summary.md"} {
		if err := f.WriteFile(name, []byte("this is "+name+"\n")); err != nil {
			log.Fatal(err)
		}
	}
	_, err = store.CreateFolder(ctx, dir, store.FormatRun)
	fmt.Println("a second writer is locked out:", errors.Is(err, store.ErrLocked))
	_, err = os.Stat(filepath.Join(dir, "summary.md"))
	fmt.Println("before Commit, summary.md exists:", !errors.Is(err, os.ErrNotExist))
	if err := f.Commit(); err != nil {
		log.Fatal(err)
	}
	set, err := store.OpenSet(dir, store.FormatRun)
	if err != nil {
		log.Fatal(err)
	}
	for _, file := range set.Files {
		b, err := set.ReadFile(file.Name)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %d %s %q\n", file.Name, file.Size, file.SHA256[:12], b)
	}
	// Output:
	// a second writer is locked out: true
	// before Commit, summary.md exists: false
	// results.json 21 1c2384a8ac7c "this is results.json\n"
	// summary.md 19 b87d6043c730 "this is summary.md\n"
}

// Arrays for NumPy: written whole, read back with their shape.
func ExampleWriteNPY() {
	path := filepath.Join(os.TempDir(), "covpipe-example-codes.npy")
	defer os.Remove(path)
	if err := store.WriteNPY(path, []int{2, 3}, []float64{1, 0, 0, 0, 2.5, 0}); err != nil {
		log.Fatal(err)
	}
	shape, data, err := store.ReadNPY(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(shape, data)
	// Output: [2 3] [1 0 0 0 2.5 0]
}
