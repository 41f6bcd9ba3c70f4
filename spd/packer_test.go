package spd

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// packerInput returns groups groups of k d×d matrices, row-major, one
// after another, made so that the positions' Sets relate in every way
// that Packer's sharing meets: position 2 is position 0 in every group,
// position 3 is position 1 in group 0 only, position 4 is position 1 up
// to its last group and position 5 is position 4 from group 1 on and
// position 1 in group 0 (so that 4 and 5 part from their first match
// but 5 is 4 whole). The lower triangles carry rounding-size asymmetry,
// which NewSetFromData averages away.
func packerInput(t *testing.T, groups, d int) (data []float64, k int) {
	t.Helper()
	k = 6
	s := randomSet(t, groups*k, d, 3)
	dd := d * d
	data = append([]float64(nil), s.Data()...)
	for i := 0; i < len(data); i += 7 {
		if row, col := i%dd/d, i%d; row > col {
			data[i] *= 1 + 1e-15
		}
	}
	at := func(g, r int) []float64 { return data[(g*k+r)*dd : (g*k+r+1)*dd] }
	for g := range groups {
		copy(at(g, 2), at(g, 0))
		if g == 0 {
			copy(at(g, 3), at(g, 1))
		}
		if g < groups-1 {
			copy(at(g, 4), at(g, 1))
		}
		copy(at(g, 5), at(g, 4))
	}
	return data, k
}

// TestPackerIsPackOfRegroup checks a Packer against the independent path
// it replaces: Pack of each Set that Regroup gives of NewSetFromData's
// Set of the same matrices, every matrix and log-determinant bit for bit,
// with the Sets of positions whose matrices are all the same shared, and
// only those.
func TestPackerIsPackOfRegroup(t *testing.T) {
	const groups, d = 5, 4
	data, k := packerInput(t, groups, d)
	t.Run("packed", func(t *testing.T) { checkPacker(t, data, groups, d, k, nil) })
	src := &sliceSource{data: data, d: d}
	t.Run("from a source", func(t *testing.T) { checkPacker(t, data, groups, d, k, src) })
	if src.reads == 0 {
		t.Error("the source was never read")
	}
	// A source that no longer gives the matrices packed: unpacking a
	// Set panics rather than give other values.
	p, err := NewPacker(d, groups*k, k, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	for i := range groups * k {
		if err := p.Add(append([]float64(nil), data[i*d*d:(i+1)*d*d]...)); err != nil {
			t.Fatal(err)
		}
	}
	sets, err := p.Sets()
	if err != nil {
		t.Fatal(err)
	}
	changed := &sliceSource{data: append([]float64(nil), data...), d: d}
	changed.data[(3*k+1)*d*d] *= 1 + 1e-12 // matrix 1 of group 3
	sets[1].packed.src = changed
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "is not the one packed") {
			t.Errorf("unpacking from a changed source: %v, want a panic saying so", r)
		}
	}()
	sets[1].Data()
}

// sliceSource is a MatrixSource of matrices held in data.
type sliceSource struct {
	data  []float64
	d     int
	reads int
}

func (s *sliceSource) ReadMatrices(idx []int, dst []float64) error {
	dd := s.d * s.d
	for k, i := range idx {
		copy(dst[k*dd:(k+1)*dd], s.data[i*dd:(i+1)*dd])
	}
	s.reads++
	return nil
}

