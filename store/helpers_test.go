package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/foldertest"
)

// run is a made-up extraction run, written by Writer as describe writes
// a real one: the images of lists in order, each image's descriptors
// and vector drawn from its input and path, so that folders of the same
// run are the same bytes and any reordering shows.
type run struct {
	lists   []*datasets.List
	dim     int
	regions int             // descriptors per image
	vecLen  int             // values per vector; 0: no vectors
	skipBad bool            // failures listed, not fatal
	fail    map[string]bool // relative paths of the images that fail
	shard   Shard
	ridge   Ridge
	salt    uint64 // another run of the same shape: other values
}

// testLists are two inputs: 7 images of 3 classes with uneven counts (3,
// 2, 2), so that shards have uneven sizes, and 3 more with names that
// need quoting or escaping.
func testLists() []*datasets.List {
	list := func(root string, rels ...string) *datasets.List {
		l := &datasets.List{Root: root, Skipped: datasets.Skipped{NonImages: len(rels) % 2}}
		for _, rel := range rels {
			label, _, _ := strings.Cut(rel, "/")
			l.Items = append(l.Items, datasets.Item{Path: filepath.Join(root, rel), Rel: rel, Label: label})
		}
		return l
	}
	return []*datasets.List{
		list("in/first", "a/1.png", "a/2.pgm", "a/sub/3.png", "b/1.png", "b/x y.pgm", "c,1/1.png", "c,1/2.png"),
		list("in/second", "caf\xe9/1.png", `ok/a\b.png`, "ok/\xff.png"),
	}
}

// testRun is a run over testLists of 2 descriptors of 3×3 per image.
func testRun() run {
	return run{lists: testLists(), dim: 3, regions: 2, ridge: Ridge{Kind: "trace-ridge", Eps: 1e-4}}
}

// skipRun is testRun with SkipBad and, when vecLen > 0, vectors of
// vecLen values, with one descriptor per image as vectors need.
func skipRun(vecLen int) run {
	r := testRun()
	r.skipBad = true
	if vecLen > 0 {
		r.vecLen, r.regions = vecLen, 1
	}
	return r
}

// smallRun is a run over the first 7 images of testLists, one input, of
// one 2×2 descriptor per image.
func smallRun() run {
	return run{lists: testLists()[:1], dim: 2, regions: 1, ridge: Ridge{Kind: "trace-ridge", Eps: 1e-4}}
}

// meta returns the meta.json of the run without counts, as describe
// makes it.
func (r run) meta() Meta {
	m := Meta{
		Format: Format, Version: "test", Dim: r.dim, Ridge: r.ridge,
		Regions: "blocks:" + strconv.Itoa(r.regions) + ":2", Seed: 7, SkipBad: r.skipBad,
	}
	for i := range r.dim {
		m.Features = append(m.Features, "f"+strconv.Itoa(i))
	}
	m.FeatureSpec = fmt.Sprint(m.Features)
	if r.vecLen > 0 {
		m.Vectors = &Vectors{FeatureSpec: "I", Step: 2}
	}
	m.Inputs, m.ItemsSHA256 = Inputs(r.lists)
	if r.shard.Count > 1 {
		sh := r.shard
		m.Shard = &sh
	}
	return m
}

// write writes the folder of the run (its shard) into dir and returns
// its meta.
func (r run) write(t testing.TB, dir string) *Meta {
	t.Helper()
	m := r.meta()
	w, err := Create(context.Background(), dir, &m)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	total := m.TotalImages()
	lo, hi := r.shard.Range(total)
	i := 0
	for k, l := range r.lists {
		for _, it := range l.Items {
			if i < lo || i >= hi {
				i++
				continue
			}
			i++
			m.Counts.Images++
			if r.fail[it.Rel] {
				m.Counts.Failed++
				if err := w.AddFailure(k, it.Rel, errors.New("load "+it.Path+":\nnot an image")); err != nil {
					t.Fatal(err)
				}
				continue
			}
			regions, data, vec := r.image(k, it.Rel)
			if err := w.Add(k, it.Rel, it.Label, regions, data); err != nil {
				t.Fatal(err)
			}
			if r.vecLen > 0 {
				if err := w.AddVector(vec); err != nil {
					t.Fatal(err)
				}
			}
			m.Counts.Described++
			m.Counts.Descriptors += len(regions)
		}
	}
	if err := w.Commit(&m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// image returns the regions, descriptors and vector of image rel of input
// k: values drawn from a seed of both.
func (r run) image(k int, rel string) ([]covariance.Region, []float64, []float64) {
	h := fnv.New64a()
	h.Write([]byte(rel))
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(k)^r.salt<<8))
	regions := make([]covariance.Region, r.regions)
	for i := range regions {
		regions[i] = covariance.Region{X: rng.IntN(10), Y: rng.IntN(10), W: 2 + rng.IntN(20), H: 2 + rng.IntN(20)}
	}
	// Each descriptor is SPD, as describe's are: AAᵀ + I for a random A.
	d := r.dim
	data := make([]float64, r.regions*d*d)
	a := make([]float64, d*d)
	for k := range r.regions {
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		m := data[k*d*d : (k+1)*d*d]
		for i := range d {
			for j := range d {
				for l := range d {
					m[i*d+j] += a[i*d+l] * a[j*d+l]
				}
			}
			m[i*d+i]++
		}
	}
	vec := make([]float64, r.vecLen)
	for i := range vec {
		vec[i] = rng.Float64()
	}
	return regions, data, vec
}

// writeTo writes the run into a new temporary folder and returns it.
func (r run) writeTo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	r.write(t, dir)
	return dir
}

// shards writes shards 0..n−1 of the run and returns their folders.
func (r run) shards(t testing.TB, n int) []string {
	t.Helper()
	dirs := make([]string, n)
	for i := range n {
		r.shard = Shard{Index: i, Count: n}
		dirs[i] = r.writeTo(t)
	}
	return dirs
}

// reseal rewrites the file records of dir's meta.json to match the
// files in dir (foldertest.Reseal).
func reseal(t testing.TB, dir string) {
	t.Helper()
	foldertest.Reseal(t, dir, MetaFile)
}
