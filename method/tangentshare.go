package method

import (
	"context"
	"fmt"
	"weak"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// What the tangent-space methods of a run share. fgmdm and tangent-space
// both map a training set to the tangent space at its Karcher mean
// (TangentReferencePoint) and the queries to the same space
// (spd.TangentVectors), by the same arithmetic: the reference point,
// the training vectors and the queries' vectors are computed once for
// both, kept by the Data (classify.Shared), and each method's answers
// are those it gives alone, bit for bit.

// basesKey and vectorsCacheKey are the classify.Shared keys of a Data's
// caches: the reference points and training vectors of recent training
// sets, by training set and kind of reference; and the tangent vectors
// of recent query sets, by items and reference point: the runs' repeats
// in progress (one per worker of the engine, two on two cores), each
// read by the methods of its repeat in turn.
type (
	basesKey        struct{}
	vectorsCacheKey struct{}
)

func sharedBases(d *classify.Data) (*once.Cache[basisKey, *tangentBasis], error) {
	return classify.Shared(d, basesKey{}, func() (*once.Cache[basisKey, *tangentBasis], error) {
		return &once.Cache[basisKey, *tangentBasis]{Max: tangentCacheSize}, nil
	})
}

func sharedVectors(d *classify.Data) (*once.Cache[vectorsKey, *mat.Dense], error) {
	return classify.Shared(d, vectorsCacheKey{}, func() (*once.Cache[vectorsKey, *mat.Dense], error) {
		return &once.Cache[vectorsKey, *mat.Dense]{Max: sharedVectorSets}, nil
	})
}

// sharedVectorSets bounds the query sets whose tangent vectors the
// methods keep for one another: at 5,000 queries of 17×17 matrices a set
// is 6 MB.
const sharedVectorSets = 2

// basisKey identifies a training set's tangent basis: the set and the
// kind of reference point.
type basisKey struct {
	train trainKey
	ref   TangentReference
}

// vectorsKey identifies the tangent vectors of a set of items at a
// reference point, held weakly: the reference of a basis in
// sharedBases, which the methods that share the basis share.
type vectorsKey struct {
	items trainKey
	ref   weak.Pointer[mat.SymDense]
}

// tangentVectorsAt returns the tangent vectors (spd.TangentVectors) of
// the items of d at the reference point ref, on workers goroutines,
// computed once for every method that asks for the same items at the
// same ref; the matrix is shared and must not be modified.
func tangentVectorsAt(ctx context.Context, d *classify.Data, items []int, ref *mat.SymDense, workers int) (*mat.Dense, error) {
	c, err := sharedVectors(d)
	if err != nil {
		return nil, err
	}
	return c.Do(vectorsKey{newTrainKey(d, items), weak.Make(ref)}, func() (*mat.Dense, error) {
		return spd.TangentVectors(ctx, d.Set, items, ref, workers)
	})
}

// basis returns the reference point and tangent vectors of the items
// train of d, computed once per training set and kind of reference for
// every method of the run.
func (m *tangentBases) basis(ctx context.Context, d *classify.Data, train []int, workers int) (*tangentBasis, error) {
	c, err := sharedBases(d)
	if err != nil {
		return nil, err
	}
	return c.Do(basisKey{newTrainKey(d, train), m.ref}, func() (*tangentBasis, error) {
		ref, err := TangentReferencePoint(ctx, m.ref, d.Set, train)
		if err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		v, err := spd.TangentVectors(ctx, d.Set, train, ref, workers)
		if err != nil {
			return nil, err
		}
		return &tangentBasis{ref, v}, nil
	})
}
