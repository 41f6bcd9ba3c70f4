package describe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/pool"
)

// Describe computes the covariance descriptors of the images of inputs,
// concatenated in order (each datasets.List in its own order, sorted by
// relative path), or of the part o.Shard selects, and writes them into the
// folder dir, which it creates if needed: descriptors.npy, manifest.csv,
// meta.json and, with o.SkipBad, failures.csv (see the package
// documentation). Each image is loaded (resized if asked), its feature
// planes F(x, y) computed (paper, Sec. 5.1) and, for each region of
// o.Regions, the regularised covariance C_R = 1/(n−1) Σ (z−μ)(z−μ)ᵀ
// (Tuzel et al. 2006, eq. 1) written, in input order whatever the number
// of workers.
//
// The files are written to temporary files in dir and renamed into place
// only when the run has succeeded, so that a failed or cancelled run
// leaves dir as it was. Describe returns the metadata it wrote.
//
// It returns an error for invalid options, no inputs or no images, an
// item whose path or label holds a line break, and, unless o.SkipBad, for
// the first image (in input order) that cannot be loaded, has non-finite
// pixels, does not fit the region layout or has a region whose descriptor
// is not positive definite after regularisation; the error names the
// image's path, and the region when one is at fault. It also returns the
// context's error when ctx is cancelled, and errors writing dir.
func Describe(ctx context.Context, inputs []*datasets.List, dir string, o Options) (*Meta, error) {
	p, meta, err := prepare(inputs, o)
	if err != nil {
		return nil, err
	}
	total := meta.totalImages()
	lo, hi := p.shard.Range(total)
	jobs := make([]job, 0, hi-lo)
	i := 0
	for k, l := range inputs {
		for j := range l.Items {
			if i >= lo && i < hi {
				jobs = append(jobs, job{input: k, item: &l.Items[j]})
			}
			i++
		}
	}

	out, err := createOutputs(dir, p.set.Dim(), p.skipBad)
	if err != nil {
		return nil, err
	}
	defer out.abort()
	rep := o.Reporter
	if rep == nil {
		rep = nopReporter{}
	}
	counts, err := p.run(ctx, jobs, len(inputs), out, rep)
	if err != nil {
		return nil, err
	}
	meta.Counts = counts
	if err := out.commit(&meta); err != nil {
		return nil, err
	}
	return &meta, nil
}

// prepare validates the options and inputs of a run and returns its plan
// and metadata without counts.
func prepare(inputs []*datasets.List, o Options) (*plan, Meta, error) {
	p, err := newPlan(o)
	if err != nil {
		return nil, Meta{}, err
	}
	if len(inputs) == 0 {
		return nil, Meta{}, errors.New("describe: no inputs")
	}
	total := 0
	for k, l := range inputs {
		if l == nil {
			return nil, Meta{}, fmt.Errorf("describe: input %d is nil", k)
		}
		for _, it := range l.Items {
			if strings.ContainsAny(it.Rel, "\r\n") || strings.ContainsAny(it.Label, "\r\n") {
				return nil, Meta{}, fmt.Errorf("describe: %q (label %q): a line break in a path or label cannot be written to a manifest", it.Path, it.Label)
			}
		}
		total += len(l.Items)
	}
	if total == 0 {
		return nil, Meta{}, fmt.Errorf("describe: %w: the inputs list no images", datasets.ErrEmpty)
	}
	return p, newMeta(p, inputs), nil
}

// Current reports whether dir holds the output of Describe(ctx, inputs,
// dir, o): whether its meta.json, but for the counts, is the one that run
// would write (same covpipe version, options, shard and inputs, down to
// the hash of their items). It does not read the other files; Read checks
// them. A folder without a readable meta.json (ErrOutput) is not current.
// Current returns the errors of invalid options or inputs, as Describe
// does, and of reading meta.json.
func Current(dir string, inputs []*datasets.List, o Options) (bool, error) {
	_, want, err := prepare(inputs, o)
	if err != nil {
		return false, err
	}
	got, err := ReadMeta(dir)
	if errors.Is(err, ErrOutput) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return got.diff(&want) == "" && (got.Shard == nil) == (want.Shard == nil) && (got.Shard == nil || *got.Shard == *want.Shard), nil
}

// job is one image of a run: an item of input number input.
type job struct {
	input int
	item  *datasets.Item
}

// slot holds the result of one image between its worker and the writer.
type slot struct {
	regions []covariance.Region
	data    []float64 // len(regions) descriptors, row-major d×d each
	err     error
	ready   bool // complete, not yet written (the writer's flag)
}

