package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/foldertest"
)

// TestMerge checks that the shards of a run, merged in any argument
// order, equal the unsharded run byte for byte, with failures and
// vectors, for 1, 2, 3 and more shards than images.
func TestMerge(t *testing.T) {
	for _, vecLen := range []int{0, 4} {
		r := skipRun(vecLen)
		r.fail = map[string]bool{"a/2.pgm": true, "caf\xe9/1.png": true}
		whole := r.writeTo(t)
		ref, err := Read(whole)
		if err != nil {
			t.Fatal(err)
		}
		if ref.Meta.Counts != (Counts{Images: 10, Described: 8, Failed: 2, Descriptors: 8 * r.regions}) {
			t.Fatalf("counts %+v", ref.Meta.Counts)
		}
		for _, n := range []int{1, 2, 3, 5, 13} {
			dirs := r.shards(t, n)
			// Reverse the order of the arguments.
			args := make([]string, n)
			for i, d := range dirs {
				args[n-1-i] = d
			}
			out := filepath.Join(t.TempDir(), "merged")
			m, err := Merge(context.Background(), out, args)
			if err != nil {
				t.Fatalf("%d shards: %v", n, err)
			}
			if m.Counts != ref.Meta.Counts || m.Shard != nil {
				t.Errorf("%d shards: merged meta %+v", n, m)
			}
			if d := foldertest.Same(t, whole, out); d != "" {
				t.Errorf("vectors %d, %d shards: merged folder differs from the unsharded run: %s", vecLen, n, d)
			}
		}
	}
}

