package method

import (
	"context"
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/appearance"
	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/sdalf"
	"go.yaml.in/yaml/v3"
)

// sdalfParams are the parameters of method type sdalf.
type sdalfParams struct {
	// Mask is the foreground mask: centre (default), border or none
	// (appearance.MaskKind), the per-image stand-ins for the paper's STEL
	// segmentation. The centre prior is the default: it helps across
	// cameras, where the background changes, and halves the blobs to
	// match. On the paper's protocol none does a little better, since the
	// training frames share the test frame's background; the border model
	// takes dark clothing for dark background on tight crops such as
	// mini-mars's.
	Mask string `yaml:"mask,omitempty" json:"mask" help:"the foreground mask: centre, border or none" default:"centre"`
	// WHSV and MSCR are the weights β_WH and β_MSCR of the distance;
	// default the paper's 0.4 and 0.6 (sdalf.DefaultWeights).
	WHSV *float64 `yaml:"whsv,omitempty" json:"whsv" help:"the weight β_WH of the weighted HSV histograms' distance" default:"0.4"`
	MSCR *float64 `yaml:"mscr,omitempty" json:"mscr" help:"the weight β_MSCR of the MSCR blobs' distance" default:"0.6"`
	// Gamma weights blob position against colour; default 0.4.
	Gamma *float64 `yaml:"gamma,omitempty" json:"gamma" help:"the weight of blob position against colour" default:"0.4"`
	// Step samples the images every Step pixels along rows and columns;
	// default 2. The data stage holds every image's planes as float64
	// vectors: at step 1, the 32×64 re-identification crops of mini-mars
	// would take 365 MB of the run's memory, at step 2 a quarter of it,
	// and the 16×32 images lose no rank-1 accuracy on either protocol.
	Step int `yaml:"step,omitempty" json:"step" help:"sample the images every STEP pixels along rows and columns" default:"2"`
}

// sdalfFeatures are the planes the method reads: the row index y, whose
// first run of zeros gives the image width, and the colour planes.
const sdalfFeatures = "y,R,G,B"

// sdalfStep is the default sampling step (sdalfParams.Step).
const sdalfStep = 2

// sdalfMethod is SDALF (Farenzena et al., CVPR 2010; package sdalf), the
// re-identification baseline of the paper's Fig. 6: each image is
// described once per Data (axes, weighted HSV histograms, MSCR blobs),
// and a test image ranks the identities by the distance to their nearest
// training image, the multiple-shot distance of one probe image against
// an identity's training images.
type sdalfMethod struct {
	p       sdalfParams
	vectors classify.VectorRequest
	opts    sdalf.Options
	weights sdalf.Weights
	sigs    once.Cache[*classify.Vectors, []*sdalf.Signature]
}

// sdalfCacheSize is the number of vector matrices whose signatures are
// kept. The signatures depend on the images only, so the splits and the
// ridge variants of a dataset share them through its one matrix.
const sdalfCacheSize = 4

func newSDALF(n *yaml.Node) (classify.Method, error) {
	m := &sdalfMethod{}
	if err := decode(n, &m.p, "sdalf"); err != nil {
		return nil, err
	}
	kind, err := imageMask(&m.p.Mask)
	if err != nil {
		return nil, err
	}
	m.opts.Mask.Kind = kind
	w := sdalf.DefaultWeights()
	resolveFloats(floatParam{&m.p.WHSV, &w.WHSV}, floatParam{&m.p.MSCR, &w.MSCR}, floatParam{&m.p.Gamma, &w.Gamma})
	if err := w.Validate(); err != nil {
		return nil, err
	}
	m.weights = w
	if m.vectors, err = imageRequest(&m.p.Step); err != nil {
		return nil, err
	}
	m.sigs.Max = sdalfCacheSize
	return m, nil
}

// Spec asks for the images' row index and colour planes.
func (m *sdalfMethod) Spec() classify.Spec {
	return imageSpec(m.p, m.vectors)
}

func (m *sdalfMethod) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	sigs, err := m.signatures(ctx, t.Data)
	if err != nil {
		return nil, err
	}
	f := &sdalfFit{m: m, train: t.Items, gallery: make([]*sdalf.Signature, len(t.Items))}
	for a, i := range t.Items {
		f.gallery[a] = sigs[i]
	}
	return &fitted{p: f, chosen: map[string]float64{"whsv": m.weights.WHSV, "mscr": m.weights.MSCR, "gamma": m.weights.Gamma}}, nil
}

// signatures returns the signature of every image of d. A single image's
// signature depends on the image only: the splits of a dataset share
// them, made with the Data's parallelism, as its pairwise quantities are
// (other repeats' fits wait for them).
func (m *sdalfMethod) signatures(ctx context.Context, d *classify.Data) ([]*sdalf.Signature, error) {
	x, err := imageVectors(ctx, d, m.vectors)
	if err != nil {
		return nil, err
	}
	return m.sigs.Do(x, func() ([]*sdalf.Signature, error) { return m.describe(ctx, x, d.Workers) })
}

// sdalfFit is SDALF's gallery: the training images' signatures.
type sdalfFit struct {
	m       *sdalfMethod
	train   []int
	gallery []*sdalf.Signature
}

// save keeps nothing: each training image's signature depends on the
// image only, so Load describes the training images again.
func (f *sdalfFit) save(context.Context, *classify.State) (any, error) { return nil, nil }

func (m *sdalfMethod) Load(ctx context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	if err := st.DecodeRecord(&savedFit{}); err != nil {
		return nil, err
	}
	return m.Fit(ctx, t)
}

