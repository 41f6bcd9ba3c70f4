package foldertest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sbinet/npyio"
)

// TestReadNPY reads back what npyio writes, an empty array included.
func TestReadNPY(t *testing.T) {
	for _, want := range [][]float64{{1, 0, -2.5, 0, 3, 1e-300}, {}} {
		path := filepath.Join(t.TempDir(), "a.npy")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := npyio.Write(f, want); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if shape, got := ReadNPY(t, path); !slices.Equal(shape, []int{len(want)}) || !slices.Equal(got, want) {
			t.Errorf("ReadNPY = %v, %v; want [%d], %v", shape, got, len(want), want)
		}
	}
}