// run describes the images of jobs on a bounded pool of workers and
// writes the results in job order. Workers finish images in any order;
// a window of slots bounds how far they run ahead of the writer, so that
// memory does not grow with the number of images.
func (p *plan) run(ctx context.Context, jobs []job, inputs int, out *outputs, rep Reporter) (Counts, error) {
	n := len(jobs)
	c := Counts{Images: n}
	rep.Begin("describe", n)
	defer rep.End()
	if n == 0 {
		return c, nil
	}
	nw := min(pool.Workers(p.workers), n)
	workers := make([]*worker, nw)
	for k := range workers {
		w, err := p.newWorker()
		if err != nil {
			return c, err
		}
		workers[k] = w
	}
	window := p.window(nw)
	slots := make([]slot, window)
	d2 := p.set.Dim() * p.set.Dim()

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	// A worker takes a token of sem before it takes the next image, and
	// the writer returns one after writing an image: at most window
	// images are taken and not yet written, so when image i is taken,
	// image i−window has been written and slot i%window is free.
	sem := make(chan struct{}, window)
	done := make(chan int, window)
	var taken atomic.Int64
	for _, w := range workers {
		wg.Go(func() {
			for {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(taken.Add(1) - 1)
				if i >= n {
					return
				}
				s := &slots[i%window]
				if s.err = ctx.Err(); s.err == nil {
					s.err = w.describe(s, jobs[i].item)
				}
				done <- i
			}
		})
	}

	for next := 0; next < n; {
		s := &slots[next%window]
		if !s.ready {
			select {
			case i := <-done:
				slots[i%window].ready = true
			case <-ctx.Done():
				return c, fmt.Errorf("describe: %w", ctx.Err())
			}
			continue
		}
		s.ready = false
		j := jobs[next]
		out.path = appendPath(out.path[:0], j.input, inputs, j.item.Rel)
		if s.err != nil {
			if err := ctx.Err(); err != nil {
				return c, fmt.Errorf("describe: %w", err)
			}
			if !p.skipBad {
				return c, fmt.Errorf("describe: %w", s.err)
			}
			if err := failure(out, out.path, s.err.Error()); err != nil {
				return c, err
			}
			c.Failed++
		} else {
			for k, r := range s.regions {
				if err := out.descriptor(s.data[k*d2 : (k+1)*d2]); err != nil {
					return c, err
				}
				out.region = appendRegion(out.region[:0], r)
				if err := row(out, out.path, j.item.Label, out.region); err != nil {
					return c, err
				}
			}
			c.Described++
			c.Descriptors += len(s.regions)
		}
		<-sem
		next++
		rep.Advance(1)
	}
	return c, nil
}

// window returns the number of result slots for nw workers: 32 per
// worker, so that the writer, which the Go scheduler may run only every
// 10 ms or so while the workers keep the processors busy, does not stall
// them, but no more than fit in 32 MiB of descriptors (4 per worker at
// least).
func (p *plan) window(nw int) int {
	per := 1
	switch p.layout.Kind {
	case covariance.LayoutGrid:
		per = p.layout.Rows * p.layout.Cols
	case covariance.LayoutBlocks:
		per = p.layout.N
	}
	d := p.set.Dim()
	byBytes := (32 << 20) / (8*d*d*per + 1)
	return max(4*nw, min(32*nw, byBytes))
}

// worker holds the per-goroutine state of describing images, reused from
// one image to the next so that the steady state allocates only what the
// image decoders allocate.
type worker struct {
	p      *plan
	loader *imageio.Loader
	img    imageio.Image
	fm     features.Map
	ws     *features.Workspace
	ext    *covariance.Extractor
}

func (p *plan) newWorker() (*worker, error) {
	l, err := imageio.NewLoader(p.load)
	if err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	e, err := covariance.NewExtractor(p.set.Dim(), covariance.Options{Reg: p.reg})
	if err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	return &worker{p: p, loader: l, ws: p.set.NewWorkspace(), ext: e}, nil
}

// describe computes the descriptors of the image it into s.
func (w *worker) describe(s *slot, it *datasets.Item) error {
	if err := w.loader.Load(it.Path, &w.img); err != nil {
		return err // "load PATH: ..."
	}
	if err := w.p.set.ComputeTo(&w.fm, &w.img, w.ws); err != nil {
		return fmt.Errorf("features of %s: %w", it.Path, err)
	}
	regions, err := w.p.layout.AppendRegions(s.regions[:0], w.img.W, w.img.H, BlockSeed(w.p.seed, it.Rel))
	if err != nil {
		return fmt.Errorf("regions of %s: %w", it.Path, err)
	}
	s.regions = regions
	d := w.ext.Dim()
	if need := len(regions) * d * d; cap(s.data) < need {
		s.data = make([]float64, need)
	} else {
		s.data = s.data[:need]
	}
	if err := w.ext.Compute(s.data, w.fm.Planes, w.img.W, w.img.H, regions); err != nil {
		return fmt.Errorf("covariance of %s: %w", it.Path, err)
	}
	return nil
}

// BlockSeed returns the seed of the random blocks of the image with
// relative path rel (datasets.Item.Rel) in a run with seed seed: the
// 64-bit FNV-1a hash of seed's 8 bytes, little-endian, followed by the
// bytes of rel. It depends on nothing else, so an image gets the same
// blocks whatever the sharding, worker count or other inputs.
func BlockSeed(seed uint64, rel string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := range 8 {
		h = (h ^ (seed >> (8 * i) & 0xff)) * prime
	}
	for i := range len(rel) {
		h = (h ^ uint64(rel[i])) * prime
	}
	return h
}

type nopReporter struct{}

func (nopReporter) Begin(string, int) {}
func (nopReporter) Advance(int)       {}
func (nopReporter) End()              {}
