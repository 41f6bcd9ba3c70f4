package experiment

import (
	"fmt"
	"math"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
)

// partReader takes the descriptors of an extraction of regions, k per
// image, image after image, one at a time into the packed Sets of its
// regions (spd.Packer), so that the descriptors of data.parts are never
// all held dense: the Sets that spd.NewSetFromData, spd.Regroup and
// spd.Pack would make of them, bit for bit. Read from the cache, the
// Sets hold none of them but read them again from the cache entry's
// file when they are unpacked (src); made afresh, they hold their upper
// triangles. It checks them as finite and NewSetFromData do.
type partReader struct {
	k   int
	res *spd.Residency
	// checkFinite makes a descriptor that is not finite nonFinite, as
	// finite finds it (a cache entry holding one is a miss), rather than
	// the Packer's error, as NewSetFromData finds it.
	checkFinite bool
	// src, when not nil, is where the Sets read the descriptors again.
	src *fileSource

	p *spd.Packer
	// nonFinite is the first descriptor's that is not finite, when
	// checkFinite; bad is the first error of the Packer.
	nonFinite, bad error
}

// fileSource is the spd.MatrixSource of a cache entry's descriptors,
// its file opened once they are read (store.OpenEach).
type fileSource struct{ d *store.Descriptors }

func (s *fileSource) ReadMatrices(idx []int, dst []float64) error { return s.d.ReadMatrices(idx, dst) }

// vectorFile is where a cache entry's vectors are read again from
// (store.OpenVectors): rows, once they are read whole, checked and found
// finite, else nonFinite, the first vector that is not, as finite finds
// it (a cache entry holding one is a miss).
type vectorFile struct {
	rows      *store.Rows
	nonFinite error
}

// check records the first vector i, v, that is not finite.
func (vf *vectorFile) check(i int, v []float64) error {
	if vf.nonFinite == nil {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				vf.nonFinite = fmt.Errorf("vector %d holds %v", i, x)
				break
			}
		}
	}
	return nil
}

// start readies pr for the descriptors of out, forgetting any it took.
func (pr *partReader) start(out *store.Output) {
	n := len(out.Rows)
	pr.p, pr.nonFinite, pr.bad = nil, nil, nil
	var src spd.MatrixSource
	if pr.src != nil {
		src = pr.src
	}
	pr.p, pr.bad = spd.NewPacker(out.Meta.Dim, n, pr.k, pr.res, src)
	if n == 0 {
		pr.bad = fmt.Errorf("%w: no matrices", spd.ErrEmpty)
	}
}

// add takes descriptor i, m (modified in place); its errors are pr's
// to report, so that reading goes on to check the file whole.
func (pr *partReader) add(i int, m []float64) error {
	if pr.checkFinite && pr.nonFinite == nil {
		for _, v := range m {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				pr.nonFinite = fmt.Errorf("descriptor %d holds %v", i, v)
				break
			}
		}
	}
	if pr.nonFinite != nil || pr.bad != nil {
		return nil
	}
	if err := pr.p.Add(m); err != nil {
		pr.bad = err
	}
	return nil
}

// take gives pr the descriptors of out, an extraction in memory, and
// drops them from out, checkFinite set as given; it returns out and err
// as they are when pr is nil or err is not.
func (pr *partReader) take(out *store.Output, err error, checkFinite bool) (*store.Output, error) {
	if pr == nil || err != nil {
		return out, err
	}
	pr.checkFinite, pr.src = checkFinite, nil
	pr.start(out)
	dd := out.Meta.Dim * out.Meta.Dim
	for i := range out.Rows {
		pr.add(i, out.Data[i*dd:(i+1)*dd])
	}
	out.Data = nil
	return out, nil
}

// sets returns the regions' packed Sets, or the first error that the
// descriptors gave.
func (pr *partReader) sets() ([]*spd.Set, error) {
	if pr.bad != nil {
		return nil, pr.bad
	}
	return pr.p.Sets()
}

// copies returns classify.MislabelledCopies of the descriptors that pr
// took into sets, their labels labels.
func (pr *partReader) copies(sets []*spd.Set, labels []int) [][2]int {
	k := pr.k
	pairs, _ := classify.MislabelledCopiesOf(pr.p.Hashes(), labels, func(i, j int) bool {
		return spd.SameMatrix(sets[i%k], i/k, sets[j%k], j/k)
	}, -1)
	return pairs
}
