package dictionary

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"gonum.org/v1/gonum/mat"
)

func atoms(t *testing.T) *spd.Set {
	t.Helper()
	set, err := spd.NewSet([]*mat.SymDense{
		mat.NewSymDense(2, []float64{2, 1, 1, 2}),
		mat.NewSymDense(2, []float64{3, 0, 0, 1}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestWriteRead checks that a dictionary folder reads back as written:
// the atoms bit for bit and the record field by field, with its
// sparsity weight; that a torn folder is refused; and that an .npy file
// of atoms reads with no record.
func TestWriteRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dict")
	f, err := store.CreateFolder(context.Background(), dir, store.FormatDictionary)
	if err != nil {
		t.Fatal(err)
	}
	a := atoms(t)
	rec := &Record{Input: "in", Samples: 5, Dim: 2, Atoms: 2, Sigma: 1, Sparsity: SparsityOf(rsr.LassoOptions{LambdaRatio: 0.2}),
		History: []Iteration{IterationOf(rsr.LearnIteration{J: 3, JUpdated: 2})}}
	if err := Write(f, a, rec); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, file, back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Data(), a.Data()) || file != filepath.Join(dir, AtomsFile) {
		t.Errorf("atoms %v from %s, want %v from %s", got.Data(), file, a.Data(), filepath.Join(dir, AtomsFile))
	}
	if back.Options() != (rsr.LassoOptions{LambdaRatio: 0.2}) || back.Samples != 5 || len(back.History) != 1 || back.History[0].JUpdated != 2 {
		t.Errorf("record %+v, want %+v", back, rec)
	}
	if (Sparsity{}).Options() != (rsr.LassoOptions{}) || SparsityOf(rsr.LassoOptions{}).Options() != (rsr.LassoOptions{}) {
		t.Error("λ = 0 is not recorded as λ = 0")
	}
	npy := filepath.Join(t.TempDir(), "atoms.npy")
	if err := store.WriteNPY(npy, []int{2, 2, 2}, a.Data()); err != nil {
		t.Fatal(err)
	}
	if got, _, rec, err := Read(npy); err != nil || rec != nil || !slices.Equal(got.Data(), a.Data()) {
		t.Errorf("Read(.npy): %v, %v, %v", got, rec, err)
	}
	if err := os.WriteFile(filepath.Join(dir, RecordFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := Read(dir); !errors.Is(err, store.ErrTorn) {
		t.Errorf("a changed learn.json: %v, want store.ErrTorn", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.npy")
	if err := store.WriteNPY(bad, []int{1, 2, 2}, []float64{1, 2, 2, 1}); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := Read(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("atoms that are not SPD: %v, want an error naming %s", err, bad)
	}
}

// TestWriteCodes checks the files of a codes folder.
func TestWriteCodes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "codes")
	f, err := store.CreateFolder(context.Background(), dir, store.FormatCodes)
	if err != nil {
		t.Fatal(err)
	}
	codes := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0.5, 0.5})
	if err := WriteCodes(f, codes, &CodesRecord{Samples: 3, Atoms: 2}, []byte("path\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	shape, data, err := store.ReadNPY(filepath.Join(dir, CodesFile))
	if err != nil || !slices.Equal(shape, []int{3, 2}) || !slices.Equal(data, codes.RawMatrix().Data) {
		t.Errorf("codes %v %v, %v", shape, data, err)
	}
	for _, name := range []string{CodesLog, store.ManifestFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}
