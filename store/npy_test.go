package store

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/sbinet/npyio"
)

// TestNPYHeader checks the header against the .npy format 1.0
// specification: magic, version, length field, dictionary, padding to a
// multiple of 64 ending in '\n', the same length for every n; and that
// npyio parses it.
func TestNPYHeader(t *testing.T) {
	for _, d := range []int{1, 5, 17, 43, 100, 1000} {
		size := -1
		for _, n := range []int{0, 1, 9, 10, 5572, 1 << 40, 999999999999999999} {
			h := npyHeader(n, d, d)
			if size < 0 {
				size = len(h)
			}
			if len(h) != size || len(h)%64 != 0 {
				t.Errorf("n %d d %d: header of %d bytes, want %d, a multiple of 64", n, d, len(h), size)
			}
			if !bytes.HasPrefix(h, []byte("\x93NUMPY\x01\x00")) || h[len(h)-1] != '\n' {
				t.Errorf("n %d d %d: bad magic, version or end: %q", n, d, h)
			}
			if got := int(binary.LittleEndian.Uint16(h[8:])); got != len(h)-10 {
				t.Errorf("n %d d %d: length field %d, want %d", n, d, got, len(h)-10)
			}
			dict := strings.TrimRight(string(h[10:len(h)-1]), " ")
			want := "{'descr': '<f8', 'fortran_order': False, 'shape': (" + strconv.Itoa(n) + ", " + strconv.Itoa(d) + ", " + strconv.Itoa(d) + "), }"
			if dict != want {
				t.Errorf("dict %q, want %q", dict, want)
			}
			r, err := npyio.NewReader(bytes.NewReader(h))
			if err != nil {
				t.Fatalf("npyio: %v", err)
			}
			if !slices.Equal(r.Header.Descr.Shape, []int{n, d, d}) || r.Header.Descr.Type != "<f8" || r.Header.Descr.Fortran || r.Header.Major != 1 {
				t.Errorf("npyio reads %v", r.Header)
			}
		}
	}
}

// TestNPYHeaderNumPy compares the header with the bytes numpy.save
// (NumPy 1.24) writes for an array of shape (3, 17, 17) of float64.
func TestNPYHeaderNumPy(t *testing.T) {
	const numpy = "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3, 17, 17), }" +
		"                                                     \n"
	if got := string(npyHeader(3, 17, 17)); got != numpy {
		t.Errorf("header\n%q, numpy.save writes\n%q", got, numpy)
	}
}

// TestNPYFile checks a written descriptors file: the data starts right
// after the header, at a multiple of 64, and fills the file.
func TestNPYFile(t *testing.T) {
	r := smallRun()
	r.dim = 3
	out := r.writeTo(t)
	b, err := os.ReadFile(filepath.Join(out, DescriptorsFile))
	if err != nil {
		t.Fatal(err)
	}
	offset := 10 + int(binary.LittleEndian.Uint16(b[8:]))
	if offset%64 != 0 || offset != len(npyHeader(0, 3, 3)) || len(b) != offset+7*9*8 {
		t.Fatalf("data offset %d, file size %d, want a multiple of 64 and %d bytes", offset, len(b), offset+7*9*8)
	}
	got, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got.Data {
		if w := binary.LittleEndian.Uint64(b[offset+8*i:]); w != math.Float64bits(v) {
			t.Fatalf("value %d at the wrong offset", i)
		}
	}
}

