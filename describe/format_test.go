package describe

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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

// TestBlockSeed pins BlockSeed to the values of its former hand-written
// FNV-1a (offset 14695981039346656037, prime 1099511628211, over the
// seed's 8 little-endian bytes then the path), so that block layouts, and
// the descriptor caches keyed on them, stay the same; and checks that it
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

// TestReadErrors checks that Read refuses damaged folders, naming the
// file: damaged files whose records in meta.json were updated to match
// them (resealed), so that the checks of their content are reached, and,
// as "torn", files that do not match meta.json.
func TestReadErrors(t *testing.T) {
	list := openFolders(t, writeImages(t, testImages[:3], 15))
	make := func(damage func(dir string)) string {
		dir := describeTo(t, []*datasets.List{list}, Options{Features: fset("I,x")})
		damage(dir)
		reseal(t, dir)
		return dir
	}
	torn := func(damage func(dir string)) string {
		dir := describeTo(t, []*datasets.List{list}, Options{Features: fset("I,x")})
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
		{"manifest escape", make(edit(ManifestFile, "a/1.png", `a/1\q.png`)), "malformed escape"},
		{"torn npy size", torn(func(d string) { os.Truncate(filepath.Join(d, DescriptorsFile), 64+8) }), "descriptors.npy has 72 bytes, meta.json records"},
		{"torn npy bytes", torn(edit(DescriptorsFile, "(3, 2, 2)", "(1, 2, 2)")), "SHA-256 of descriptors.npy"},
		{"torn manifest", torn(edit(ManifestFile, "a/1.png", "a/9.png")), "SHA-256 of manifest.csv"},
		{"torn missing", torn(func(d string) { os.Remove(filepath.Join(d, ManifestFile)) }), "manifest.csv is missing"},
		{"no file records", make(edit(MetaFile, `"files"`, `"files_"`)), "unknown field"},
	} {
		_, err := Read(tc.dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrOutput) {
			t.Errorf("%s: error %v, want ErrOutput containing %q", tc.name, err, tc.want)
		}
		if strings.HasPrefix(tc.name, "torn") && (!errors.Is(err, ErrTorn) || !strings.Contains(fmt.Sprint(err), "rerun covpipe describe")) {
			t.Errorf("%s: error %v, want ErrTorn saying to rerun describe", tc.name, err)
		}
	}
}

// reseal rewrites the file records of dir's meta.json (when it has one)
// to match the files in dir, as a test's deliberate damage would
// otherwise be reported as a torn output.
func reseal(t testing.TB, dir string) {
	t.Helper()
	path := filepath.Join(dir, MetaFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	files, _ := m["files"].([]any)
	for _, f := range files {
		f := f.(map[string]any)
		data, err := os.ReadFile(filepath.Join(dir, f["name"].(string)))
		if err != nil {
			continue
		}
		sum := sha256.Sum256(data)
		f["size"], f["sha256"] = len(data), hex.EncodeToString(sum[:])
	}
	if b, err = json.MarshalIndent(m, "", "  "); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b)
}