// TestMergeRefuses checks that merge refuses shards that do not make one
// run, and leaves no output then.
func TestMergeRefuses(t *testing.T) {
	r := smallRun()
	three := r.shards(t, 3)
	two := r.shards(t, 2)
	otherRidge := r
	otherRidge.ridge = Ridge{Kind: "ridge", Eps: 1e-3}
	otherSkip := r
	otherSkip.skipBad = true
	otherInputs := otherSkip
	l := *r.lists[0]
	l.Items = append(slices.Clone(l.Items), datasets.Item{Rel: "c,1/3.png", Label: "c,1"})
	otherInputs.lists = []*datasets.List{&l}
	otherVectors := r
	otherVectors.vecLen = 2
	shard := r
	shard.shard = Shard{Index: 2, Count: 3}
	incomplete := shard.writeTo(t)
	os.Remove(filepath.Join(incomplete, MetaFile))
	truncated := shard.writeTo(t)
	os.Truncate(filepath.Join(truncated, DescriptorsFile), 200)
	reseal(t, truncated)
	shortManifest := shard.writeTo(t)
	man := filepath.Join(shortManifest, ManifestFile)
	b, _ := os.ReadFile(man)
	os.WriteFile(man, b[:strings.LastIndexByte(string(b[:len(b)-1]), '\n')+1], 0o644)
	reseal(t, shortManifest)
	tornNPY := shard.writeTo(t)
	npy := filepath.Join(tornNPY, DescriptorsFile)
	b, _ = os.ReadFile(npy)
	b[len(b)-1] ^= 1
	os.WriteFile(npy, b, 0o644)
	// Manifests that Read refuses, resealed so that only their rows are
	// wrong.
	badRow := func(field int, value string) string {
		dir := shard.writeTo(t)
		man := filepath.Join(dir, ManifestFile)
		b, _ := os.ReadFile(man)
		lines := strings.SplitN(string(b), "\n", 3)
		f := strings.Split(lines[1], ",")
		f[field] = value
		lines[1] = strings.Join(f, ",")
		os.WriteFile(man, []byte(strings.Join(lines, "\n")), 0o644)
		reseal(t, dir)
		if _, err := Read(dir); err == nil {
			t.Fatalf("Read takes the manifest row %s", lines[1])
		}
		return dir
	}
	badEscape, badLabel, badRegion := badRow(1, `a\xZZ.png`), badRow(2, `\q`), badRow(3, "999999999999x-5+a+b")
	whole, otherWhole := r.writeTo(t), otherRidge.writeTo(t)
	failed := r
	failed.skipBad = true
	failed.fail = map[string]bool{}
	for _, it := range r.lists[0].Items {
		failed.fail[it.Rel] = true
	}

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
		{"other ridge", []string{three[0], otherRidge.shards(t, 3)[1], three[2]}, `ridge {"kind":"trace-ridge","eps":0.0001} vs {"kind":"ridge","eps":0.001}`},
		{"other skip", []string{three[0], otherSkip.shards(t, 3)[1], three[2]}, "skip_bad false vs true"},
		{"other inputs", []string{otherSkip.shards(t, 3)[0], otherInputs.shards(t, 3)[1], otherSkip.shards(t, 3)[2]}, "inputs"},
		{"other vectors", []string{three[0], otherVectors.shards(t, 3)[1], three[2]}, "vectors null vs"},
		{"incomplete", []string{three[0], three[1], incomplete}, "no meta.json"},
		{"does not exist", []string{three[0], three[1], filepath.Join(t.TempDir(), "nowhere")}, "nowhere: stat"},
		{"a file", []string{three[0], three[1], filepath.Join(three[1], MetaFile)}, "meta.json: not a folder"},
		{"two unrelated runs", []string{whole, otherWhole}, "not shards of the same run: ridge"},
		{"the whole run twice", []string{whole, whole}, "both hold the whole run"},
		{"bad path escape", []string{three[0], three[1], badEscape}, "malformed escape"},
		{"bad label escape", []string{three[0], three[1], badLabel}, "malformed escape"},
		{"bad region", []string{three[0], three[1], badRegion}, "999999999999x-5+a+b"},
		{"truncated", []string{three[0], three[1], truncated}, "truncated or corrupt"},
		{"short manifest", []string{three[0], three[1], shortManifest}, "has 2 rows, meta.json counts 3"},
		{"torn", []string{three[0], three[1], tornNPY}, "SHA-256 of descriptors.npy"},
		{"into a shard", three, "is the shard folder"},
		{"all failed", failed.shards(t, 2), "all 7 images of the shards failed"},
	} {
		out := filepath.Join(t.TempDir(), "merged")
		if tc.name == "into a shard" {
			out = three[1]
		}
		_, err := Merge(context.Background(), out, tc.dirs)
		if err == nil || !strings.Contains(err.Error(), tc.want) || (!errors.Is(err, ErrInvalid) && tc.name != "all failed") {
			t.Errorf("%s: error %v, want ErrInvalid containing %q", tc.name, err, tc.want)
		}
		// What failed comes first, not the sentinel's text.
		if err != nil && (!strings.HasPrefix(err.Error(), "merge: ") || strings.Contains(err.Error(), ErrInvalid.Error())) {
			t.Errorf("%s: error %q, want it to start with \"merge: \" without %q", tc.name, err, ErrInvalid)
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
// it.
func TestShardBound(t *testing.T) {
	if _, err := ParseShard("5/1000000000000"); err == nil || !strings.Contains(err.Error(), "N <= 1048576") {
		t.Errorf("ParseShard of a huge count: %v", err)
	}
	if _, err := ParseShard("0/1048576"); err != nil {
		t.Errorf("ParseShard at the bound: %v", err)
	}
	r := smallRun()
	r.shard = Shard{Index: 0, Count: 2}
	shard := r.writeTo(t)
	meta := filepath.Join(shard, MetaFile)
	b, _ := os.ReadFile(meta)
	os.WriteFile(meta, bytes.Replace(b, []byte(`"count": 2`), []byte(`"count": 1000000000000`), 1), 0o644)
	if _, err := Merge(context.Background(), filepath.Join(t.TempDir(), "out"), []string{shard}); err == nil || !strings.Contains(err.Error(), "1048576") {
		t.Errorf("merge of a shard of a huge count: %v", err)
	}
}
