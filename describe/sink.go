package describe

import (
	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/store"
)

// Sink receives the output of Extractor.Run, streaming, in order: Begin
// once, then Descriptors or Failed once per image of the run, in input
// order, then Commit, or Abort when the run fails. Describe's sink writes
// a store folder; Collect's keeps the same output in memory. Run calls a
// Sink from one goroutine.
type Sink interface {
	// Begin starts the output of the run that m describes, before any
	// image: m has everything but the counts (Meta.Dim is d, len(m.Inputs)
	// the number of inputs, m.SkipBad whether Failed may be called,
	// m.Vectors whether vectors come). The sink must not modify m.
	Begin(m *store.Meta) error
	// Descriptors receives the descriptors of the next image, the item
	// of input number input: one per region, descriptor k of region
	// regions[k] being the row-major d×d block data[k·d·d:(k+1)·d·d].
	// The slices are reused once Descriptors returns.
	Descriptors(input int, item *datasets.Item, regions []covariance.Region, data []float64) error
	// Failed receives the next image instead of Descriptors when it has
	// failed and Options.SkipBad is set: err says why and names its path.
	Failed(input int, item *datasets.Item, err error) error
	// Commit completes the output: m is Begin's metadata with the counts.
	Commit(m *store.Meta) error
	// Abort discards the output when the run fails after Begin, including
	// when Begin or Commit itself failed.
	Abort()
}

// VectorSink is implemented by sinks that take the vectors of
// Options.Vectors: Vector receives the next image's vector just before
// its Descriptors, every vector of a run with the same length; the slice
// is reused once Vector returns.
type VectorSink interface {
	Vector(input int, item *datasets.Item, v []float64) error
}

// folder is the Sink of Describe: it writes the store folder f.
type folder struct {
	f *store.Folder
	w *store.Writer
}

func (f *folder) Begin(m *store.Meta) (err error) {
	f.w, err = store.NewWriter(f.f, m)
	return err
}

func (f *folder) Descriptors(input int, item *datasets.Item, regions []covariance.Region, data []float64) error {
	return f.w.Add(input, item.Rel, item.Label, regions, data)
}

func (f *folder) Vector(_ int, _ *datasets.Item, v []float64) error { return f.w.AddVector(v) }

func (f *folder) Failed(input int, item *datasets.Item, err error) error {
	return f.w.AddFailure(input, item.Rel, err)
}

func (f *folder) Commit(m *store.Meta) error { return f.w.Commit(m) }

func (f *folder) Abort() { f.f.Abort() }

// collector is the Sink of Collect: it keeps the output in memory as
// store.Read returns it.
type collector struct {
	out store.Output
}

func (c *collector) Begin(m *store.Meta) error {
	// Read returns empty, not nil, slices for an output of no descriptors.
	c.out = store.Output{Rows: []store.Row{}, Data: []float64{}}
	if m.Vectors != nil {
		c.out.Vectors = []float64{}
	}
	return nil
}

func (c *collector) Descriptors(input int, item *datasets.Item, regions []covariance.Region, data []float64) error {
	for _, r := range regions {
		c.out.Rows = append(c.out.Rows, store.Row{Index: len(c.out.Rows), Input: input, Path: item.Rel, Label: item.Label, Region: r})
	}
	c.out.Data = append(c.out.Data, data...)
	return nil
}

func (c *collector) Vector(_ int, _ *datasets.Item, v []float64) error {
	c.out.VectorLen = len(v)
	c.out.Vectors = append(c.out.Vectors, v...)
	return nil
}

func (c *collector) Failed(int, *datasets.Item, error) error { return nil }

func (c *collector) Commit(m *store.Meta) error {
	c.out.Meta = *m
	return nil
}

func (c *collector) Abort() { c.out = store.Output{} }

// tee is the Sink of CollectInto: a collector, and a folder written
// while it can be; the first error of the folder aborts it and goes to
// failed.
type tee struct {
	c      collector
	f      *folder
	dead   bool
	failed func(error)
}

// write stops writing the folder after its first error.
func (t *tee) write(err error) {
	if err == nil || t.dead {
		return
	}
	t.dead = true
	t.f.Abort()
	if t.failed != nil {
		t.failed(err)
	}
}

func (t *tee) Begin(m *store.Meta) error {
	t.write(t.f.Begin(m))
	return t.c.Begin(m)
}

func (t *tee) Descriptors(input int, item *datasets.Item, regions []covariance.Region, data []float64) error {
	if !t.dead {
		t.write(t.f.Descriptors(input, item, regions, data))
	}
	return t.c.Descriptors(input, item, regions, data)
}

func (t *tee) Vector(input int, item *datasets.Item, v []float64) error {
	if !t.dead {
		t.write(t.f.Vector(input, item, v))
	}
	return t.c.Vector(input, item, v)
}

func (t *tee) Failed(input int, item *datasets.Item, err error) error {
	if !t.dead {
		t.write(t.f.Failed(input, item, err))
	}
	return t.c.Failed(input, item, err)
}

func (t *tee) Commit(m *store.Meta) error {
	if err := t.c.Commit(m); err != nil {
		return err
	}
	if !t.dead {
		// Commit sets m.Files; the output in memory has none, as Collect's.
		mm := *m
		t.write(t.f.Commit(&mm))
	}
	return nil
}

func (t *tee) Abort() {
	t.c.Abort()
	t.f.Abort()
}
