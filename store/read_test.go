package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/foldertest"
)

// TestReadBack checks that Read gives back what Writer wrote: the meta
// with its file records, the rows (paths unescaped, inputs split off),
// the descriptors and the vectors, bit for bit.
func TestReadBack(t *testing.T) {
	for _, vecLen := range []int{0, 5} {
		r := skipRun(vecLen)
		r.fail = map[string]bool{"b/1.png": true}
		dir := r.writeTo(t)
		out, err := Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{DescriptorsFile, ManifestFile, FailuresFile}
		if vecLen > 0 {
			want = []string{DescriptorsFile, VectorsFile, ManifestFile, FailuresFile}
		}
		var names []string
		for _, f := range out.Meta.Files {
			names = append(names, f.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("vectors %d: meta.json records %v, want %v", vecLen, names, want)
		}
		if c := out.Meta.Counts; c != (Counts{Images: 10, Described: 9, Failed: 1, Descriptors: 9 * r.regions}) {
			t.Errorf("vectors %d: counts %+v", vecLen, c)
		}
		i := 0
		for k, l := range r.lists {
			for _, it := range l.Items {
				if r.fail[it.Rel] {
					continue
				}
				regions, data, vec := r.image(k, it.Rel)
				for j, reg := range regions {
					row := out.Rows[i+j]
					if row != (Row{Index: i + j, Input: k, Path: it.Rel, Label: it.Label, Region: reg}) {
						t.Fatalf("row %d: %+v, want input %d, %q, %q, %v", i+j, row, k, it.Rel, it.Label, reg)
					}
					if vecLen > 0 && !slices.Equal(out.Vectors[(i+j)*vecLen:(i+j+1)*vecLen], vec) {
						t.Fatalf("vector of row %d differs", i+j)
					}
				}
				if !slices.Equal(out.Data[i*9:(i+len(regions))*9], data) {
					t.Fatalf("descriptors of %s differ", it.Rel)
				}
				i += len(regions)
			}
		}
		if vecLen == 0 && (out.Vectors != nil || out.VectorLen != 0) || vecLen > 0 && out.VectorLen != vecLen {
			t.Errorf("vectors %d: read %d vectors of %d", vecLen, len(out.Vectors), out.VectorLen)
		}
	}
}

// TestReadErrors checks that Read refuses damaged folders, naming the
// file: damaged files whose records in meta.json were updated to match
// them (resealed), so that the checks of their content are reached, and,
// as "torn", files that do not match meta.json.
func TestReadErrors(t *testing.T) {
	r := smallRun()
	r.lists[0].Items = r.lists[0].Items[:3]
	regions, _, _ := r.image(0, "a/1.png")
	region := regions[0].String()
	sealed := func(damage func(dir string)) string {
		dir := r.writeTo(t)
		damage(dir)
		reseal(t, dir)
		return dir
	}
	torn := func(damage func(dir string)) string {
		dir := r.writeTo(t)
		damage(dir)
		return dir
	}
	edit := func(name, old, new string) func(string) {
		return func(dir string) {
			p := filepath.Join(dir, name)
			b, _ := os.ReadFile(p)
			if !strings.Contains(string(b), old) {
				t.Fatalf("%s does not hold %q", name, old)
			}
			os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
		}
	}
	for _, tc := range []struct {
		name string
		dir  string
		want string
	}{
		{"no meta", sealed(func(d string) { os.Remove(filepath.Join(d, MetaFile)) }), "no meta.json"},
		{"unknown field", sealed(edit(MetaFile, `"dim"`, `"dims"`)), "unknown field"},
		{"format", sealed(edit(MetaFile, Format, "other/1")), "format"},
		{"counts", sealed(edit(MetaFile, `"failed": 0`, `"failed": 1`)), "inconsistent counts"},
		{"vectors", sealed(edit(MetaFile, `"seed"`, `"vectors": {"feature_spec": "I", "step": 0}, "seed"`)), "want a feature spec and a step >= 1"},
		{"no manifest", sealed(func(d string) { os.Remove(filepath.Join(d, ManifestFile)) }), "manifest.csv"},
		{"manifest header", sealed(edit(ManifestFile, "index,path", "idx,path")), "header"},
		{"manifest index", sealed(edit(ManifestFile, "\n1,", "\n2,")), "index 2, want 1"},
		{"manifest region", sealed(edit(ManifestFile, region, "16x12")), "region"},
		{"manifest fields", sealed(edit(ManifestFile, region, region+",extra")), "wrong number of fields"},
		{"npy missing", sealed(func(d string) { os.Remove(filepath.Join(d, DescriptorsFile)) }), "descriptors.npy"},
		{"npy truncated", sealed(func(d string) { os.Truncate(filepath.Join(d, DescriptorsFile), int64(len(npyHeader(0, 2, 2))+8)) }), "truncated"},
		{"npy header cut", sealed(func(d string) { os.Truncate(filepath.Join(d, DescriptorsFile), 64+8) }), "header: unexpected EOF"},
		{"npy magic", sealed(edit(DescriptorsFile, "NUMPY", "NUMPX")), "not a .npy file"},
		{"npy dtype", sealed(edit(DescriptorsFile, "<f8", "<f4")), `"<f4"`},
		{"npy shape", sealed(edit(DescriptorsFile, "(3, 2, 2)", "(1, 2, 2)")), "truncated or corrupt"},
		{"npy rank", sealed(func(d string) { WriteNPY(filepath.Join(d, DescriptorsFile), []int{3, 4}, make([]float64, 12)) }), "want '<f8' of shape (n, d, d)"},
		{"manifest escape", sealed(edit(ManifestFile, "a/1.png", `a/1\q.png`)), "malformed escape"},
		{"torn npy size", torn(func(d string) { os.Truncate(filepath.Join(d, DescriptorsFile), 64+8) }), "descriptors.npy has 72 bytes, meta.json records"},
		{"torn npy bytes", torn(edit(DescriptorsFile, "(3, 2, 2)", "(1, 2, 2)")), "SHA-256 of descriptors.npy"},
		{"torn manifest", torn(edit(ManifestFile, "a/1.png", "a/9.png")), "SHA-256 of manifest.csv"},
		{"torn missing", torn(func(d string) { os.Remove(filepath.Join(d, ManifestFile)) }), "manifest.csv is missing"},
		{"no file records", sealed(edit(MetaFile, `"files"`, `"files_"`)), "unknown field"},
	} {
		_, err := Read(tc.dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v, want ErrInvalid containing %q", tc.name, err, tc.want)
		}
		if strings.HasPrefix(tc.name, "torn") && (!errors.Is(err, ErrTorn) || !strings.Contains(fmt.Sprint(err), tc.dir) || !strings.Contains(fmt.Sprint(err), "rerun covpipe describe")) {
			t.Errorf("%s: error %v, want ErrTorn naming the folder and saying to rerun describe", tc.name, err)
		}
	}
}

// TestReadVectorErrors checks that Read refuses a vectors.npy that is not
// the one meta.json records (torn), or not of one vector per descriptor.
func TestReadVectorErrors(t *testing.T) {
	r := smallRun()
	r.vecLen = 4
	tornDir := r.writeTo(t)
	b, _ := os.ReadFile(filepath.Join(tornDir, VectorsFile))
	b[len(b)-1] ^= 1
	foldertest.WriteFile(t, filepath.Join(tornDir, VectorsFile), b)
	if _, err := Read(tornDir); !errors.Is(err, ErrTorn) || !strings.Contains(err.Error(), "SHA-256 of vectors.npy") {
		t.Errorf("torn vectors: %v", err)
	}
	short := r.writeTo(t)
	other := r
	other.lists = []*datasets.List{{Root: r.lists[0].Root, Items: r.lists[0].Items[:6]}}
	foldertest.WriteFile(t, filepath.Join(short, VectorsFile), foldertest.Files(t, other.writeTo(t))[VectorsFile])
	reseal(t, short)
	if _, err := Read(short); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "6 vectors for 7 descriptors") {
		t.Errorf("6 vectors: %v", err)
	}
	missing := r.writeTo(t)
	os.Remove(filepath.Join(missing, VectorsFile))
	if _, err := ReadMeta(missing); !errors.Is(err, ErrTorn) || !strings.Contains(err.Error(), "vectors.npy is missing") {
		t.Errorf("missing vectors: %v", err)
	}
}

