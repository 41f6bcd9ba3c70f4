package store

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Rows reads the vectors of a folder's vectors.npy by index
// (OpenVectors), from the file that was checked. It is safe for
// concurrent use.
type Rows struct {
	f      *os.File
	offset int64 // of vector 0
	n, m   int
}

// Dims returns the number of vectors and their length.
func (r *Rows) Dims() (n, m int) { return r.n, r.m }

// ReadRows writes vectors idx[0], idx[1], ... (m values each) into dst,
// one after another. It returns an error for an index out of range, a
// dst of another length and the file's read errors.
func (r *Rows) ReadRows(idx []int, dst []float64) error {
	if len(dst) != len(idx)*r.m {
		return fmt.Errorf("store: %d values for %d vectors of %d", len(dst), len(idx), r.m)
	}
	buf := make([]byte, 8*r.m)
	for k, i := range idx {
		if i < 0 || i >= r.n {
			return fmt.Errorf("store: vector %d out of range [0, %d)", i, r.n)
		}
		if _, err := r.f.ReadAt(buf, r.offset+int64(i)*int64(len(buf))); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		v := dst[k*r.m : (k+1)*r.m]
		for j := range v {
			v[j] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*j:]))
		}
	}
	return nil
}

// Close closes r's file.
func (r *Rows) Close() error { return r.f.Close() }

// OpenVectors reads the descriptor folder dir, whose meta.json must
// record vectors, as Read does, but gives its vectors to each one at a
// time (i, then the vector's values, in a buffer that the next call
// reuses) rather than holding them, and keeps vectors.npy open once it
// has read it whole and checked its SHA-256, so that the Rows it returns
// read vectors again, by index, from the file that was checked, whatever
// becomes of the folder (a writer replaces files, never rewrites them).
// The Output has the descriptors and VectorLen but no Vectors. When it
// returns an error wrapping ErrTorn, each has seen values that are not
// the folder's. The caller closes the Rows.
func OpenVectors(dir string, each func(i int, v []float64) error) (*Output, *Rows, error) {
	var out *Output
	vr := &vectorRead{each: each}
	err := readView(dir, func(v *view) error {
		vr.close()
		var err error
		out, _, err = readOutput(v, nil, nil, vr)
		if err == nil && vr.rows == nil {
			err = fmt.Errorf("%w: %s holds no vectors", ErrInvalid, filepath.Join(dir, MetaFile))
		}
		return err
	})
	if err != nil {
		vr.close()
		return nil, nil, err
	}
	return out, vr.rows, nil
}

// vectorRead is OpenVectors' reading of vectors.npy.
type vectorRead struct {
	each func(i int, v []float64) error
	rows *Rows
}

// read reads the vectors of the file path, one per row of out, to
// vr.each, checked by check, and keeps the file in vr.rows.
func (vr *vectorRead) read(path string, out *Output, check func(*digest) error) error {
	i := 0
	info, f, err := openNPYEach(path, rowShape, check, func(info npyInfo) ([]float64, error) {
		if info.shape[0] != len(out.Rows) {
			return nil, fmt.Errorf("%w: %s: %d vectors for %d descriptors", ErrInvalid, path, info.shape[0], len(out.Rows))
		}
		return make([]float64, max(1, info.shape[1])), nil
	}, func(v []float64) error {
		err := vr.each(i, v)
		i++
		return err
	})
	if err != nil {
		return err
	}
	out.VectorLen = info.shape[1]
	vr.rows = &Rows{f: f, offset: info.offset, n: info.shape[0], m: info.shape[1]}
	return nil
}

// close closes the file of an earlier read, if any.
func (vr *vectorRead) close() {
	if vr.rows != nil {
		vr.rows.Close()
		vr.rows = nil
	}
}