// checkPacker checks a Packer of data, with src, against Pack of
// Regroup of NewSetFromData.
func checkPacker(t *testing.T, data []float64, groups, d, k int, src MatrixSource) {
	dense, err := NewSetFromData(d, append([]float64(nil), data...))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Regroup(dense, k)
	if err != nil {
		t.Fatal(err)
	}
	var r Residency
	p, err := NewPacker(d, groups*k, k, &r, src)
	if err != nil {
		t.Fatal(err)
	}
	for i := range groups * k {
		if err := p.Add(append([]float64(nil), data[i*d*d:(i+1)*d*d]...)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := p.Sets()
	if err != nil {
		t.Fatal(err)
	}
	// Sharing: 2 is 0's, 5 is 4's; nothing else.
	share := []int{0, 1, 0, 3, 4, 4}
	for a := range k {
		for b := range k {
			if (got[a] == got[b]) != (share[a] == share[b]) {
				t.Errorf("positions %d and %d: one Set %v, want %v", a, b, got[a] == got[b], share[a] == share[b])
			}
		}
	}
	for pos, s := range got {
		if !s.Packed() || s.Len() != groups || s.Dim() != d {
			t.Fatalf("position %d: packed %v, %d matrices of %d", pos, s.Packed(), s.Len(), s.Dim())
		}
		w, err := Pack(want[pos], nil)
		if err != nil {
			t.Fatal(err)
		}
		if !Equal(s, w) || !Equal(s, want[pos]) {
			t.Errorf("position %d: matrices differ from Pack(Regroup)'s", pos)
		}
		for g := range groups {
			if math.Float64bits(s.LogDet(g)) != math.Float64bits(want[pos].LogDet(g)) {
				t.Errorf("position %d, group %d: log det %v, want %v", pos, g, s.LogDet(g), want[pos].LogDet(g))
			}
			for q := range k {
				if SameMatrix(s, g, got[q], g) != slices.Equal(want[pos].View(g).RawSymmetric().Data, want[q].View(g).RawSymmetric().Data) {
					t.Errorf("SameMatrix of positions %d and %d, group %d differs from slices.Equal", pos, q, g)
				}
			}
		}
		if !sameBits(s.Data(), want[pos].Data()) {
			t.Errorf("position %d: unpacked data differs", pos)
		}
	}
	if !SameMatrix(got[0], 1, want[0], 1) || SameMatrix(got[0], 1, want[1], 1) {
		t.Error("SameMatrix of a packed and a dense Set")
	}
	for i, h := range p.Hashes() {
		if h != MatrixHash(want[i%k].View(i/k).RawSymmetric().Data) {
			t.Fatalf("hash of matrix %d differs from that of the dense one", i)
		}
	}
}

// TestPackerErrors checks that a Packer refuses what NewSetFromData and
// Regroup refuse, naming the same matrix: an asymmetric or non-finite
// matrix at once, and a matrix that is not positive definite at Sets,
// after a later asymmetric one would have been named first.
func TestPackerErrors(t *testing.T) {
	const groups, d = 3, 3
	data, k := packerInput(t, groups, d)
	if _, err := NewPacker(d, 7, 3, nil, nil); !errors.Is(err, ErrDimension) {
		t.Errorf("7 matrices in groups of 3: %v", err)
	}
	for _, tc := range []struct {
		name  string
		spoil func(m []float64) []float64
		at    int
		want  error
	}{
		{"NaN", func(m []float64) []float64 { m[4] = math.NaN(); return m }, 7, ErrNotFinite},
		{"asymmetric", func(m []float64) []float64 { m[1] += 1; return m }, 8, ErrNotSymmetric},
		{"not positive definite", func(m []float64) []float64 { m[0] = -1; return m }, 4, ErrNotSPD},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), data...)
			tc.spoil(in[tc.at*d*d : (tc.at+1)*d*d])
			_, want := NewSetFromData(d, append([]float64(nil), in...))
			p, err := NewPacker(d, groups*k, k, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range groups * k {
				if err = p.Add(in[i*d*d : (i+1)*d*d]); err != nil {
					break
				}
			}
			if err == nil {
				_, err = p.Sets()
			}
			if !errors.Is(err, tc.want) || want == nil || err.Error() != want.Error() || !strings.Contains(err.Error(), fmt.Sprintf("matrix %d", tc.at)) {
				t.Errorf("%v, want NewSetFromData's %v", err, want)
			}
		})
	}
}
