package describe

import (
	"fmt"
	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
)

// Sink receives the output of Extractor.Run, streaming, in order: Begin
// once, then Descriptors or Failed once per image of the run, in input
// order, then Commit, or Abort when the run fails. Describe's sink writes
// an output folder atomically; Collect's keeps the output in memory. Run
// calls a Sink from one goroutine.
type Sink interface {
	// Begin starts the output of the run that m describes, before any
	// image: m has everything but the counts (Meta.Dim is d, len(m.Inputs)
	// the number of inputs, m.SkipBad whether Failed may be called). The
	// sink must not modify m.
	Begin(m *Meta) error
	// Descriptors receives the descriptors of the next image, the item
	// of input number input: one per region, descriptor k of region
	// regions[k] being the row-major d×d block data[k·d·d:(k+1)·d·d].
	// The slices are reused once Descriptors returns.
	Descriptors(input int, item *datasets.Item, regions []covariance.Region, data []float64) error
	// Failed receives the next image instead of Descriptors when it has
	// failed and Options.SkipBad is set: err says why and names its path.
	Failed(input int, item *datasets.Item, err error) error
	// Commit completes the output: m is Begin's metadata with the counts.
	Commit(m *Meta) error
	// Abort discards the output when the run fails after Begin, including
	// when Begin or Commit itself failed.
	Abort()
}

// collector is the Sink of Collect: it keeps the output in memory as Read
// returns it.
type collector struct {
	out Output
}

func (c *collector) Begin(m *Meta) error {
	// Read returns empty, not nil, slices for an output of no descriptors.
	c.out = Output{Rows: []Row{}, Data: []float64{}}
	return nil
}

func (c *collector) Descriptors(input int, item *datasets.Item, regions []covariance.Region, data []float64) error {
	for _, r := range regions {
		c.out.Rows = append(c.out.Rows, Row{Index: len(c.out.Rows), Input: input, Path: item.Rel, Label: item.Label, Region: r})
	}
	c.out.Data = append(c.out.Data, data...)
	return nil
}

// Vector keeps the image's vector; every image's must have one length.
func (c *collector) Vector(_ int, item *datasets.Item, v []float64) error {
	if len(c.out.Vectors) > 0 && len(v) != c.out.VectorLen {
		return fmt.Errorf("describe: vector of %s has %d values, the earlier images' %d (images of different sizes: resize them)", item.Path, len(v), c.out.VectorLen)
	}
	c.out.VectorLen = len(v)
	c.out.Vectors = append(c.out.Vectors, v...)
	return nil
}

func (c *collector) Failed(int, *datasets.Item, error) error { return nil }

func (c *collector) Commit(m *Meta) error {
	c.out.Meta = *m
	return nil
}

func (c *collector) Abort() { c.out = Output{} }
