package describe

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/store"
)

// Describe computes the covariance descriptors of the images of inputs,
// concatenated in order (each datasets.List in its own order, sorted by
// relative path), or of the part o.Shard selects, and writes them into the
// folder dir, which it creates if needed, in package store's format
// (store.Create): descriptors.npy, manifest.csv, meta.json and, with
// o.SkipBad, failures.csv, with o.Vectors vectors.npy. Each image is
// loaded (resized if asked), its feature planes F(x, y) computed (paper,
// Sec. 5.1) and, for each region of o.Regions, the regularised covariance
// C_R = 1/(n−1) Σ (z−μ)(z−μ)ᵀ (Tuzel et al. 2006, eq. 1) written, in
// input order whatever the number of workers. It is Extractor.Run with a
// sink that writes the folder.
//
// The folder is written as one output set (store.Folder): its lock is
// taken before any image is read, so a folder that another process is
// writing, or that cannot be written, fails at once; the files appear
// only when the run has succeeded, so that a failed, cancelled or killed
// run leaves dir as it was. Describe returns the metadata it wrote;
// store.Read reads the folder back.
//
// It returns an error for invalid options, no inputs or no images, an
// item whose path or label holds a line break, and, unless o.SkipBad, for
// the first image (in input order) that cannot be loaded (a symbolic link
// that cannot be followed too), would take more memory than
// o.MaxMemory (ErrMemory), has non-finite pixels, does not fit the region
// layout or has a region whose descriptor is not positive definite after
// regularisation; the error, an *ImageError, names the image's path, and
// the region when one is at fault (for a grid that does not divide the
// image, it suggests a size that it divides). With o.SkipBad, a run (not a shard) where every image
// fails is an error naming the first. It also returns the context's error
// when ctx is cancelled, and the errors of store.CreateFolder and of
// writing dir.
func Describe(ctx context.Context, inputs []*datasets.List, dir string, o Options) (*store.Meta, error) {
	e, err := NewExtractor(o)
	if err != nil {
		return nil, err
	}
	f, err := store.CreateFolder(ctx, dir, store.Format)
	if err != nil {
		return nil, err
	}
	return e.Into(ctx, inputs, f)
}

// Into is Describe into f, a folder of store.Format that the caller has
// created (and so locked), such as a cache entry taken with
// store.WaitFolder: it commits f, or aborts it when the run fails.
func (e *Extractor) Into(ctx context.Context, inputs []*datasets.List, f *store.Folder) (*store.Meta, error) {
	defer f.Abort()
	return e.Run(ctx, inputs, &folder{f: f})
}

// CollectInto is Collect writing the output into the folder f as Into
// does, while it can: when writing f fails (a full disk, a read-only or
// removed folder), it aborts f, calls failed once with the error, and
// goes on in memory, so that the descriptors computed are not lost. It
// returns what Collect returns, and its errors. It aborts f unless it
// committed it.
func (e *Extractor) CollectInto(ctx context.Context, inputs []*datasets.List, f *store.Folder, failed func(error)) (*store.Output, error) {
	defer f.Abort()
	t := &tee{f: &folder{f: f}, failed: failed}
	if _, err := e.Run(ctx, inputs, t); err != nil {
		return nil, err
	}
	return &t.c.out, nil
}

// Collect is Describe into memory: it returns what store.Read would
// return of the folder that Describe(ctx, inputs, dir, o) writes (the
// same Meta but for its Files, which stay nil, and the same Rows, Data
// and Vectors, bit for bit), without writing any file. It returns the
// errors of Describe but those of writing.
func Collect(ctx context.Context, inputs []*datasets.List, o Options) (*store.Output, error) {
	e, err := NewExtractor(o)
	if err != nil {
		return nil, err
	}
	var c collector
	if _, err := e.Run(ctx, inputs, &c); err != nil {
		return nil, err
	}
	return &c.out, nil
}

// Extractor computes covariance descriptors with validated Options: of
// the images of datasets.Lists, streamed in order to a Sink (Run), and of
// given regions of an image already in memory (Regions), through the same
// per-image code, so that both give the same numbers. Its methods must
// not be called concurrently; Run describes images concurrently on
// workers of its own.
type Extractor struct {
	p *plan
	w *worker // of Regions, made on first use
}

// NewExtractor validates o and returns an Extractor for it. It returns an
// error naming the offending option for an invalid size, filter, region
// layout, regularisation, shard or worker count.
func NewExtractor(o Options) (*Extractor, error) {
	p, err := newPlan(o)
	if err != nil {
		return nil, err
	}
	return &Extractor{p: p}, nil
}

