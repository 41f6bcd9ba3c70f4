package describe

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/store"
)

// TestShards checks that the shards of a run, each on another number of
// workers and merged by store.Merge in any argument order, equal the
// unsharded run byte for byte, with failures and random blocks, for 1, 2,
// 3 and more shards than images.
func TestShards(t *testing.T) {
	src := writeImages(t, testImages, 12)
	foldertest.WriteFile(t, filepath.Join(src, "b", "0bad.png"), []byte("not a png"))
	inputs := []*datasets.List{openFolders(t, src), openFolders(t, writeImages(t, testImages[2:5], 13))}
	o := Options{Regions: covariance.Layout{Kind: covariance.LayoutBlocks, N: 2, Side: 4}, Seed: 3, SkipBad: true}
	whole := describeTo(t, inputs, o)
	ref, err := store.Read(whole)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Meta.Counts != (store.Counts{Images: 11, Described: 10, Failed: 1, Descriptors: 20}) {
		t.Fatalf("counts %+v", ref.Meta.Counts)
	}
	for _, n := range []int{1, 2, 3, 13} {
		dirs := shardRun(t, inputs, o, n)
		if n == 1 {
			if d := foldertest.Same(t, whole, dirs[0]); d != "" {
				t.Errorf("shard 0/1 differs from the unsharded run: %s", d)
			}
		}
		args := make([]string, n)
		for i, d := range dirs {
			args[n-1-i] = d
		}
		out := filepath.Join(t.TempDir(), "merged")
		if _, err := store.Merge(out, args); err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if d := foldertest.Same(t, whole, out); d != "" {
			t.Errorf("%d shards: merged output differs from the unsharded run: %s", n, d)
		}
	}
}

// TestBlockSeed pins BlockSeed to FNV-1a computed by hand (offset
// 14695981039346656037, prime 1099511628211, over the seed's 8
// little-endian bytes then the path), so that block layouts, and the
// descriptor caches keyed on them, stay the same; and checks that it
// allocates nothing, as it runs once per image.
func TestBlockSeed(t *testing.T) {
	seen := make(map[uint64]bool)
	for _, tc := range []struct {
		seed uint64
		rel  string
		want uint64
	}{
		{0x0, "", 0xa8c7f832281a39c5},
		{0x0, "a", 0xe604613a248ff1ac},
		{0x0, "a/b.png", 0x63efa0aaa5a9e994},
		{0x0, "ünï/x.jpg", 0x1a75d64390b77be0},
		{0x0, "D1.gif", 0xf1c156313594cb7e},
		{0x1, "", 0x89cd31291d2aefa4},
		{0x1, "a", 0x529a4ddc8ff56bbf},
		{0x1, "a/b.png", 0x35ec55f1003466cf},
		{0x1, "ünï/x.jpg", 0xfbecde214b47fef},
		{0x1, "D1.gif", 0x718ab0bf67893ee7},
		{0x2a, "", 0xff3add6b3789daef},
		{0x2a, "a", 0x3ae0cb2f5f3e5f4a},
		{0x2a, "a/b.png", 0x790ca09ad15af74e},
		{0x2a, "ünï/x.jpg", 0x2e41a5509b48c97e},
		{0x2a, "D1.gif", 0xaeee175a54d53cd4},
		{0x100000000000000, "", 0xa8c7f732281a3812},
		{0x100000000000000, "a", 0xe6017d3a248deb69},
		{0x100000000000000, "a/b.png", 0xc5386672038cc655},
		{0x100000000000000, "ünï/x.jpg", 0x30d1d0b22e4a4af9},
		{0x100000000000000, "D1.gif", 0x88ab3150687b3c01},
		{0xdeadbeefcafe, "", 0x8f87dc4d935e688f},
		{0xdeadbeefcafe, "a", 0x424445d1696c4c6a},
		{0xdeadbeefcafe, "a/b.png", 0x657dd74af8859eee},
		{0xdeadbeefcafe, "ünï/x.jpg", 0x4a1492c88fc9481e},
		{0xdeadbeefcafe, "D1.gif", 0xf1ca1f2725846434},
		{0xffffffffffffffff, "", 0x8cf51a8bfca3883d},
		{0xffffffffffffffff, "a", 0x280477de49e0b454},
		{0xffffffffffffffff, "a/b.png", 0xfa881772141afd6c},
		{0xffffffffffffffff, "ünï/x.jpg", 0xafd3b66ef3b81ad8},
		{0xffffffffffffffff, "D1.gif", 0xdc11a29226a63eb6},
	} {
		got := BlockSeed(tc.seed, tc.rel)
		if got != tc.want {
			t.Errorf("BlockSeed(%#x, %q) = %#x, want %#x", tc.seed, tc.rel, got, tc.want)
		}
		if seen[got] {
			t.Errorf("BlockSeed(%#x, %q) repeats %#x", tc.seed, tc.rel, got)
		}
		seen[got] = true
	}
	rel := strings.Repeat("class/image-0001.png", 10)
	if n := testing.AllocsPerRun(10, func() { BlockSeed(1, rel) }); n != 0 {
		t.Errorf("BlockSeed allocates %v times", n)
	}
}
