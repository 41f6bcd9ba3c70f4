package store

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/covpipe/covpipe/internal/foldertest"
)

// The fuzz targets of this file feed bytes to the readers of a folder
// through the exported functions ReadMatrices, Read and ReadMeta only, so
// that they survive changes of the internal format code. Their seeds are
// a folder written by Writer (built when the target starts, so it follows
// the current meta.json format) and hand-made files. Each target checks a
// property of what it accepts: a value read back is written again and
// read to the same value.

// fuzzOutput writes a small folder (two inputs, so that manifest paths
// carry their "k:" prefix) and returns it.
func fuzzOutput(f *testing.F) string {
	f.Helper()
	r := testRun()
	r.lists[0].Items = r.lists[0].Items[:3]
	r.lists[1].Items = r.lists[1].Items[:2]
	r.dim, r.regions = 2, 1
	return r.writeTo(f)
}

// fuzzFile writes the folder of fuzzOutput and adds its file name and the
// seeds to f's corpus. It returns the folder and the file's bytes.
func fuzzFile(f *testing.F, name string, seeds ...string) (out string, b []byte) {
	f.Helper()
	out = fuzzOutput(f)
	b, err := os.ReadFile(filepath.Join(out, name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	return out, b
}

// copyOutput copies the files of the output folder src into a new
// temporary folder and returns it.
func copyOutput(f *testing.F, src string) string {
	f.Helper()
	dir := f.TempDir()
	for n, b := range foldertest.Files(f, src) {
		foldertest.WriteFile(f, filepath.Join(dir, n), b)
	}
	return dir
}

// The fuzz functions below reuse folders made once per process (inputs
// run one at a time in a process): a new temporary folder per input
// makes fuzzing, and the minimisation of an input, many times slower.

// FuzzReadMatrices feeds arbitrary bytes to ReadMatrices as a .npy file.
// What it accepts is a stack of n finite d×d matrices whose values are
// the file's last 8·n·d·d bytes, and it reads back, bit for bit, what
// WriteNPY writes of them.
func FuzzReadMatrices(f *testing.F) {
	fuzzFile(f, DescriptorsFile)
	seed := filepath.Join(f.TempDir(), "seed.npy")
	for _, s := range []struct {
		shape []int
		data  []float64
	}{
		{[]int{2, 2, 2}, []float64{2, 1, 1, 3, 4, 0, 0, 5}},
		{[]int{0, 3, 3}, nil},
		{[]int{1, 1, 1}, []float64{math.SmallestNonzeroFloat64}},
		{[]int{2, 3}, []float64{1, 2, 3, 4, 5, 6}}, // not (n, d, d)
	} {
		if err := WriteNPY(seed, s.shape, s.data); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(seed)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(append(npyHeader(1, 1, 1), 0, 0, 0, 0, 0, 0, 0xf8, 0x7f)) // NaN
	f.Add([]byte("\x93NUMPY\x01\x00\x10\x00{'shape': ()}  \n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "x.npy")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadMatrices(path)
		if err != nil {
			return
		}
		if m.N < 0 || m.D < 1 || len(m.Data) != m.N*m.D*m.D || m.Output != nil {
			t.Fatalf("accepted as n = %d, d = %d with %d values", m.N, m.D, len(m.Data))
		}
		tail := b[len(b)-8*len(m.Data):]
		for i, v := range m.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted a non-finite value %v at %d", v, i)
			}
			bits := uint64(0)
			for k := range 8 {
				bits |= uint64(tail[8*i+k]) << (8 * k)
			}
			if math.Float64bits(v) != bits {
				t.Fatalf("value %d = %v, the file holds %v", i, v, math.Float64frombits(bits))
			}
		}
		again := filepath.Join(dir, "again.npy")
		if err := WriteNPY(again, []int{m.N, m.D, m.D}, m.Data); err != nil {
			t.Fatalf("WriteNPY of what ReadMatrices accepted: %v", err)
		}
		m2, err := ReadMatrices(again)
		if err != nil {
			t.Fatalf("ReadMatrices of what WriteNPY wrote: %v", err)
		}
		if m2.N != m.N || m2.D != m.D || len(m2.Data) != len(m.Data) {
			t.Fatalf("round trip: (%d, %d) became (%d, %d)", m.N, m.D, m2.N, m2.D)
		}
		for i := range m.Data {
			if math.Float64bits(m.Data[i]) != math.Float64bits(m2.Data[i]) {
				t.Fatalf("round trip: value %d = %v became %v", i, m.Data[i], m2.Data[i])
			}
		}
	})
}

// encodeManifest writes rows as manifest.csv with encoding/csv, an
// encoder independent of the package's: input numbers as "k:" prefixes
// when there are several inputs, paths and labels escaped (escape),
// regions in their string form.
func encodeManifest(t *testing.T, rows []Row, inputs int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"index", "path", "label", "region"})
	for _, r := range rows {
		p := escape(r.Path)
		if inputs > 1 {
			p = strconv.Itoa(r.Input) + ":" + p
		}
		w.Write([]string{strconv.Itoa(r.Index), p, escape(r.Label), r.Region.String()})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// escape returns s as the format escapes manifest fields, \\ for a
// backslash and \xNN for a byte that is not valid UTF-8, written
// independently of appendEscaped: rune by rune, with fmt.
func escape(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FuzzReadManifest feeds arbitrary bytes to Read as the manifest.csv of a
// real output folder, resealed (meta.json's record of the file updated,
// as a complete run would write it) so that the parser, not the torn-set
// check, meets the bytes. What it accepts has one row per descriptor, indexed
// 0, 1, ... with input numbers in range, and reads back to the same rows
// when written again by encoding/csv.
func FuzzReadManifest(f *testing.F) {
	out, _ := fuzzFile(f, ManifestFile, "index,path,label,region\n",
		"index,path,label,region\n0,\"0:a,\"\"b\"\"\",\" x\",1x1+0+0\n",
		"index,path,label,region\r\n0,1:b/1.png,b,16x16+0+0\r\n")
	dir, again := copyOutput(f, out), copyOutput(f, out)
	f.Fuzz(func(t *testing.T, b []byte) {
		foldertest.WriteFile(t, filepath.Join(dir, ManifestFile), b)
		reseal(t, dir)
		o, err := Read(dir)
		if err != nil {
			return
		}
		if len(o.Rows) != o.Meta.Counts.Descriptors || len(o.Data) != len(o.Rows)*o.Meta.Dim*o.Meta.Dim {
			t.Fatalf("accepted %d rows and %d values for %d descriptors of size %d", len(o.Rows), len(o.Data), o.Meta.Counts.Descriptors, o.Meta.Dim)
		}
		for i, r := range o.Rows {
			if r.Index != i || r.Input < 0 || r.Input >= len(o.Meta.Inputs) {
				t.Fatalf("row %d accepted as %+v with %d inputs", i, r, len(o.Meta.Inputs))
			}
		}
		foldertest.WriteFile(t, filepath.Join(again, ManifestFile), encodeManifest(t, o.Rows, len(o.Meta.Inputs)))
		reseal(t, again)
		o2, err := Read(again)
		if err != nil {
			t.Fatalf("Read of the accepted rows written again: %v", err)
		}
		if !reflect.DeepEqual(o.Rows, o2.Rows) {
			t.Fatalf("round trip: rows %+v became %+v", o.Rows, o2.Rows)
		}
	})
}

// FuzzReadMeta feeds arbitrary bytes to ReadMeta as the meta.json of a
// real output folder (whose other files its seeds record). What it
// accepts satisfies the documented invariants (d >= 1 features, at least
// one input, consistent counts) and reads back to the same Meta when
// encoded again with encoding/json.
func FuzzReadMeta(f *testing.F) {
	out, meta := fuzzFile(f, MetaFile, "{}", "null", `{"format": 1}`)
	f.Add(bytes.Replace(meta, []byte(`"dim"`), []byte(`"DIM"`), 1))
	dir, again := copyOutput(f, out), copyOutput(f, out)
	f.Fuzz(func(t *testing.T, b []byte) {
		foldertest.WriteFile(t, filepath.Join(dir, MetaFile), b)
		m, err := ReadMeta(dir)
		if err != nil {
			return
		}
		c := m.Counts
		if m.Dim < 1 || len(m.Features) != m.Dim || len(m.Inputs) == 0 ||
			c.Images < 0 || c.Described < 0 || c.Failed < 0 || c.Descriptors < 0 || c.Described+c.Failed != c.Images {
			t.Fatalf("accepted %+v", m)
		}
		enc, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatalf("encoding what ReadMeta accepted: %v", err)
		}
		foldertest.WriteFile(t, filepath.Join(again, MetaFile), enc)
		m2, err := ReadMeta(again)
		if err != nil {
			t.Fatalf("ReadMeta of %s, the accepted meta encoded again: %v", enc, err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip: %+v became %+v", m, m2)
		}
	})
}