// Dim returns the number of features d: each descriptor is d×d.
func (e *Extractor) Dim() int { return e.p.set.Dim() }

// Run describes the images of inputs, as Describe does (same order,
// shard, workers, progress and errors), and streams the results to sink:
// Begin with the run's metadata, then for each image in input order
// Descriptors or, with Options.SkipBad, Failed, then Commit with the
// counts filled in. When the run fails after Begin, Run calls Abort,
// whether or not Commit was called, and returns the error. It returns
// the metadata it committed.
func (e *Extractor) Run(ctx context.Context, inputs []*datasets.List, sink Sink) (*store.Meta, error) {
	p := e.p
	meta, err := p.meta(inputs)
	if err != nil {
		return nil, err
	}
	total := meta.TotalImages()
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
	if err := sink.Begin(&meta); err != nil {
		sink.Abort()
		return nil, err
	}
	counts, err := p.run(ctx, jobs, sink)
	if err == nil {
		meta.Counts = counts
		err = sink.Commit(&meta)
	}
	if err != nil {
		sink.Abort()
		return nil, err
	}
	return &meta, nil
}

// Regions returns the descriptors of the given regions of img: the
// features of Options.Features at every pixel (paper, Sec. 5.1), then for
// each region the covariance C = 1/(n−1) Σ (z−μ)(z−μ)ᵀ (Tuzel et al.
// 2006, eq. 1), or the shrunk estimate of Options.Estimator, with the
// ridge of Options.Reg and the normalisation of Options.Normalize,
// checked positive definite, as Run computes them: descriptor k is the row-major d×d block
// [k·d·d, (k+1)·d·d) of the result. img is taken as it is (Options.Width,
// Height and Filter apply to the images Run loads), and the regions as
// given (Options.Regions and Seed place the regions of Run); it needs the
// colour planes when the features read R, G or B.
//
// It returns an error naming the image's size, and the region when one is
// at fault, for an image the features refuse (missing planes,
// non-finite pixels), a region that does not fit the image or has fewer
// than 2 pixels, and a descriptor that is not positive definite after
// regularisation (wrapping covariance.ErrNotSPD).
func (e *Extractor) Regions(img *imageio.Image, regions []covariance.Region) ([]float64, error) {
	d := e.Dim()
	dst := make([]float64, len(regions)*d*d)
	if err := e.RegionsTo(dst, img, regions); err != nil {
		return nil, err
	}
	return dst, nil
}

// RegionsTo is Regions writing into dst, which must have length
// len(regions)·d·d; it reuses the Extractor's buffers, so that describing
// images of one size allocates nothing. On error the contents of dst are
// unspecified.
func (e *Extractor) RegionsTo(dst []float64, img *imageio.Image, regions []covariance.Region) error {
	if img == nil {
		return errors.New("describe: nil image")
	}
	if e.w == nil {
		w, err := e.p.newWorker(false)
		if err != nil {
			return err
		}
		e.w = w
	}
	if err := e.w.features(img); err != nil {
		return fmt.Errorf("describe: features of the %dx%d image: %w", img.W, img.H, err)
	}
	if err := e.w.covariance(dst, regions); err != nil {
		return fmt.Errorf("describe: covariance of the %dx%d image: %w", img.W, img.H, err)
	}
	return nil
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
	vector  []float64 // Options.Vectors' vector, when asked for
	grey    bool      // the features read colour but R = G = B
	err     error
	ready   bool // complete, not yet written (the writer's flag)
}

