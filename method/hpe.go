package method

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/appearance"
	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/hpe"
	"github.com/covpipe/covpipe/internal/once"
	"go.yaml.in/yaml/v3"
)

// hpeParams are the parameters of method type hpe.
type hpeParams struct {
	// Mask is the foreground mask: centre (default), border or none, as
	// for sdalf.
	Mask string `yaml:"mask,omitempty" json:"mask" help:"the foreground mask: centre, border or none" default:"centre"`
	// H, Generic and Local are the weights of the histogram, generic
	// epitome and local epitome distances; default 1/3 each
	// (hpe.DefaultWeights).
	H       *float64 `yaml:"h,omitempty" json:"h" help:"the weight of the histogram distance" default:"1/3"`
	Generic *float64 `yaml:"generic,omitempty" json:"generic" help:"the weight of the generic epitome distance" default:"1/3"`
	Local   *float64 `yaml:"local,omitempty" json:"local" help:"the weight of the local epitomes' distance" default:"1/3"`
	// Epitome is the side of the square generic epitome, Patch the side
	// of its patches, Stride their spacing, Iterations the EM iterations
	// and Locals the number of local epitomes, in pixels of the sampled
	// images; defaults 8, 4, 2, 10 and 4 (package hpe).
	Epitome    int `yaml:"epitome,omitempty" json:"epitome" help:"the side of the square generic epitome, in pixels" default:"8"`
	Patch      int `yaml:"patch,omitempty" json:"patch" help:"the side of the epitome's patches, in pixels" default:"4"`
	Stride     int `yaml:"stride,omitempty" json:"stride" help:"the patches' spacing, in pixels" default:"2"`
	Iterations int `yaml:"iterations,omitempty" json:"iterations" help:"the EM iterations of the epitomes" default:"10"`
	Locals     int `yaml:"locals,omitempty" json:"locals" help:"the number of local epitomes" default:"4"`
	// Step samples the images every Step pixels; default 2, as for sdalf
	// (the two share the data stage's vectors).
	Step int `yaml:"step,omitempty" json:"step" help:"sample the images every STEP pixels" default:"2"`
}

// hpeMethod is HPE (Bazzani et al., ICPR 2010; package hpe), a
// re-identification baseline of the paper's Fig. 6: each identity's
// training images make one signature (histograms accumulated over the
// images, generic and local epitomes of their patches), each test image
// its own (the single-image case), and a test image ranks the identities
// by the HPE distance to their signatures.
type hpeMethod struct {
	p       hpeParams
	vectors classify.VectorRequest
	opts    hpe.Options
	weights hpe.Weights
	probes  once.Cache[*classify.Vectors, []*hpe.Signature]
}

func newHPE(n *yaml.Node) (classify.Method, error) {
	m := &hpeMethod{}
	if err := decode(n, &m.p, "hpe"); err != nil {
		return nil, err
	}
	kind, err := imageMask(&m.p.Mask)
	if err != nil {
		return nil, err
	}
	m.opts.Mask.Kind = kind
	w := hpe.DefaultWeights()
	resolveFloats(floatParam{&m.p.H, &w.H}, floatParam{&m.p.Generic, &w.Generic}, floatParam{&m.p.Local, &w.Local})
	if err := w.Validate(); err != nil {
		return nil, err
	}
	m.weights = w
	for _, f := range []struct {
		v   *int
		def int
	}{
		{&m.p.Epitome, hpe.DefaultEpitomeSize}, {&m.p.Patch, hpe.DefaultPatch}, {&m.p.Stride, hpe.DefaultStride},
		{&m.p.Iterations, hpe.DefaultIterations}, {&m.p.Locals, hpe.DefaultLocal},
	} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	m.opts.Epitome = hpe.EpitomeOptions{W: m.p.Epitome, H: m.p.Epitome, Patch: m.p.Patch, Stride: m.p.Stride, Iterations: m.p.Iterations}
	m.opts.Local = m.p.Locals
	if err := m.opts.Validate(); err != nil {
		return nil, err
	}
	if m.vectors, err = imageRequest(&m.p.Step); err != nil {
		return nil, err
	}
	m.probes.Max = sdalfCacheSize
	return m, nil
}

