package describe

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/store"
)

// The tests of this file cover what goes wrong with real inputs: file
// names that are not UTF-8, links that cannot be followed, skipped
// entries, runs where every image fails and the memory bound.

// TestNonUTF8Names describes images whose names are not UTF-8 or hold a
// backslash, with a failing one, and checks that manifest.csv and
// failures.csv are valid UTF-8, that store.Read gives the names back, and that
// merged shards are the same bytes.
func TestNonUTF8Names(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("file names must be valid Unicode here")
	}
	specs := []imageSpec{
		{"caf\xe9/1.png", 8, 8, false},
		{"ok/a\\b.png", 8, 8, true},
		{"ok/\xff.png", 8, 8, false},
	}
	src := writeImages(t, specs, 34)
	foldertest.WriteFile(t, filepath.Join(src, "ok", "bad\xfe.png"), []byte("not a png"))
	list := openFolders(t, src)
	o := Options{SkipBad: true}
	out := describeTo(t, []*datasets.List{list}, o)
	for _, name := range []string{store.ManifestFile, store.FailuresFile} {
		b, _ := os.ReadFile(filepath.Join(out, name))
		if !utf8.Valid(b) {
			t.Errorf("%s is not UTF-8:\n%s", name, b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, store.FailuresFile)); !strings.Contains(string(b), `ok/bad\xfe.png,`) {
		t.Errorf("failures.csv:\n%s", b)
	}
	got, err := store.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var paths, labels []string
	for _, r := range got.Rows {
		paths, labels = append(paths, r.Path), append(labels, r.Label)
	}
	if want := []string{"caf\xe9/1.png", "ok/a\\b.png", "ok/\xff.png"}; !slices.Equal(paths, want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
	if want := []string{"caf\xe9", "ok", "ok"}; !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if _, err := store.Merge(context.Background(), merged, shardRun(t, []*datasets.List{list}, o, 2)); err != nil {
		t.Fatal(err)
	}
	if d := foldertest.Same(t, out, merged); d != "" {
		t.Errorf("merged shards differ: %s", d)
	}
}

// TestLinksThatCannotBeFollowed checks that a broken symbolic link and a
// loop with image names fail the run naming them, or are listed in
// failures.csv with SkipBad, instead of being dropped.
func TestLinksThatCannotBeFollowed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	src := writeImages(t, testImages[:2], 35)
	broken, loop := filepath.Join(src, "a", "broken.png"), filepath.Join(src, "a", "loop.png")
	if os.Symlink("missing.png", broken) != nil || os.Symlink("loop.png", loop) != nil {
		t.Fatal("symlink")
	}
	inputs := []*datasets.List{openFolders(t, src)}
	_, err := Describe(context.Background(), inputs, filepath.Join(t.TempDir(), "out"), Options{})
	if err == nil || !strings.Contains(err.Error(), broken) || !strings.Contains(err.Error(), "symbolic link to missing.png") {
		t.Errorf("broken link: %v, want an error naming %s", err, broken)
	}
	out := describeTo(t, inputs, Options{SkipBad: true})
	b, _ := os.ReadFile(filepath.Join(out, store.FailuresFile))
	for _, rel := range []string{"a/broken.png,", "a/loop.png,"} {
		if !strings.Contains(string(b), rel) {
			t.Errorf("failures.csv lacks %s:\n%s", rel, b)
		}
	}
}