// TestTornOutput mixes the files of two runs into one folder, as a run
// killed between the renames of its commit leaves it, and checks that
// every reader refuses the folder as torn (ErrTorn, naming the folder and
// asking to rerun describe), and Merge refuses it as a shard.
func TestTornOutput(t *testing.T) {
	ra := smallRun()
	rb := ra
	rb.salt = 1
	rc := ra
	rc.regions = 2
	a, b, c := ra.writeTo(t), rb.writeTo(t), rc.writeTo(t)
	shards := ra.shards(t, 2)
	bShards := rb.shards(t, 2)
	mix := func(dst, src string, names ...string) {
		for _, name := range names {
			data, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				t.Fatal(err)
			}
			foldertest.WriteFile(t, filepath.Join(dst, name), data)
		}
	}
	for _, tc := range []struct {
		name  string
		from  string   // the other run
		files []string // taken from it
		meta  bool     // whether ReadMeta, which checks sizes only, sees it
	}{
		// The same shape: only the checksum tells.
		{"new descriptors, old manifest and meta", b, []string{DescriptorsFile}, false},
		{"new descriptors and meta, old manifest", c, []string{DescriptorsFile, MetaFile}, true},
		{"new manifest", shards[1], []string{ManifestFile}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			mix(dir, a, DescriptorsFile, ManifestFile, MetaFile)
			mix(dir, tc.from, tc.files...)
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrTorn) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "rerun covpipe describe") {
					t.Errorf("%s: %v, want ErrTorn naming %s and asking to rerun describe", what, err, dir)
				}
			}
			_, err := Read(dir)
			check("Read", err)
			_, err = ReadMatrices(dir)
			check("ReadMatrices", err)
			if _, err := ReadMeta(dir); tc.meta {
				check("ReadMeta", err)
			}
		})
	}
	t.Run("merge", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "shard")
		mix(dir, shards[1], DescriptorsFile, ManifestFile, MetaFile)
		mix(dir, bShards[1], DescriptorsFile)
		out := filepath.Join(t.TempDir(), "merged")
		if _, err := Merge(context.Background(), out, []string{shards[0], dir}); !errors.Is(err, ErrTorn) {
			t.Errorf("merge of a torn shard: %v", err)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("failed merge left %s", out)
		}
	})
}

// TestOlderFormat checks that a folder of format 1, without file
// records, is refused as written by an older covpipe.
func TestOlderFormat(t *testing.T) {
	dir := smallRun().writeTo(t)
	p := filepath.Join(dir, MetaFile)
	b, _ := os.ReadFile(p)
	foldertest.WriteFile(t, p, []byte(strings.Replace(string(b), Format, formatV1, 1)))
	if _, err := Read(dir); !errors.Is(err, ErrInvalid) || !strings.Contains(fmt.Sprint(err), "older covpipe") || !strings.Contains(fmt.Sprint(err), "rerun covpipe describe") {
		t.Errorf("format 1: %v", err)
	}
}
