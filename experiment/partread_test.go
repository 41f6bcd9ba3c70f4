package experiment

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/progress"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
)

// partsConfig has two layouts that share their whole-image region.
const partsConfig = `
name: parts
seed: 1
repeats: 1
folds: 2
data:
  dataset: g
  features: I,Ix,Iy
  parts: {regions: ["whole,grid:2x2:12", "whole,grid:3x3:8"], fusion: [sum]}
tasks:
  - {name: r, split: {train_per_class: 3}}
methods:
  - {name: rsr, sigma: 1, lambda_ratio: 0.02}
`

// partsEngine returns the engine of a run of partsConfig over root with
// the cache folder cache ("" for none), logging to log.
func partsEngine(t *testing.T, root, cache string, log *bytes.Buffer) *engine {
	t.Helper()
	plan, err := Parse([]byte(partsConfig))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{DataRoot: root, CacheDir: cache, Logger: slog.New(slog.NewTextHandler(log, nil))}
	return &engine{ctx: context.Background(), plan: plan, cfg: plan.Config, opts: opts, timings: map[string]float64{},
		workers: 1, log: opts.Logger, rep: progress.Or(nil)}
}

// denseParts is the independent path that partReader replaces: the
// cache folder dir read whole (store.Read), its descriptors a dense Set
// (spd.NewSetFromData) regrouped in place and packed
// (classify.Data.SetParts, PackParts).
func denseParts(t *testing.T, e *engine, dir string) (*classify.Data, []string) {
	t.Helper()
	out, err := store.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := spd.NewSetFromData(out.Meta.Dim, out.Data)
	if err != nil {
		t.Fatal(err)
	}
	d := &classify.Data{Set: set, Labels: make([]int, len(out.Rows)), Meta: make([]map[string]string, len(out.Rows))}
	for i, r := range out.Rows {
		d.Labels[i] = slices.Index(e.imageData[0].Classes, r.Label)
		d.Meta[i] = map[string]string{"path": r.Path, "region": r.Region.String()}
	}
	want, regions, err := partsOf(d, e.plan.data.layout.Count(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := want.PackParts(nil); err != nil {
		t.Fatal(err)
	}
	return want, regions
}

// sameParts reports how got's parts differ from want's: labels, paths,
// which parts are one, and every part's matrices and log-determinants
// bit for bit.
func sameParts(got, want *classify.Data) string {
	if !slices.Equal(got.Labels, want.Labels) || len(got.Parts) != len(want.Parts) {
		return "labels or number of parts"
	}
	for i, m := range got.Meta {
		if m["path"] != want.Meta[i]["path"] || m["region"] != "" {
			return "metadata of item " + m["path"]
		}
	}
	for r, p := range got.Parts {
		for q := range r {
			if (p == got.Parts[q]) != (want.Parts[r] == want.Parts[q]) {
				return "which parts are one"
			}
		}
		w := want.Parts[r].Set
		if !p.Set.Packed() || !spd.Equal(p.Set, w) || !slices.Equal(p.Set.Data(), w.Data()) {
			return "the matrices of a part"
		}
		for i := range p.Set.Len() {
			if math.Float64bits(p.Set.LogDet(i)) != math.Float64bits(w.LogDet(i)) {
				return "a log-determinant"
			}
		}
	}
	return ""
}

// TestPartsFromCache checks the regions of data.parts read from the
// descriptor cache one descriptor at a time (partReader) against the
// same cache folder read whole, regrouped and packed: the same parts bit
// for bit, the whole-image region of both layouts one part, with the
// cache filled, read back, without a cache, and after a NaN in the cache
// folder, which is a miss naming the descriptor and recomputed; and that
// the copies under two labels are found as from dense descriptors.
func TestPartsFromCache(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeGratings(t, root, "g", 3, 4)
	// Two images the same under two labels.
	dirs, _ := filepath.Glob(filepath.Join(root, "g", "*"))
	a, _ := filepath.Glob(filepath.Join(dirs[0], "*"))
	b, _ := filepath.Glob(filepath.Join(dirs[1], "*"))
	img, err := os.ReadFile(a[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b[0], img, 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(cache string) (*engine, string) {
		t.Helper()
		var log bytes.Buffer
		e := partsEngine(t, root, cache, &log)
		data, err := e.listData()
		if err != nil {
			t.Fatal(err)
		}
		e.imageData = data
		return e, log.String()
	}
	e, _ := load(cache) // fills the cache
	entries, _ := filepath.Glob(filepath.Join(cache, "descriptors", "*"))
	if len(entries) != 1 {
		t.Fatalf("cache entries %v", entries)
	}
	want, regions := denseParts(t, e, entries[0])
	if len(want.Parts) != 15 || want.Parts[0] != want.Parts[5] {
		t.Fatalf("%d parts, the whole image's one %v", len(want.Parts), want.Parts[0] == want.Parts[5])
	}
	check := func(name string, e *engine) {
		t.Helper()
		if d := sameParts(e.imageData[0], want); d != "" || !slices.Equal(e.partRegions, regions) {
			t.Errorf("%s: %s differ from the dense path's (regions %v, want %v)", name, d, e.partRegions, regions)
		}
		if len(e.imageNotes) != 1 || !strings.HasPrefix(e.imageNotes[0], "1 pairs of g's descriptors are bit for bit the same") {
			t.Errorf("%s: notes %q, want the one pair of copies", name, e.imageNotes)
		}
	}
	check("cache filled", e)
	e, log := load(cache)
	if !strings.Contains(log, "descriptors read from cache") {
		t.Errorf("cache not read:\n%s", log)
	}
	check("cache read", e)
	e, _ = load("")
	check("no cache", e)

	npy := filepath.Join(entries[0], store.DescriptorsFile)
	buf, err := os.ReadFile(npy)
	if err != nil {
		t.Fatal(err)
	}
	n := len(buf) - 8*((len(buf)-200)/16)               // a value about halfway through the data
	copy(buf[n:], []byte{1, 0, 0, 0, 0, 0, 0xf8, 0x7f}) // a NaN
	if err := os.WriteFile(npy, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	foldertest.Reseal(t, entries[0], store.MetaFile)
	e, log = load(cache)
	if !strings.Contains(log, "descriptor cache unusable") || !strings.Contains(log, "holds NaN") || !strings.Contains(log, entries[0]) {
		t.Errorf("log lacks the warning of a NaN naming its descriptor and %s:\n%s", entries[0], log)
	}
	check("cache holding a NaN", e)
	if _, err := store.Read(entries[0]); err != nil {
		t.Errorf("cache not recomputed: %v", err)
	}
}
