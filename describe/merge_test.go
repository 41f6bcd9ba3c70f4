package describe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
)

// shardRun describes shards 0..n−1 of a run and returns their folders.
func shardRun(t *testing.T, inputs []*datasets.List, o Options, n int) []string {
	t.Helper()
	dirs := make([]string, n)
	for i := range n {
		o.Shard = Shard{Index: i, Count: n}
		o.Workers = 1 + i%3
		dirs[i] = describeTo(t, inputs, o)
	}
	return dirs
}

// TestMerge checks that the shards of a run, merged in any argument
// order, equal the unsharded run byte for byte, with failures and random
// blocks, for 1, 2, 3 and more shards than images.
func TestMerge(t *testing.T) {
	src := writeImages(t, testImages, 12)
	writeFile(t, filepath.Join(src, "b", "0bad.png"), []byte("not a png"))
	inputs := []*datasets.List{openFolders(t, src), openFolders(t, writeImages(t, testImages[2:5], 13))}
	o := Options{Regions: covariance.Layout{Kind: covariance.LayoutBlocks, N: 2, Side: 4}, Seed: 3, SkipBad: true}
	whole := describeTo(t, inputs, o)
	ref, err := Read(whole)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Meta.Counts != (Counts{Images: 11, Described: 10, Failed: 1, Descriptors: 20}) {
		t.Fatalf("counts %+v", ref.Meta.Counts)
	}
	for _, n := range []int{1, 2, 3, 5, 13} {
		dirs := shardRun(t, inputs, o, n)
		if n == 1 {
			if d := sameFiles(t, whole, dirs[0]); d != "" {
				t.Errorf("shard 0/1 differs from the unsharded run: %s", d)
			}
		}
		// Reverse the order of the arguments.
		args := make([]string, n)
		for i, d := range dirs {
			args[n-1-i] = d
		}
		out := filepath.Join(t.TempDir(), "merged")
		m, err := Merge(out, args)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if m.Counts != ref.Meta.Counts || m.Shard != nil {
			t.Errorf("%d shards: merged meta %+v", n, m)
		}
		if d := sameFiles(t, whole, out); d != "" {
			t.Errorf("%d shards: merged output differs from the unsharded run: %s", n, d)
		}
	}
}

// TestMergeRefuses checks that merge refuses shards that do not make one
// run, and leaves no output then.
func TestMergeRefuses(t *testing.T) {
	src := writeImages(t, testImages, 14)
	inputs := []*datasets.List{openFolders(t, src)}
	o := Options{Features: fset("I,x,y")}
	three := shardRun(t, inputs, o, 3)
	two := shardRun(t, inputs, o, 2)
	o2 := o
	o2.Reg = covariance.Regularization{Kind: covariance.Ridge, Eps: 1e-3}
	otherRidge := shardRun(t, inputs, o2, 3)
	o3 := o
	o3.SkipBad = true
	otherSkip := shardRun(t, inputs, o3, 3)
	writeFile(t, filepath.Join(src, "c,1", "3.png"), []byte("extra"))
	otherInputs := shardRun(t, []*datasets.List{openFolders(t, src)}, Options{Features: fset("I,x,y"), SkipBad: true}, 3)
	incomplete := describeTo(t, inputs, Options{Features: fset("I,x,y"), Shard: Shard{Index: 2, Count: 3}})
	os.Remove(filepath.Join(incomplete, MetaFile))
	truncated := describeTo(t, inputs, Options{Features: fset("I,x,y"), Shard: Shard{Index: 2, Count: 3}})
	os.Truncate(filepath.Join(truncated, DescriptorsFile), 200)
	reseal(t, truncated)
	shortManifest := describeTo(t, inputs, Options{Features: fset("I,x,y"), Shard: Shard{Index: 2, Count: 3}})
	man := filepath.Join(shortManifest, ManifestFile)
	b, _ := os.ReadFile(man)
	os.WriteFile(man, b[:strings.LastIndexByte(string(b[:len(b)-1]), '\n')+1], 0o644)
	reseal(t, shortManifest)
	tornNPY := describeTo(t, inputs, Options{Features: fset("I,x,y"), Shard: Shard{Index: 2, Count: 3}})
	npy := filepath.Join(tornNPY, DescriptorsFile)
	b, _ = os.ReadFile(npy)
	b[len(b)-1] ^= 1
	os.WriteFile(npy, b, 0o644)

	for _, tc := range []struct {
		name string
		dirs []string
		want string
	}{
		{"none", nil, "no shard folders"},
		{"missing", three[:2], "missing shard 2/3"},
		{"missing two", three[1:2], "missing shard 0/3, 2/3"},
		{"duplicate", []string{three[0], three[1], three[1], three[2]}, "shard 1/3 given twice"},
		{"mixed counts", []string{three[0], two[1], three[2]}, "not shards of one split"},
		{"other ridge", []string{three[0], otherRidge[1], three[2]}, `ridge {"kind":"trace-ridge","eps":0.0001} vs {"kind":"ridge","eps":0.001}`},
		{"other skip", []string{three[0], otherSkip[1], three[2]}, "skip_bad false vs true"},
		{"other inputs", []string{otherSkip[0], otherInputs[1], otherSkip[2]}, "inputs"},
		{"incomplete", []string{three[0], three[1], incomplete}, "no meta.json"},
		{"truncated", []string{three[0], three[1], truncated}, "truncated or corrupt"},
		{"short manifest", []string{three[0], three[1], shortManifest}, "has 2 rows, meta.json counts 3"},
		{"torn", []string{three[0], three[1], tornNPY}, "SHA-256 of descriptors.npy"},
		{"into a shard", three, "is the shard folder"},
	} {
		out := filepath.Join(t.TempDir(), "merged")
		if tc.name == "into a shard" {
			out = three[1]
		}
		_, err := Merge(out, tc.dirs)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrOutput) {
			t.Errorf("%s: error %v, want ErrOutput containing %q", tc.name, err, tc.want)
		}
		if tc.name != "into a shard" {
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: failed merge left its output folder: %v", tc.name, err)
			}
		}
	}
	if _, err := Read(three[1]); err != nil {
		t.Errorf("refused merge into a shard damaged it: %v", err)
	}
}

