package method

import (
	"context"
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/lda"
	"github.com/covpipe/covpipe/spd"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// fgmdmParams are the parameters of method type fgmdm.
type fgmdmParams struct {
	// Reference is the point of the tangent space that the filter works
	// in: mean or identity (TangentReference).
	Reference string `yaml:"reference" json:"reference" help:"the tangent space's point: mean (the training items' affine-invariant Karcher mean) or identity" default:"mean"`
}

// fgmdm is minimum distance to the class means after geodesic filtering
// (Barachant, Bonnet, Congedo and Jutten, "Riemannian geometry applied to
// BCI classification", LVA/ICA 2010, and IEEE TBME 2012; pyRiemann's FgMDM
// and FGDA): Fit maps the training items to the tangent space at their
// Karcher mean P (spd.TangentSpace; or at I), fits Fisher's linear
// discriminant analysis with Ledoit–Wolf shrinkage on the vectors
// (lda.Fit, scikit-learn's LinearDiscriminantAnalysis(solver="lsqr",
// shrinkage="auto")), and filters every item by the orthogonal projection
// onto the span of the discriminant coefficients W,
//
//	v ↦ W(WᵀW)⁺Wᵀ v = B Bᵀ v   (B = lda.Model.Basis),
//
// which keeps at most K − 1 directions, the class-discriminant ones,
// before mapping it back to the manifold, P^{1/2} exp(unvec(BBᵀv))
// P^{1/2} (TangentSpace.Untangent). MDM under the AIRM then classifies the
// filtered items (mdm with metric airm: the Karcher mean of each class's
// filtered training items, the nearest mean), with mdm's costs (the
// distances) and scores (the softmax of −d²). The ridge variants are
// chosen by cross-validation; the state holds the reference point, the
// basis B (p×r) and the class means.
type fgmdm struct {
	memo classify.Memo[struct{}]
	tangentBases
	// fits remembers the filters and class means of recent training sets.
	fits  once.Cache[trainKey, *fgmdmFit]
	inner *mdm
	p     fgmdmParams
}

func newFgMDM(n *yaml.Node) (classify.Method, error) {
	m := &fgmdm{fits: once.Cache[trainKey, *fgmdmFit]{Max: mdmFits}, inner: &mdm{metric: spd.AIRMMetric}}
	if err := decode(n, &m.p, "fgmdm"); err != nil {
		return nil, err
	}
	ref, err := ParseTangentReference(m.p.Reference)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	m.p.Reference, m.tangentBases = string(ref), newTangentBases(ref)
	return m, nil
}

// Spec declares scores and class costs; the method needs no pairwise
// quantities.
func (m *fgmdm) Spec() classify.Spec {
	return classify.Spec{Params: m.p, Candidates: 1, Scores: true, Costs: true, Probabilities: true}
}

func (m *fgmdm) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	return fitRidge(ctx, t, &m.memo, func(d *classify.Data, train []int) (predictor, error) {
		return m.fits.Do(newTrainKey(d, train), func() (*fgmdmFit, error) {
			return m.fit(ctx, d, train, t.Workers)
		})
	})
}

// fgmdmFit is a fitted FgMDM: the reference point, the basis of the
// filter's subspace (p×r) and the class means of the filtered items.
type fgmdmFit struct {
	ref   *mat.SymDense
	basis *mat.Dense
	means *mdmFit
}

// fit fits the filter on the items train of d and the class means of
// the filtered items.
func (m *fgmdm) fit(ctx context.Context, d *classify.Data, train []int, workers int) (*fgmdmFit, error) {
	b, err := m.basis(ctx, d, train, workers)
	if err != nil {
		return nil, fmt.Errorf("fgmdm: %w", err)
	}
	labels := classify.Pick(d.Labels, train)
	a, err := lda.Fit(ctx, b.vectors, labels)
	if err != nil {
		return nil, fmt.Errorf("fgmdm: %w", err)
	}
	basis, err := a.Basis()
	if err != nil {
		return nil, fmt.Errorf("fgmdm: %w", err)
	}
	f := &fgmdmFit{ref: b.ref, basis: basis}
	filtered, err := f.filter(ctx, b.vectors, workers)
	if err != nil {
		return nil, err
	}
	means, err := m.inner.fit(ctx, classify.NewData(filtered, labels, workers), classify.Seq(0, len(train)), workers)
	if err != nil {
		return nil, fmt.Errorf("fgmdm: %w", err)
	}
	f.means = means
	return f, nil
}

