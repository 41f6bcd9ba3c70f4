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
// file of shape (n, d, d), float64, C order, checked against its record
// when its folder is an output set that records it (as ReadFile does).
// It returns an error naming the file for a missing or malformed file,
// another dtype or shape, and for non-finite values (naming the matrix
// and entry), wrapping ErrInvalid. It does not check that the matrices
// are SPD (spd.NewSetFromData does).
func ReadMatrices(path string) (*Matrices, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		out, err := Read(path)
		if err != nil {
			return nil, err
		}
		return matrices(&Matrices{Path: filepath.Join(path, DescriptorsFile), N: len(out.Rows), D: out.Meta.Dim, Data: out.Data, Output: out})
	}
	var m *Matrices
	err = readView(filepath.Dir(path), func(v *view) error {
		s, ok := v.setOf(filepath.Base(path))
		var err error
		if !ok {
			m, err = readMatrices(path, path, nil)
			return err
		}
		m, err = s.ReadMatrices(filepath.Base(path))
		return err
	})
	return m, err
}

// ReadMatrices reads the .npy file name of the set as ReadMatrices reads
// a .npy file, checked against its record: a file that is not the one
// recorded is an error wrapping ErrTorn.
func (s *Set) ReadMatrices(name string) (*Matrices, error) {
	if err := s.needFile(name); err != nil {
		return nil, err
	}
	m, err := readMatrices(filepath.Join(s.Dir, name), s.rec.path(name), func(d *digest) error { return s.rec.check(name, d) })
	if err != nil {
		return nil, s.rec.tornOr(name, err)
	}
	return m, nil
}

// ReadNPY reads the .npy file name of the set as ReadNPY reads a .npy
// file, checked against its record: a file that is not the one recorded
// is an error wrapping ErrTorn.
func (s *Set) ReadNPY(name string) (shape []int, data []float64, err error) {
	if err := s.needFile(name); err != nil {
		return nil, nil, err
	}
	info, data, err := readNPY(s.rec.path(name), anyShape, func(d *digest) error { return s.rec.check(name, d) })
	if err != nil {
		return nil, nil, s.rec.tornOr(name, err)
	}
	return info.shape, data, nil
}

// readMatrices reads the .npy file at from, whose path is path, as
// ReadMatrices does, checking its digest with check when not nil.
func readMatrices(path, from string, check func(*digest) error) (*Matrices, error) {
	info, data, err := readNPY(from, matrixShape, check)
	if err != nil {
		return nil, err
	}
	return matrices(&Matrices{Path: path, N: info.shape[0], D: info.shape[1], Data: data})
}

// matrices returns m once its values are checked finite.
func matrices(m *Matrices) (*Matrices, error) {
	dd := m.D * m.D
	for i, v := range m.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: %s: matrix %d: entry [%d][%d] = %v", ErrInvalid, m.Path, i/dd, i%dd/m.D, i%m.D, v)
		}
	}
	return m, nil
}
