package describe

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/covpipe/covpipe/internal/atomicfile"
)

// Matrices is a stack of n d×d matrices read by ReadMatrices.
type Matrices struct {
	// Path is the .npy file the matrices came from.
	Path string
	N, D int
	// Data holds the matrices row-major, one after another
	// (spd.NewSetFromData's layout).
	Data []float64
	// Output is the describe output the matrices belong to, with its rows
	// and meta; nil for a bare .npy file.
	Output *Output
}

// ReadMatrices reads the matrices at path: a describe output folder (its
// descriptors.npy, checked against its manifest and meta.json as Read
// does, so that a torn folder is an error wrapping ErrTorn) or a .npy file of shape (n, d, d), float64, C order. It returns an
// error naming the file for a missing or malformed file, another dtype or
// shape, and for non-finite values (naming the matrix and entry). It does
// not check that the matrices are SPD (spd.NewSetFromData does).
func ReadMatrices(path string) (*Matrices, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	m := &Matrices{Path: path}
	if st.IsDir() {
		out, err := Read(path)
		if err != nil {
			return nil, err
		}
		m.Path, m.N, m.D, m.Data, m.Output = filepath.Join(path, DescriptorsFile), len(out.Rows), out.Meta.Dim, out.Data, out
	} else {
		info, data, err := readNPY(path, nil)
		if err != nil {
			return nil, err
		}
		m.N, m.D, m.Data = info.n, info.d, data
	}
	dd := m.D * m.D
	for i, v := range m.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: %s: matrix %d: entry [%d][%d] = %v", ErrOutput, m.Path, i/dd, i%dd/m.D, i%m.D, v)
		}
	}
	return m, nil
}

// WriteNPY writes data as a little-endian float64 .npy array (format 1.0,
// C order) of the given shape, atomically: the file appears complete or
// not at all. len(data) must be the product of shape.
func WriteNPY(path string, shape []int, data []float64) error {
	size := 1
	for _, s := range shape {
		if s < 0 {
			return fmt.Errorf("write %s: negative dimension in shape %v", path, shape)
		}
		size *= s
	}
	if size != len(data) {
		return fmt.Errorf("write %s: %d values for shape %v", path, len(data), shape)
	}
	dict := []byte("{'descr': '<f8', 'fortran_order': False, 'shape': (")
	for i, s := range shape {
		if i > 0 {
			dict = append(dict, ", "...)
		}
		dict = strconv.AppendInt(dict, int64(s), 10)
	}
	if len(shape) == 1 {
		dict = append(dict, ',')
	}
	dict = append(dict, "), }"...)
	total := (npyPrefix + len(dict) + 1 + 63) / 64 * 64
	b := make([]byte, 0, total+8*len(data))
	b = append(b, npyMagic...)
	b = append(b, 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(total-npyPrefix))
	b = append(b, dict...)
	for len(b) < total-1 {
		b = append(b, ' ')
	}
	b = append(b, '\n')
	for _, v := range data {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return atomicfile.WriteFile(path, b)
}
