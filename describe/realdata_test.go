package describe

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/internal/shareddata"
	"github.com/covpipe/covpipe/store"
)

// miniMars opens the mini-mars dataset, or skips when it is absent.
func miniMars(tb testing.TB) *datasets.List {
	tb.Helper()
	l, err := datasets.Open("mars:" + shareddata.Dir(tb, "mini-mars"))
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// reidOptions are those of the re-identification protocol: the 17 reid
// features of pedestrians resized to 32 wide by 64 high.
func reidOptions() Options {
	return Options{Features: fset("reid"), Width: 32, Height: 64}
}

// TestMiniMars describes two identities of mini-mars as the
// re-identification protocol does (32×64, reid features), checks a
// descriptor against the naive covariance, and that two shards merge into
// the same bytes.
func TestMiniMars(t *testing.T) {
	all := miniMars(t)
	labels := all.Labels()[:2]
	list := all.Filter(func(it datasets.Item) bool { return it.Label == labels[0] || it.Label == labels[1] })
	o := reidOptions()
	inputs := []*datasets.List{list}
	whole := describeTo(t, inputs, o)
	got, err := store.Read(whole)
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
	checkNaive(t, list.Items[i].Rel, got.Data[i*289:(i+1)*289], fm.Planes, 32, got.Rows[i].Region, got.Meta.Ridge)
	merged := filepath.Join(t.TempDir(), "merged")
	if _, err := store.Merge(context.Background(), merged, shardRun(t, inputs, o, 2)); err != nil {
		t.Fatal(err)
	}
	if d := foldertest.Same(t, whole, merged); d != "" {
		t.Errorf("merged shards differ from the whole run: %s", d)
	}
}
