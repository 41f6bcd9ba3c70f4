package store

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Matrices is a stack of n d×d matrices read by ReadMatrices.
type Matrices struct {
	// Path is the .npy file the matrices came from.
	Path string
	N, D int
	// Data holds the matrices row-major, one after another
	// (spd.NewSetFromData's layout).
	Data []float64
	// Output is the descriptor folder the matrices belong to, with its
	// rows and meta; nil for a bare .npy file.
	Output *Output
}

// ReadMatrices reads the matrices at path: a descriptor folder (its
// descriptors.npy, checked against its manifest and meta.json as Read
// does, so that a torn folder is an error wrapping ErrTorn) or a .npy
// file of shape (n, d, d), float64, C order. It returns an error naming
// the file for a missing or malformed file, another dtype or shape, and
// for non-finite values (naming the matrix and entry), wrapping
// ErrInvalid. It does not check that the matrices are SPD
// (spd.NewSetFromData does).
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
		info, data, err := readNPY(path, matrixShape, nil)
		if err != nil {
			return nil, err
		}
		m.N, m.D, m.Data = info.shape[0], info.shape[1], data
	}
	dd := m.D * m.D
	for i, v := range m.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: %s: matrix %d: entry [%d][%d] = %v", ErrInvalid, m.Path, i/dd, i%dd/m.D, i%m.D, v)
		}
	}
	return m, nil
}
