package experiment

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/covpipe/covpipe/internal/atomicfile"
)

// A vector cache folder holds the per-image vectors of one extraction
// (describe.Options with Vectors set) beside the descriptor caches:
// vectors.bin, the n·len float64 values little-endian, row by row, and
// vectors.json, written last as the commit marker, with n, len, the rows'
// paths and the SHA-256 of vectors.bin. It is keyed like the descriptors
// (cacheKey) plus the vector spec, so that pca-src and gsr skip the
// image pass on a second run.
const (
	vectorValues = "vectors.bin"
	vectorMeta   = "vectors.json"
	vectorFormat = "covpipe-vector-cache/1"
)

type vectorCacheMeta struct {
	Format string   `json:"format"`
	N      int      `json:"n"`
	Len    int      `json:"len"`
	Paths  []string `json:"paths"`
	SHA256 string   `json:"sha256"`
}

// writeVectorCache stores n rows of len values under dir.
func writeVectorCache(dir string, paths []string, length int, data []float64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	sum := sha256.Sum256(b)
	if err := atomicfile.WriteFile(filepath.Join(dir, vectorValues), b); err != nil {
		return err
	}
	m, err := json.MarshalIndent(vectorCacheMeta{vectorFormat, len(paths), length, paths, hex.EncodeToString(sum[:])}, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, vectorMeta), append(m, '\n'))
}

// readVectorCache returns the rows stored under dir when they are whole
// (vectors.bin matches the SHA-256 that vectors.json records), finite, and
// for exactly the given paths in order; ok is false when dir holds no
// cache, err says why a cache there is unusable.
func readVectorCache(dir string, paths []string) (length int, data []float64, ok bool, err error) {
	mb, err := os.ReadFile(filepath.Join(dir, vectorMeta))
	if os.IsNotExist(err) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, err
	}
	var m vectorCacheMeta
	if err := json.Unmarshal(mb, &m); err != nil {
		return 0, nil, false, fmt.Errorf("%s: %w", vectorMeta, err)
	}
	if m.Format != vectorFormat || m.N != len(paths) || m.Len < 1 || !slices.Equal(m.Paths, paths) {
		return 0, nil, false, fmt.Errorf("%s: format %q, %d rows of %d values, not the %d images of the descriptors", vectorMeta, m.Format, m.N, m.Len, len(paths))
	}
	b, err := os.ReadFile(filepath.Join(dir, vectorValues))
	if err != nil {
		return 0, nil, false, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != m.SHA256 || len(b) != 8*m.N*m.Len {
		return 0, nil, false, fmt.Errorf("%s does not match %s (torn)", vectorValues, vectorMeta)
	}
	data = make([]float64, m.N*m.Len)
	for i := range data {
		v := math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, nil, false, fmt.Errorf("%s: value %d is %v", vectorValues, i, v)
		}
		data[i] = v
	}
	return m.Len, data, true, nil
}