// TestShardRange checks that the shards of n images cover them once, in
// order, in contiguous slices whose sizes differ by at most one.
func TestShardRange(t *testing.T) {
	for n := range 40 {
		for count := 1; count <= 9; count++ {
			next, small, large := 0, n, 0
			for i := range count {
				lo, hi := Shard{Index: i, Count: count}.Range(n)
				if lo != next || hi < lo {
					t.Fatalf("n %d: shard %d/%d is [%d, %d), want a start at %d", n, i, count, lo, hi, next)
				}
				next = hi
				small, large = min(small, hi-lo), max(large, hi-lo)
			}
			if next != n || large-small > 1 {
				t.Errorf("n %d, %d shards: cover [0, %d), sizes %d..%d", n, count, next, small, large)
			}
		}
	}
	if lo, hi := (Shard{}).Range(5); lo != 0 || hi != 5 {
		t.Errorf("zero Shard takes [%d, %d)", lo, hi)
	}
	if lo, hi := (Shard{Index: 2, Count: 3}).Range(1 << 62); lo != 3074457345618258602 || hi != 1<<62 { // lo = ⌊2·2⁶²/3⌋
		t.Errorf("no overflow: [%d, %d)", lo, hi)
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/1", Shard{0, 1}, true},
		{"3/4", Shard{3, 4}, true},
		{"4/4", Shard{}, false},
		{"-1/4", Shard{}, false},
		{"+1/4", Shard{}, false},
		{"1/0", Shard{}, false},
		{"0/0", Shard{}, false},
		{"1", Shard{}, false},
		{"1/", Shard{}, false},
		{"/2", Shard{}, false},
		{"a/b", Shard{}, false},
		{"1/2/3", Shard{}, false},
		{" 1/2", Shard{}, false},
	} {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || got != tc.want || (err != nil && !errors.Is(err, ErrShard)) {
			t.Errorf("ParseShard(%q) = %v, %v", tc.in, got, err)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "-1/2", "1/0", "", "/", "9999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
			t.Fatalf("ParseShard(%q) = %v", s, sh)
		}
		back, err := ParseShard(sh.String())
		if err != nil || back != sh {
			t.Fatalf("round trip of %v: %v, %v", sh, back, err)
		}
	})
}

// TestShardBound checks that a shard count beyond MaxShards is refused by
// ParseShard and, read from a meta.json, by merge before it allocates by
// it (issue 12, defect 4).
func TestShardBound(t *testing.T) {
	if _, err := ParseShard("5/1000000000000"); err == nil || !strings.Contains(err.Error(), "N <= 1048576") {
		t.Errorf("ParseShard of a huge count: %v", err)
	}
	if _, err := ParseShard("0/1048576"); err != nil {
		t.Errorf("ParseShard at the bound: %v", err)
	}
	dir := writeImages(t, testImages[:2], 1)
	list, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(t.TempDir(), "s")
	if _, err := Describe(context.Background(), []*datasets.List{list}, shard, Options{Shard: Shard{Index: 0, Count: 2}}); err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(shard, MetaFile)
	b, _ := os.ReadFile(meta)
	os.WriteFile(meta, bytes.Replace(b, []byte(`"count": 2`), []byte(`"count": 1000000000000`), 1), 0o644)
	if _, err := Merge(filepath.Join(t.TempDir(), "out"), []string{shard}); err == nil || !strings.Contains(err.Error(), "1048576") {
		t.Errorf("merge of a shard of a huge count: %v", err)
	}
}