// run describes the images of jobs on a bounded pool of workers and
// passes the results to sink in job order. Workers finish images in any
// order; a window of slots bounds how far they run ahead of the sink, so
// that memory does not grow with the number of images.
func (p *plan) run(ctx context.Context, jobs []job, sink Sink) (store.Counts, error) {
	n := len(jobs)
	c := store.Counts{Images: n}
	var vs VectorSink
	if p.vec.Features != nil {
		var ok bool
		if vs, ok = sink.(VectorSink); !ok {
			return c, errors.New("describe: vectors were asked for, but the sink does not take them (Describe's and Collect's do)")
		}
	}
	p.rep.Begin("describe", n)
	defer p.rep.End()
	if n == 0 {
		return c, nil
	}
	nw := min(pool.Workers(p.workers), n)
	mem := newBudget(p.maxMemory)
	share := p.maxMemory / int64(nw)
	workers := make([]*worker, nw)
	for k := range workers {
		w, err := p.newWorker(true)
		if err != nil {
			return c, err
		}
		workers[k] = w
	}
	window := p.window(nw)
	slots := make([]slot, window)

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	// A worker takes a token of sem before it takes the next image, and
	// the writer returns one after passing an image on: at most window
	// images are taken and not yet passed on, so when image i is taken,
	// image i−window has been passed on and slot i%window is free.
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
					s.err = w.describeWithin(ctx, mem, share, s, jobs[i].item)
				}
				done <- i
			}
		})
	}

	var firstFailure error
	vecLen := 0 // of the vectors, once the first is passed on
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
		if s.err != nil {
			if err := ctx.Err(); err != nil {
				return c, fmt.Errorf("describe: %w", err)
			}
			if !p.skipBad {
				return c, fmt.Errorf("describe: %w", &ImageError{Path: j.item.Path, Err: s.err})
			}
			if err := sink.Failed(j.input, j.item, s.err); err != nil {
				return c, err
			}
			if c.Failed == 0 {
				firstFailure = s.err
			}
			c.Failed++
		} else {
			if vs != nil {
				if c.Described > 0 && len(s.vector) != vecLen {
					return c, fmt.Errorf("describe: vector of %s has %d values, the earlier images' %d (images of different sizes: resize them)", j.item.Path, len(s.vector), vecLen)
				}
				vecLen = len(s.vector)
				if err := vs.Vector(j.input, j.item, s.vector); err != nil {
					return c, err
				}
			}
			if err := sink.Descriptors(j.input, j.item, s.regions, s.data); err != nil {
				return c, err
			}
			c.Described++
			c.Descriptors += len(s.regions)
			if s.grey {
				c.Grey++
			}
		}
		<-sem
		next++
		p.rep.Advance(1)
	}
	// A shard of failures is no error: Merge checks the whole run.
	if c.Described == 0 && p.shard.Count <= 1 {
		return c, fmt.Errorf("describe: all %s failed, so no output was written; the first: %w", plural.Of(c.Failed, "image"), firstFailure)
	}
	return c, nil
}

// budget is a counting semaphore of bytes: the memory that the images in
// progress may take.
type budget struct {
	mu   sync.Mutex
	free int64
	wake chan struct{} // closed, and replaced, by every release
}

func newBudget(n int64) *budget { return &budget{free: n, wake: make(chan struct{})} }