func (f *sdalfFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	sigs, err := f.m.signatures(ctx, d)
	if err != nil {
		return nil, err
	}
	// nearest's ranking, with the gallery searched class by class
	// (sdalf.Gallery.NearestTo), which gives each class's nearest
	// distance to the last bit with fewer blob comparisons.
	classes := classify.SortedKeys(classify.ByClass(d.Labels, f.train))
	class := make([]int, len(f.train))
	for a, j := range f.train {
		class[a], _ = slices.BinarySearch(classes, d.Labels[j])
	}
	g, err := sdalf.NewGallery(f.gallery, class, len(classes))
	if err != nil {
		return nil, err
	}
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test)), Scores: make([]classify.ItemScore, len(test))}
	type work struct {
		best []float64
		ws   sdalf.NearestWork
	}
	ws := make([]work, pool.Workers(a.workers))
	err = pool.ForCtx(ctx, len(test), a.workers, func(w, q int) error {
		wk := &ws[w]
		if wk.best == nil {
			wk.best = make([]float64, len(classes))
		}
		if err := g.NearestTo(wk.best, sigs[test[q]], f.m.weights, &wk.ws); err != nil {
			return err
		}
		r, score := classify.RankCosts(classes, wk.best)
		out.Scores[q], out.Ranking[q], out.Pred[q] = score, r, r[0]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// imageVectors returns the vectors r of d that a method on images reads,
// or an error when ctx is cancelled or the data stage did not make them.
func imageVectors(ctx context.Context, d *classify.Data, r classify.VectorRequest) (*classify.Vectors, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := d.Vectors[r]
	if x == nil {
		return nil, fmt.Errorf("no feature vectors (%v): the protocol's data stage does not make them (an image dataset with regions: whole is needed)", r)
	}
	return x, nil
}

// imageMask resolves the mask parameter of a method on images: centre
// when empty (recorded in the parameter), else the kind it names.
func imageMask(name *string) (appearance.MaskKind, error) {
	if *name == "" {
		*name = appearance.CentreMask.String()
	}
	kind, err := appearance.ParseMaskKind(*name)
	if err != nil {
		return 0, fmt.Errorf("mask: %w", err)
	}
	return kind, nil
}

// floatParam is an optional parameter p and the option dst it sets.
type floatParam struct {
	p   **float64
	dst *float64
}

// resolveFloats sets each option from its parameter when given, else
// records the option's default in the parameter.
func resolveFloats(fs ...floatParam) {
	for _, f := range fs {
		if *f.p == nil {
			*f.p = new(*f.dst)
		}
		*f.dst = **f.p
	}
}

// imageRequest resolves the sampling step of a method on images
// (sdalfStep when 0, else at least 1) and returns the vectors the method
// reads.
func imageRequest(step *int) (classify.VectorRequest, error) {
	if *step == 0 {
		*step = sdalfStep
	}
	if *step < 1 {
		return classify.VectorRequest{}, fmt.Errorf("step = %d, want >= 1", *step)
	}
	return classify.VectorRequest{Features: sdalfFeatures, Step: *step}, nil
}

// imageSpec is the Spec of a method on images with parameters p that
// reads the vectors r. SDALF and HPE give no scores and no class
// probabilities: their distances add a histogram distance to a blob or
// epitome matching cost under hand-set weights, which rank a gallery
// (the CMC curves they are measured by) but are not squared distances of
// any space, so a softmax of them would be a number without a model.
func imageSpec(p any, r classify.VectorRequest) classify.Spec {
	return classify.Spec{Params: p, Candidates: 1, Vectors: r}
}

// describe returns the signatures of the images whose planes are the
// rows of x.
func (m *sdalfMethod) describe(ctx context.Context, x *classify.Vectors, workers int) ([]*sdalf.Signature, error) {
	n, _ := x.Dims()
	return describeImages(ctx, n, workers, func(ws *sdalf.Workspace, i int) (*sdalf.Signature, error) {
		img, err := sdalfImage(x, i)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		sig, err := ws.Describe(img, m.opts)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		return sig, nil
	})
}

// describeImages returns the n signatures describe(ws, k), k < n, made on
// workers goroutines, each with its own workspace ws.
func describeImages[S, W any](ctx context.Context, n, workers int, describe func(ws *W, k int) (S, error)) ([]S, error) {
	sigs := make([]S, n)
	ws := make([]W, pool.Workers(workers))
	err := pool.ForCtx(ctx, n, workers, func(w, k int) (err error) {
		sigs[k], err = describe(&ws[w], k)
		return err
	})
	if err != nil {
		return nil, err
	}
	return sigs, nil
}

// sdalfImage returns item i's image from its vector of planes y, R, G
// and B: the width is the length of the first run of y = 0. Colours are
// clipped to [0, 1], which resampling can overshoot.
func sdalfImage(x *classify.Vectors, i int) (*appearance.Image, error) {
	_, cols := x.Dims()
	v := make([]float64, cols)
	if err := x.RowTo(v, i); err != nil {
		return nil, err
	}
	size := len(v) / 4
	w := 0
	for w < size && v[w] == 0 {
		w++
	}
	if len(v)%4 != 0 || w == 0 || size%w != 0 {
		return nil, fmt.Errorf("a vector of %d values is not the planes y, R, G, B of an image", len(v))
	}
	planes := v[size:]
	for k, c := range planes {
		planes[k] = min(1, max(0, c))
	}
	return appearance.NewImage(w, size/w, planes[:size], planes[size:2*size], planes[2*size:])
}
