package describe

import (
	"encoding/binary"
	"encoding/csv"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
)

// TestAppendField checks that encoding/csv reads the fields back, and
// which fields are quoted.
func TestAppendField(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", ""},
		{"a/b.png", "a/b.png"},
		{"c,1/x.png", `"c,1/x.png"`},
		{`say "hi"`, `"say ""hi"""`},
		{" lead", `" lead"`},
		{"trail\t", "\"trail\t\""},
		{"in side", "in side"},
		{"two\nlines", "\"two\nlines\""},
		{"ünïcode", "ünïcode"},
	} {
		got := string(appendField(nil, tc.in))
		if got != tc.want {
			t.Errorf("appendField(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if tc.in == "" {
			continue
		}
		rec, err := csv.NewReader(strings.NewReader(got + "," + got + "\n")).Read()
		if err != nil || len(rec) != 2 || rec[0] != tc.in || rec[1] != tc.in {
			t.Errorf("csv reads %q back as %q, %v", got, rec, err)
		}
	}
}

func FuzzAppendField(f *testing.F) {
	for _, s := range []string{"a", "a,b", `"`, " x ", "\r", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || strings.ContainsRune(s, '\r') {
			return // encoding/csv drops empty records and \r before \n
		}
		line := string(appendField(nil, s)) + ",x\n"
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil || len(rec) != 2 || rec[0] != s {
			t.Fatalf("%q written as %q, read back as %q, %v", s, line, rec, err)
		}
	})
}

func TestAppendRegion(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100 {
		r := covariance.Region{X: rng.IntN(1 << 20), Y: rng.IntN(100), W: 1 + rng.IntN(1000), H: 1 + rng.IntN(1<<30)}
		if got := string(appendRegion(nil, r)); got != r.String() {
			t.Fatalf("appendRegion(%v) = %q", r, got)
		}
	}
}

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		k, inputs int
		rel, path string
	}{
		{0, 1, "a/b.png", "a/b.png"},
		{0, 1, "3:x.png", "3:x.png"},
		{0, 2, "a/b.png", "0:a/b.png"},
		{11, 12, "/abs/x:y.png", "11:/abs/x:y.png"},
	} {
		p := string(appendPath(nil, tc.k, tc.inputs, tc.rel))
		if p != tc.path {
			t.Errorf("appendPath(%d, %d, %q) = %q, want %q", tc.k, tc.inputs, tc.rel, p, tc.path)
		}
		k, rel, err := splitPath(p, tc.inputs)
		if err != nil || k != tc.k || rel != tc.rel {
			t.Errorf("splitPath(%q, %d) = %d, %q, %v", p, tc.inputs, k, rel, err)
		}
	}
	for _, p := range []string{"a.png", "2:a.png", "-1:a.png", "01:a.png", ":a.png"} {
		if _, _, err := splitPath(p, 2); err == nil {
			t.Errorf("splitPath(%q, 2) accepted", p)
		}
	}
}

// TestBlockSeed checks BlockSeed against hash/fnv's FNV-1a of the seed's
// little-endian bytes and the path.
func TestBlockSeed(t *testing.T) {
	seen := make(map[uint64]bool)
	for _, s := range []uint64{0, 1, 1 << 56, 0xdeadbeefcafe} {
		for _, rel := range []string{"", "a", "b", "a/b.png", "ünï/x.jpg"} {
			h := fnv.New64a()
			h.Write(binary.LittleEndian.AppendUint64(nil, s))
			h.Write([]byte(rel))
			got := BlockSeed(s, rel)
			if got != h.Sum64() {
				t.Errorf("BlockSeed(%d, %q) = %#x, want %#x", s, rel, got, h.Sum64())
			}
			if seen[got] {
				t.Errorf("BlockSeed(%d, %q) repeats %#x", s, rel, got)
			}
			seen[got] = true
		}
	}
}

// TestReadErrors checks that Read refuses damaged folders, naming the
// file.
func TestReadErrors(t *testing.T) {
	list := openFolders(t, writeImages(t, testImages[:3], 15))
	make := func(damage func(dir string)) string {
		dir := describeTo(t, []*datasets.List{list}, Options{Features: "I,x"})
		damage(dir)
		return dir
	}
	edit := func(name, old, new string) func(string) {
		return func(dir string) {
			p := filepath.Join(dir, name)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
		}
	}
	for _, tc := range []struct {
		name string
		dir  string
		want string
	}{
		{"no meta", make(func(d string) { os.Remove(filepath.Join(d, MetaFile)) }), "no meta.json"},
		{"unknown field", make(edit(MetaFile, `"dim"`, `"dims"`)), "unknown field"},
		{"format", make(edit(MetaFile, Format, "other/1")), "format"},
		{"counts", make(edit(MetaFile, `"failed": 0`, `"failed": 1`)), "inconsistent counts"},
		{"no manifest", make(func(d string) { os.Remove(filepath.Join(d, ManifestFile)) }), "manifest.csv"},
		{"manifest header", make(edit(ManifestFile, "index,path", "idx,path")), "header"},
		{"manifest index", make(edit(ManifestFile, "\n1,", "\n2,")), "index 2, want 1"},
		{"manifest region", make(edit(ManifestFile, "16x12+0+0", "16x12")), "region"},
		{"manifest fields", make(edit(ManifestFile, "16x12+0+0", "16x12+0+0,extra")), "wrong number of fields"},
		{"npy missing", make(func(d string) { os.Remove(filepath.Join(d, DescriptorsFile)) }), "descriptors.npy"},
		{"npy truncated", make(func(d string) { os.Truncate(filepath.Join(d, DescriptorsFile), int64(len(npyHeader(0, 2))+8)) }), "truncated"},
		{"npy header cut", make(func(d string) { os.Truncate(filepath.Join(d, DescriptorsFile), 64+8) }), "header: unexpected EOF"},
		{"npy magic", make(edit(DescriptorsFile, "NUMPY", "NUMPX")), "not a .npy file"},
		{"npy dtype", make(edit(DescriptorsFile, "<f8", "<f4")), `"<f4"`},
		{"npy shape", make(edit(DescriptorsFile, "(3, 2, 2)", "(1, 2, 2)")), "truncated or corrupt"},
	} {
		_, err := Read(tc.dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrOutput) {
			t.Errorf("%s: error %v, want ErrOutput containing %q", tc.name, err, tc.want)
		}
	}
}