// acquire takes n bytes, waiting until they are free or ctx is done.
func (b *budget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if n <= b.free {
			b.free -= n
			b.mu.Unlock()
			return nil
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release returns n bytes taken by acquire.
func (b *budget) release(n int64) {
	b.mu.Lock()
	b.free += n
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

// imageMemory returns the estimated memory, in bytes, of describing an
// image stored at w×h pixels: 8 bytes (a float64) per pixel of each plane
// (see "Memory" in the package documentation), and the number of image
// and feature planes it counts.
func (p *plan) imageMemory(w, h int) (bytes int64, imagePlanes, featurePlanes int) {
	imagePlanes, featurePlanes = 1, p.set.Dim()
	if p.load.Color {
		imagePlanes = 4 // grey, R, G, B
	}
	if p.vec.Features != nil {
		featurePlanes += p.vec.Features.Dim()
	}
	src := int64(w) * int64(h)
	if p.load.Width == 0 {
		return 8 * src * int64(imagePlanes+featurePlanes), imagePlanes, featurePlanes
	}
	dst := int64(p.load.Width) * int64(p.load.Height)
	return 8 * (src*int64(imagePlanes) + dst*int64(imagePlanes+featurePlanes)), imagePlanes, featurePlanes
}

// describeWithin describes the image it into s as describe does, once
// its estimated memory, read from its header, fits in mem; it fails
// naming the image when the estimate exceeds the whole limit, and for a
// symbolic link that cannot be followed. When the image took more than a
// worker's share of the limit, the worker drops its buffers afterwards,
// so that an idle worker does not hold memory sized for it.
func (w *worker) describeWithin(ctx context.Context, mem *budget, share int64, s *slot, it *datasets.Item) error {
	need := int64(0)
	f, err := os.Open(it.Path)
	if err != nil {
		if target, lerr := os.Readlink(it.Path); lerr == nil {
			return fmt.Errorf("load %s: symbolic link to %s that cannot be followed: %w", it.Path, target, err)
		}
		return fmt.Errorf("load %s: %w", it.Path, err)
	}
	cfg, _, err := image.DecodeConfig(bufio.NewReader(f))
	f.Close()
	if err == nil { // else loading reports the error
		var planes, fplanes int
		need, planes, fplanes = w.p.imageMemory(cfg.Width, cfg.Height)
		if need > w.p.maxMemory {
			return fmt.Errorf("load %s: a %dx%d image takes about %s as %d image and %d feature planes of float64, %w of %s: raise it with --max-memory (describe.Options.MaxMemory) or shrink the images (--resize)",
				it.Path, cfg.Width, cfg.Height, formatMemory(need), planes, fplanes, ErrMemory, formatMemory(w.p.maxMemory))
		}
	}
	if err := mem.acquire(ctx, need); err != nil {
		return err
	}
	defer mem.release(need)
	err = w.describe(s, it)
	if need > share {
		if fresh, ferr := w.p.newWorker(true); ferr == nil {
			*w = *fresh
		}
	}
	return err
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
	loader *imageio.Loader // nil for Extractor.Regions, which loads nothing
	img    imageio.Image
	fm     features.Map
	ws     *features.Workspace
	ext    *covariance.Extractor
	// The planes of Options.Vectors.
	vfm features.Map
	vws *features.Workspace
}

// newWorker returns a worker of p, with an image loader if load.
func (p *plan) newWorker(load bool) (*worker, error) {
	w := &worker{p: p, ws: p.set.NewWorkspace()}
	var err error
	if load {
		if w.loader, err = imageio.NewLoader(p.load); err != nil {
			return nil, fmt.Errorf("describe: %w", err)
		}
	}
	if w.ext, err = covariance.NewExtractor(p.set.Dim(), p.covOptions()); err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	return w, nil
}

// describe computes the descriptors of the image it into s: it loads the
// image, then takes the steps of Extractor.RegionsTo with the regions of
// the layout.
func (w *worker) describe(s *slot, it *datasets.Item) error {
	if err := w.loader.Load(it.Path, &w.img); err != nil {
		return err // "load PATH: ..."
	}
	if err := w.features(&w.img); err != nil {
		return fmt.Errorf("features of %s: %w", it.Path, err)
	}
	s.grey = w.p.set.NeedsColor() && slices.Equal(w.img.R, w.img.G) && slices.Equal(w.img.G, w.img.B)
	regions, err := w.p.layout.AppendRegions(s.regions[:0], w.img.W, w.img.H, BlockSeed(w.p.seed, it.Rel))
	if err != nil {
		return fmt.Errorf("regions of %s: %w%s", it.Path, err, w.p.resizeHint(w.img.W, w.img.H))
	}
	s.regions = regions
	d := w.ext.Dim()
	if need := len(regions) * d * d; cap(s.data) < need {
		s.data = make([]float64, need)
	} else {
		s.data = s.data[:need]
	}
	if err := w.covariance(s.data, regions); err != nil {
		return fmt.Errorf("covariance of %s: %w", it.Path, err)
	}
	if v := w.p.vec; v.Features != nil {
		if w.vws == nil {
			w.vws = v.Features.NewWorkspace()
		}
		if err := v.Features.ComputeTo(&w.vfm, &w.img, w.vws); err != nil {
			return fmt.Errorf("vector features of %s: %w", it.Path, err)
		}
		s.vector = s.vector[:0]
		for _, plane := range w.vfm.Planes {
			for y := 0; y < w.vfm.H; y += v.Step {
				for x := 0; x < w.vfm.W; x += v.Step {
					s.vector = append(s.vector, plane[y*w.vfm.W+x])
				}
			}
		}
	}
	return nil
}

// features computes the feature planes of img into w.fm.
func (w *worker) features(img *imageio.Image) error {
	return w.p.set.ComputeTo(&w.fm, img, w.ws)
}

// covariance writes the regularised descriptors of regions of the
// feature planes in w.fm into dst.
func (w *worker) covariance(dst []float64, regions []covariance.Region) error {
	return w.ext.Compute(dst, w.fm.Planes, w.fm.W, w.fm.H, regions)
}

// BlockSeed returns the seed of the random blocks of the image with
// relative path rel (datasets.Item.Rel) in a run with seed seed: the
// 64-bit FNV-1a hash (hash/fnv.New64a) of seed's 8 bytes, little-endian,
// followed by the bytes of rel. It depends on nothing else, so an image
// gets the same blocks whatever the sharding, worker count or other
// inputs.
func BlockSeed(seed uint64, rel string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(rel))
	return h.Sum64()
}