// TestNPYWriter streams arrays of 2 and 3 dimensions and checks them with
// npyio, an independent reader, and ReadNPY: the shape with the final n,
// the header's length that of n = 0, and the values in order.
func TestNPYWriter(t *testing.T) {
	for _, dims := range [][]int{{3}, {2, 2}, {1, 5}, {0}} {
		path := filepath.Join(t.TempDir(), "a.npy")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewNPYWriter(f, dims...)
		if err != nil {
			t.Fatal(err)
		}
		item := 1
		for _, d := range dims {
			item *= d
		}
		var all []float64
		for k := range 4 {
			v := make([]float64, k*item)
			for i := range v {
				v[i] = float64(len(all)+i) + 0.5
			}
			all = append(all, v...)
			if err := w.Append(v); err != nil {
				t.Fatal(err)
			}
		}
		if item > 1 {
			if err := w.Append(make([]float64, item+1)); err == nil {
				t.Errorf("%v: a partial entry appended", dims)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		want := append([]int{w.Len()}, dims...)
		if item > 0 && w.Len() != 6 {
			t.Errorf("%v: Len %d, want 6", dims, w.Len())
		}
		shape, data, err := ReadNPY(path)
		if err != nil || !slices.Equal(shape, want) || !slices.Equal(data, all) {
			t.Errorf("%v: ReadNPY gives %v, %v, %v; want %v, %v", dims, shape, data, err, want, all)
		}
		if shape, got := foldertest.ReadNPY(t, path); !slices.Equal(shape, want) || !slices.Equal(got, all) {
			t.Errorf("%v: npyio reads shape %v, values %v", dims, shape, got)
		}
		b, _ := os.ReadFile(path)
		if off := 10 + int(binary.LittleEndian.Uint16(b[8:])); off != len(npyHeader(0, dims...)) {
			t.Errorf("%v: header of %d bytes, want that of n = 0, %d", dims, off, len(npyHeader(0, dims...)))
		}
	}
	if _, err := NewNPYWriter(nil, 2, -1); err == nil {
		t.Error("negative dimension accepted")
	}
}

// FuzzNPYHeader checks that malformed headers give errors, not panics
// (npyio's parser panics on some), and that valid ones parse.
func FuzzNPYHeader(f *testing.F) {
	f.Add(npyHeader(3, 5, 5)[10:])
	f.Add([]byte("{'descr': '<f8', 'shape': (1,), 'fortran_order': False, }\n"))
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, dict []byte) {
		hdr := append([]byte(npyMagic+"\x01\x00"), byte(len(dict)), byte(len(dict)>>8))
		hdr = append(hdr, dict...)
		path := filepath.Join(t.TempDir(), "x.npy")
		if err := os.WriteFile(path, hdr, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		info, err := readNPYHeader(f, anyShape)
		if err != nil {
			return
		}
		values := 1
		for _, s := range info.shape {
			values *= s
		}
		if values != 0 || len(info.shape) == 0 {
			t.Fatalf("%q: accepted as %+v with no data", dict, info)
		}
	})
}

// TestReadNPYChunks reads arrays whose values end before, at and after
// the boundaries of readNPY's chunks and checks every value's bits
// against those of the file, NaN payloads and −0 included, and the
// digest's check against the file's SHA-256.
func TestReadNPYChunks(t *testing.T) {
	per := npyReadChunk / 8
	for _, n := range []int{0, 1, per - 1, per, per + 1, 2*per + 3} {
		data := make([]float64, n)
		for i := range data {
			data[i] = math.Float64frombits(uint64(i)*0x9e3779b97f4a7c15 + 1)
		}
		if n > 2 {
			data[0], data[1] = math.Copysign(0, -1), math.Float64frombits(0x7ff8000000000123)
		}
		path := filepath.Join(t.TempDir(), "a.npy")
		if err := WriteNPY(path, []int{n}, data); err != nil {
			t.Fatal(err)
		}
		want, err := fileDigest(path, "a.npy")
		if err != nil {
			t.Fatal(err)
		}
		info, got, err := readNPY(path, anyShape, func(d *digest) error {
			if f := d.file("a.npy"); f != want {
				t.Errorf("n = %d: digest %+v, want %+v", n, f, want)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("n = %d: %v", n, err)
		}
		if !slices.Equal(info.shape, []int{n}) || len(got) != n {
			t.Fatalf("n = %d: shape %v, %d values", n, info.shape, len(got))
		}
		for i, v := range got {
			if math.Float64bits(v) != math.Float64bits(data[i]) {
				t.Fatalf("n = %d: value %d is %x, want %x", n, i, math.Float64bits(v), math.Float64bits(data[i]))
			}
		}
	}
}
