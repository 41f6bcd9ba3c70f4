package describe

import (
	"errors"
	"fmt"
	"strings"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/store"
)

// Meta returns the metadata that Run would write for inputs, without
// counts and files: everything that determines the output, so that a
// cache can be keyed on it. It returns the errors of Run for invalid
// inputs: none, a nil list, no images, a line break in a path or label.
func (e *Extractor) Meta(inputs []*datasets.List) (store.Meta, error) {
	return e.p.meta(inputs)
}

// meta validates the inputs of a run of p and returns its metadata
// without counts.
func (p *plan) meta(inputs []*datasets.List) (store.Meta, error) {
	if len(inputs) == 0 {
		return store.Meta{}, errors.New("describe: no inputs")
	}
	total := 0
	for k, l := range inputs {
		if l == nil {
			return store.Meta{}, fmt.Errorf("describe: input %d is nil", k)
		}
		for _, it := range l.Items {
			if strings.ContainsAny(it.Rel, "\r\n") || strings.ContainsAny(it.Label, "\r\n") {
				return store.Meta{}, fmt.Errorf("describe: %q (label %q): a line break in a path or label cannot be written to a manifest", it.Path, it.Label)
			}
		}
		total += len(l.Items)
	}
	if total == 0 {
		return store.Meta{}, fmt.Errorf("describe: %w: the inputs list no images", datasets.ErrEmpty)
	}
	return newMeta(p, inputs), nil
}

// Current reports whether dir holds the output of Describe(ctx, inputs,
// dir, o): whether its meta.json, but for the counts, is the one that run
// would write (same covpipe version, options, shard and inputs, down to
// the hash of their items). It does not read the other files; store.Read
// checks them. A folder without a readable meta.json (store.ErrInvalid)
// is not current. Current returns the errors of invalid options or
// inputs, as Describe does, and of reading meta.json.
func Current(dir string, inputs []*datasets.List, o Options) (bool, error) {
	e, err := NewExtractor(o)
	if err != nil {
		return false, err
	}
	want, err := e.Meta(inputs)
	if err != nil {
		return false, err
	}
	got, err := store.ReadMeta(dir)
	if errors.Is(err, store.ErrInvalid) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return got.Diff(&want) == "" && (got.Shard == nil) == (want.Shard == nil) && (got.Shard == nil || *got.Shard == *want.Shard), nil
}

// newMeta returns the metadata of a run of p over inputs, without counts.
func newMeta(p *plan, inputs []*datasets.List) store.Meta {
	m := store.Meta{
		Format:      store.Format,
		Version:     version.String(),
		FeatureSpec: p.set.String(),
		Features:    p.set.Names(),
		Dim:         p.set.Dim(),
		Ridge:       store.Ridge{Kind: p.reg.Kind.String(), Eps: p.reg.Eps},
		Regions:     p.layout.String(),
		Seed:        p.seed,
		SkipBad:     p.skipBad,
	}
	if p.set.HasGabor() {
		m.GaborBorder = p.set.GaborBorder().String()
	}
	// Recorded only when not the default, so that folders (and cache
	// keys) made with the default options keep their bytes.
	if p.est != covariance.SCM {
		m.Estimator = p.est.String()
	}
	if p.norm != covariance.NormNone {
		m.Normalize = p.norm.String()
	}
	if p.load.Width > 0 {
		m.Resize = &store.Size{Width: p.load.Width, Height: p.load.Height}
		m.Filter = filterName(p.load.Filter)
		// Folders made before the setting decoded every JPEG at full
		// size, as JPEGScaleOff does: both leave the field out, so that
		// a cache keyed on the metadata tells the decoders apart.
		if p.load.JPEGScale != imageio.JPEGScaleOff {
			m.JPEGScale = p.load.JPEGScale.String()
		}
	}
	if v := p.vec; v.Features != nil {
		m.Vectors = &store.Vectors{FeatureSpec: v.Features.String(), Step: v.Step}
	}
	m.Inputs, m.ItemsSHA256 = store.Inputs(inputs)
	if p.shard.Count > 1 {
		sh := p.shard
		m.Shard = &sh
	}
	return m
}

// filterName returns the lower-case name of f, as the CLI spells it.
func filterName(f imageio.Filter) string { return strings.ToLower(f.String()) }