// filter returns the SPD matrices P^{1/2} exp(unvec(BBᵀv)) P^{1/2} of the
// tangent vectors v, the rows of vectors, on workers goroutines.
func (f *fgmdmFit) filter(ctx context.Context, vectors *mat.Dense, workers int) (*spd.Set, error) {
	n, p := vectors.Dims()
	_, r := f.basis.Dims()
	d := f.ref.SymmetricDim()
	data := make([]float64, n*d*d)
	spaces := make([]*spd.TangentSpace, pool.Workers(workers))
	coords, proj, outs := make([][]float64, len(spaces)), make([][]float64, len(spaces)), make([]*mat.SymDense, len(spaces))
	b := f.basis.RawMatrix()
	err := pool.ForCtx(ctx, n, workers, func(w, i int) error {
		if spaces[w] == nil {
			var err error
			if spaces[w], err = spd.NewTangentSpace(f.ref); err != nil {
				return fmt.Errorf("fgmdm: reference: %w", err)
			}
			coords[w], proj[w], outs[w] = make([]float64, r), make([]float64, p), mat.NewSymDense(d, nil)
		}
		v := blas64.Vector{N: p, Inc: 1, Data: vectors.RawRowView(i)}
		c := blas64.Vector{N: r, Inc: 1, Data: coords[w]}
		blas64.Gemv(blas.Trans, 1, b, v, 0, c)                                            // Bᵀv
		blas64.Gemv(blas.NoTrans, 1, b, c, 0, blas64.Vector{N: p, Inc: 1, Data: proj[w]}) // BBᵀv
		if err := spaces[w].UntangentTo(outs[w], proj[w]); err != nil {
			return fmt.Errorf("fgmdm: item %d filtered: %w", i, err)
		}
		fullTo(data[i*d*d:(i+1)*d*d], outs[w])
		return nil
	})
	if err != nil {
		return nil, err
	}
	set, err := spd.NewSetFromData(d, data)
	if err != nil {
		return nil, fmt.Errorf("fgmdm: filtered items: %w", err)
	}
	return set, nil
}

// predict filters the items test of d and labels each by its nearest
// class mean (mdm's predict on the filtered items).
func (f *fgmdmFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	vectors, err := tangentVectorsAt(ctx, d, test, f.ref, a.workers)
	if err != nil {
		return nil, fmt.Errorf("fgmdm: %w", err)
	}
	filtered, err := f.filter(ctx, vectors, a.workers)
	if err != nil {
		return nil, err
	}
	return f.means.predict(ctx, classify.NewData(filtered, nil, a.workers), classify.Seq(0, len(test)), a)
}

// basisArray names the filter's basis B (p, r) in an FgMDM's state.
const basisArray = "basis"

// fgmdmRecord is the record of a fitted FgMDM's state: the class labels
// of the means and the rank r of the filter.
type fgmdmRecord struct {
	mdmRecord
	Rank int `json:"rank"`
}

func (f *fgmdmFit) save(ctx context.Context, st *classify.State) (any, error) {
	putReference(st, f.ref)
	p, r := f.basis.Dims()
	st.Put(basisArray, slices.Clone(f.basis.RawMatrix().Data), p, r)
	rec, err := f.means.save(ctx, st)
	if err != nil {
		return nil, err
	}
	return fgmdmRecord{rec.(mdmRecord), r}, nil
}

// Load restores the reference point, the filter and the class means of
// st; it refuses a state whose classes are not those of t's training
// items or whose arrays are not of t's size.
func (m *fgmdm) Load(_ context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(r fgmdmRecord) (predictor, error) {
		ref, err := getReference(st, t)
		if err != nil {
			return nil, err
		}
		p := spd.VecLen(ref.SymmetricDim())
		if r.Rank < 1 || r.Rank > p {
			return nil, fmt.Errorf("fgmdm: state record: rank %d, want in [1, %d]", r.Rank, p)
		}
		b, err := st.Get(basisArray, p, r.Rank)
		if err != nil {
			return nil, err
		}
		means, err := m.inner.loadMeans(st, t, r.mdmRecord)
		if err != nil {
			return nil, err
		}
		return &fgmdmFit{ref: ref, basis: mat.NewDense(p, r.Rank, slices.Clone(b)), means: means}, nil
	})
}