// Spec asks for the images' row index and colour planes, as sdalf does.
func (m *hpeMethod) Spec() classify.Spec {
	return imageSpec(m.p, m.vectors)
}

func (m *hpeMethod) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	d := t.Data
	x, err := imageVectors(ctx, d, m.vectors)
	if err != nil {
		return nil, err
	}
	byClass := classify.ByClass(d.Labels, t.Items)
	classes := classify.SortedKeys(byClass)
	gallery, err := m.describe(ctx, x, t.Workers, len(classes), func(c int) []int { return byClass[classes[c]] })
	if err != nil {
		return nil, err
	}
	// One training item stands for each identity, whose signature is
	// gallery[c]; nearest ranks the identities by the distance to it.
	reps := make([]int, len(classes))
	for c, label := range classes {
		reps[c] = byClass[label][0]
	}
	f := &hpeFit{m: m, gallery: gallery, reps: reps}
	return &fitted{p: f, chosen: map[string]float64{"h": m.weights.H, "generic": m.weights.Generic, "local": m.weights.Local}}, nil
}

// hpeFit is HPE's gallery: a signature of each identity's training
// images, and a training item of each identity that stands for it.
type hpeFit struct {
	m       *hpeMethod
	gallery []*hpe.Signature
	reps    []int
}

// save keeps nothing: an identity's signature depends on its images
// only, so Load describes the training images again.
func (f *hpeFit) save(context.Context, *classify.State) (any, error) { return nil, nil }

func (m *hpeMethod) Load(ctx context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	if err := st.DecodeRecord(&savedFit{}); err != nil {
		return nil, err
	}
	return m.Fit(ctx, t)
}

func (f *hpeFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	m := f.m
	x, err := imageVectors(ctx, d, m.vectors)
	if err != nil {
		return nil, err
	}
	// A single image's signature depends on the image only: the splits of
	// a dataset share them, made with the Data's parallelism, as its
	// pairwise quantities are (other repeats' predictions wait for them).
	probes, err := m.probes.Do(x, func() ([]*hpe.Signature, error) {
		n, _ := x.Dims()
		return m.describe(ctx, x, d.Workers, n, func(i int) []int { return []int{i} })
	})
	if err != nil {
		return nil, err
	}
	return nearest(ctx, d.Labels, f.reps, test, a.workers, false, nil, func(_, q, c int, _ float64) (float64, error) {
		return hpe.Distance(probes[test[q]], f.gallery[c], m.weights)
	})
}

// describe returns n signatures, signature k of the images whose planes
// are the rows items(k) of x. It keeps what the distance reads: the
// generic epitome itself and the histograms go, the histograms' square
// roots (which hpe.Distance reads in their place) and the local
// epitomes stay.
func (m *hpeMethod) describe(ctx context.Context, x *classify.Vectors, workers, n int, items func(k int) []int) ([]*hpe.Signature, error) {
	return describeImages(ctx, n, workers, func(ws *hpe.Workspace, k int) (*hpe.Signature, error) {
		rows := items(k)
		imgs := make([]*appearance.Image, len(rows))
		for j, i := range rows {
			var err error
			if imgs[j], err = sdalfImage(x, i); err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
		}
		sig, err := ws.Describe(ctx, imgs, m.opts)
		if err != nil {
			if len(rows) == 1 {
				return nil, fmt.Errorf("item %d: %w", rows[0], err)
			}
			return nil, fmt.Errorf("identity of items %d, …: %w", rows[0], err)
		}
		sig.Generic, sig.Torso, sig.Legs, sig.GenericHist = nil, nil, nil, nil
		return sig, nil
	})
}