// TestSkippedCounts checks that the files and empty class folders that
// listing passed over are recorded in meta.json.
func TestSkippedCounts(t *testing.T) {
	src := writeImages(t, testImages[:3], 36)
	foldertest.WriteFile(t, filepath.Join(src, "a", "notes.txt"), []byte("x"))
	foldertest.WriteFile(t, filepath.Join(src, "README"), []byte("x"))
	foldertest.WriteFile(t, filepath.Join(src, "a", ".DS_Store"), []byte("x"))
	os.MkdirAll(filepath.Join(src, "empty"), 0o755)
	m, err := store.ReadMeta(describeTo(t, []*datasets.List{openFolders(t, src)}, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Inputs[0].Skipped, (datasets.Skipped{NonImages: 2, EmptyFolders: 1}); got != want {
		t.Errorf("skipped %+v, want %+v", got, want)
	}
}

// TestAllFailed checks that a run where every image fails is an error,
// with SkipBad too, and writes nothing; a shard of failures is not, but
// the merge of all-failed shards is.
func TestAllFailed(t *testing.T) {
	src := t.TempDir()
	foldertest.WriteFile(t, filepath.Join(src, "a", "1.png"), []byte("not a png"))
	foldertest.WriteFile(t, filepath.Join(src, "a", "2.png"), []byte("nor this"))
	inputs := []*datasets.List{openFolders(t, src)}
	out := filepath.Join(t.TempDir(), "out")
	_, err := Describe(context.Background(), inputs, out, Options{SkipBad: true})
	if err == nil || !strings.Contains(err.Error(), "all 2 images failed") || !strings.Contains(err.Error(), filepath.Join(src, "a", "1.png")) {
		t.Errorf("all failed: %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("all failed: output left: %v", err)
	}
	shards := shardRun(t, inputs, Options{SkipBad: true}, 2)
	if _, err := store.Merge(context.Background(), filepath.Join(t.TempDir(), "m"), shards); err == nil || !strings.Contains(err.Error(), "all 2 images") {
		t.Errorf("merge of failed shards: %v", err)
	}
}

// TestMemoryLimit checks the bound on the memory of the images in
// progress: an image whose estimate, from its header, exceeds the limit
// fails naming its size, planes and the limit (before it is decoded: the
// huge PGM's pixels are missing), or goes to failures.csv with SkipBad;
// images that fit only one at a time give the same output on 1 and 3
// workers.
func TestMemoryLimit(t *testing.T) {
	src := t.TempDir()
	huge := filepath.Join(src, "h", "huge.pgm")
	foldertest.WriteFile(t, huge, []byte("P5\n8192 8192\n255\n\x00\x00"))
	big := filepath.Join(src, "b", "big.png")
	imagetest.Write(t, big, imagetest.NoiseGray(rand.New(rand.NewPCG(1, 2)), 64, 64))
	smallDir := writeImages(t, testImages, 37)
	list := func(dirs ...string) []*datasets.List {
		var l []*datasets.List
		for _, d := range dirs {
			l = append(l, openFolders(t, d))
		}
		return l
	}
	onlyHuge := filepath.Join(src, "h")
	for _, tc := range []struct {
		name   string
		inputs []*datasets.List
		o      Options
		want   []string // in the error; nil: no ErrMemory
	}{
		{"face features, default limit", list(onlyHuge), Options{Features: fset("face")},
			[]string{huge, "8192x8192", "1 image and 43 feature planes", "22.0 GiB", "4.0 GiB", "--max-memory"}},
		{"texture fits the default", list(onlyHuge), Options{}, nil},
		{"resized", list(filepath.Join(src, "b")), Options{MaxMemory: 150_000, Width: 8, Height: 8}, nil},
		{"low limit", list(filepath.Join(src, "b")), Options{MaxMemory: 150_000},
			[]string{big, "64x64", "1 image and 5 feature planes", "192.0 KiB", "146.5 KiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Describe(context.Background(), tc.inputs, filepath.Join(t.TempDir(), "out"), tc.o)
			if tc.want == nil {
				if errors.Is(err, ErrMemory) {
					t.Errorf("%v", err)
				}
				return
			}
			if !errors.Is(err, ErrMemory) {
				t.Fatalf("%v, want ErrMemory", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// With SkipBad the big image is a failure; the small ones (at most
	// 20×20·6·8 = 19200 bytes) fit two at a time under 40000 bytes.
	o := Options{SkipBad: true, MaxMemory: 40_000, Workers: 1}
	one := describeTo(t, list(smallDir, filepath.Join(src, "b")), o)
	b, _ := os.ReadFile(filepath.Join(one, store.FailuresFile))
	if !strings.Contains(string(b), "1:big.png,") || !strings.Contains(string(b), "over the memory limit") {
		t.Errorf("failures.csv:\n%s", b)
	}
	o.Workers = 3
	if d := foldertest.Same(t, one, describeTo(t, list(smallDir, filepath.Join(src, "b")), o)); d != "" {
		t.Errorf("1 and 3 workers under a memory limit: %s", d)
	}
}

func TestParseMemory(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"8GiB", 8 << 30, true},
		{"8gib", 8 << 30, true},
		{"512M", 512 << 20, true},
		{"1.5GB", 1_500_000_000, true},
		{"4 GiB", 4 << 30, true},
		{"1000", 1000, true},
		{"0", 0, true},
		{"2TiB", 2 << 40, true},
		{"", 0, false},
		{"GiB", 0, false},
		{"-1GiB", 0, false},
		{"8XB", 0, false},
		{"1e3", 0, false},
		{"9999999TiB", 0, false},
	} {
		got, err := ParseMemory(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseMemory(%q) = %d, %v", tc.in, got, err)
		}
	}
	if _, err := NewExtractor(Options{MaxMemory: -1}); err == nil {
		t.Error("negative MaxMemory accepted")
	}
	if got := formatMemory(3 << 29); got != "1.5 GiB" {
		t.Errorf("formatMemory: %s", got)
	}
}
