package describe

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/shareddata"
)

// TestMiniMars describes two identities of mini-mars as the
// re-identification protocol does (32×64, reid features), checks a
// descriptor against the naive covariance, and that two shards merge into
// the same bytes.
func TestMiniMars(t *testing.T) {
	all, err := datasets.Open("mars:" + shareddata.Dir(t, "mini-mars"))
	if err != nil {
		t.Fatal(err)
	}
	labels := all.Labels()[:2]
	list := all.Filter(func(it datasets.Item) bool { return it.Label == labels[0] || it.Label == labels[1] })
	o := Options{Features: fset("reid"), Width: 32, Height: 64}
	inputs := []*datasets.List{list}
	whole := describeTo(t, inputs, o)
	got, err := Read(whole)
	if err != nil {
		t.Fatal(err)
	}
	if got.Meta.Counts.Descriptors != list.Len() || got.Meta.Dim != 17 {
		t.Fatalf("counts %+v, dim %d", got.Meta.Counts, got.Meta.Dim)
	}
	i := list.Len() - 1
	img, err := imageio.Load(list.Items[i].Path, imageio.Options{Color: true, Width: 32, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	set, _ := features.Parse("reid")
	fm, err := set.Compute(img)
	if err != nil {
		t.Fatal(err)
	}
	truth := naiveCov(fm.Planes, 32, got.Rows[i].Region, got.Meta.Ridge)
	for k, v := range got.Data[i*289 : (i+1)*289] {
		if math.Abs(v-truth[k]) > 1e-12*(1+math.Abs(truth[k])) {
			t.Fatalf("%s: [%d][%d] = %v, want %v", list.Items[i].Rel, k/17, k%17, v, truth[k])
		}
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if _, err := Merge(merged, shardRun(t, inputs, o, 2)); err != nil {
		t.Fatal(err)
	}
	if d := sameFiles(t, whole, merged); d != "" {
		t.Errorf("merged shards differ from the whole run: %s", d)
	}
}
