package hpe

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/appearance"
	"github.com/covpipe/covpipe/sdalf"
)

// DefaultLocal is the default number of local epitomes.
const DefaultLocal = 4

// Options configure Describe; the zero value gives the defaults, with no
// foreground mask (set Mask.Kind for one).
type Options struct {
	// Mask is the foreground mask's settings.
	Mask appearance.MaskOptions
	// Axes are the settings of the SDALF body-part partition.
	Axes sdalf.AxesOptions
	// Bins are the HSV histograms' bins; zero: appearance.DefaultBins.
	Bins appearance.Bins
	// Epitome are the generic epitome's settings.
	Epitome EpitomeOptions
	// Local is the number of local epitomes, >= 1; 0: DefaultLocal.
	Local int
}

// resolve returns o with its defaults filled in, or an error naming the
// option out of range.
func (o Options) resolve() (Options, error) {
	if err := o.Mask.Validate(); err != nil {
		return o, err
	}
	if err := o.Axes.Validate(); err != nil {
		return o, err
	}
	if o.Bins == (appearance.Bins{}) {
		o.Bins = appearance.DefaultBins()
	}
	if err := o.Bins.Validate(); err != nil {
		return o, err
	}
	var err error
	if o.Epitome, err = o.Epitome.resolve(); err != nil {
		return o, err
	}
	if o.Local == 0 {
		o.Local = DefaultLocal
	}
	if o.Local < 1 {
		return o, fmt.Errorf("local epitomes %d, want >= 1", o.Local)
	}
	return o, nil
}

// Validate returns an error naming the option out of range.
func (o Options) Validate() error {
	_, err := o.resolve()
	return err
}

// Local is a local epitome: the K×K window of the generic epitome at
// (X, Y) (wrapping around its edges), its means in Mean (pixel i, row
// major, channel c at 3i+c), Weight, the posterior weight of the
// patches mapped there, and Score, the weight times the window's
// heterogeneity (see Locals).
type Local struct {
	X, Y          int
	Weight, Score float64
	Mean          []float64
}

// Signature is the HPE signature of one identity seen in Images images
// (Bazzani et al., ICPR 2010, Sec. 2).
type Signature struct {
	Images int
	// Torso and Legs are the HSV histograms (appearance.Bins layout, each
	// summing to 1, or all 0 without foreground) of the foreground pixels
	// of the torso and of the legs over all the images: each image's
	// weighted bin counts (weight: the foreground mask) are added, then
	// the sum is normalised. The parts are those of the SDALF partition
	// (sdalf.FindAxes); the head is left out.
	Torso, Legs []float64
	// Generic is the generic epitome of the patches of all the images'
	// torsos and legs.
	Generic *Epitome
	// GenericHist is the HSV histogram of the generic epitome's means,
	// each epitome pixel weighted by its Usage.
	GenericHist []float64
	// Locals are the local epitomes, by decreasing score.
	Locals []Local
	// roots are the element-wise square roots of Torso, Legs and
	// GenericHist, computed once by Describe so that each comparison's
	// Bhattacharyya coefficients are dot products
	// (appearance.SqrtBhattacharyya); nil in a signature built otherwise.
	roots *[3][]float64
}

// Workspace holds Describe's buffers, reused from call to call; its zero
// value is ready to use, and it is not safe for concurrent use.
type Workspace struct {
	axes    sdalf.Workspace
	hsv     appearance.HSV
	mask    []float64
	hist    []float64
	patches Patches
	epitome epitomeWork
}

// Describe returns the HPE signature of the identity seen in imgs (one
// image or more) with the options o; see Workspace.Describe.
func Describe(ctx context.Context, imgs []*appearance.Image, o Options) (*Signature, error) {
	var ws Workspace
	return ws.Describe(ctx, imgs, o)
}

// Describe returns the HPE signature of the identity seen in imgs with
// the options o: each image's foreground mask (o.Mask) and SDALF axes
// (sdalf.FindAxes), the HSV histograms of torso and legs accumulated over
// the images, the generic epitome (FitEpitome) of the K×K patches taken
// every o.Epitome.Stride pixels from the rows below the head (each
// weighted by its mean mask), the usage-weighted histogram of its means,
// and the o.Local local epitomes (see Locals).
//
// It returns an error when imgs is empty, o is invalid, or an image is
// nil, invalid (appearance.Image.Validate), too small for the axes or
// with fewer than K rows below the head or columns, naming the image;
// when no patch has foreground weight; or wrapping ctx.Err() once ctx is
// cancelled (it looks between images and inside the epitome's EM).
func (ws *Workspace) Describe(ctx context.Context, imgs []*appearance.Image, o Options) (*Signature, error) {
	o, err := o.resolve()
	if err != nil {
		return nil, err
	}
	if len(imgs) == 0 {
		return nil, fmt.Errorf("hpe signature of no image")
	}
	n := o.Bins.Len()
	s := &Signature{Images: len(imgs), Torso: make([]float64, n), Legs: make([]float64, n)}
	k := o.Epitome.Patch
	ws.patches.K = k
	ws.patches.Values = ws.patches.Values[:0]
	ws.patches.Weights = ws.patches.Weights[:0]
	ws.hist = appearance.Grow(ws.hist, n)
	for m, img := range imgs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("hpe signature: %w", err)
		}
		if img == nil {
			return nil, fmt.Errorf("image %d: nil", m)
		}
		if err := ws.addImage(s, img, o); err != nil {
			return nil, fmt.Errorf("image %d: %w", m, err)
		}
	}
	normalise(s.Torso)
	normalise(s.Legs)
	if s.Generic, err = ws.epitome.fit(ctx, &ws.patches, o.Epitome); err != nil {
		return nil, err
	}
	if s.GenericHist, err = epitomeHistogram(s.Generic, o.Bins); err != nil {
		return nil, err
	}
	s.Locals = Locals(s.Generic, o.Local)
	s.roots = &[3][]float64{sqrts(s.Torso), sqrts(s.Legs), sqrts(s.GenericHist)}
	return s, nil
}

// sqrts returns the element-wise square roots of h.
func sqrts(h []float64) []float64 {
	r := make([]float64, len(h))
	for i, v := range h {
		r[i] = math.Sqrt(v)
	}
	return r
}

// addImage adds img's histogram counts to s and its patches to
// ws.patches.
func (ws *Workspace) addImage(s *Signature, img *appearance.Image, o Options) error {
	if err := img.Validate(); err != nil {
		return err
	}
	w, h := img.W, img.H
	ws.mask = appearance.Grow(ws.mask, w*h)
	if err := appearance.ForegroundTo(ws.mask, img, o.Mask); err != nil {
		return err
	}
	if err := appearance.HSVTo(&ws.hsv, img); err != nil {
		return err
	}
	axes, err := ws.axes.FindAxes(&ws.hsv, ws.mask, o.Axes)
	if err != nil {
		return err
	}
	k := o.Epitome.Patch
	if h-axes.HeadTorso < k || w < k {
		return fmt.Errorf("%d×%d image with %d rows below the head, want at least %d rows and columns for the epitome's patches", w, h, h-axes.HeadTorso, k)
	}
	for _, part := range []struct {
		r0, r1 int
		dst    []float64
	}{{axes.HeadTorso, axes.TorsoLegs, s.Torso}, {axes.TorsoLegs, h, s.Legs}} {
		if err := appearance.WeightedHistogramTo(ws.hist, &ws.hsv, ws.mask, part.r0, part.r1, o.Bins); err != nil {
			return err
		}
		// WeightedHistogramTo divides the counts by 3·Σ mask; undo it so
		// that images add in proportion to their foreground.
		var total float64
		for _, v := range ws.mask[part.r0*w : part.r1*w] {
			total += v
		}
		for i, v := range ws.hist {
			part.dst[i] += 3 * total * v
		}
	}
	stride := o.Epitome.Stride
	for y := axes.HeadTorso; y+k <= h; y += stride {
		for x := 0; x+k <= w; x += stride {
			var weight float64
			for dy := range k {
				for dx := range k {
					i := (y+dy)*w + x + dx
					weight += ws.mask[i]
					ws.patches.Values = append(ws.patches.Values, img.R[i], img.G[i], img.B[i])
				}
			}
			ws.patches.Weights = append(ws.patches.Weights, weight/float64(k*k))
		}
	}
	return nil
}

// normalise divides h by its sum, unless it is 0.
func normalise(h []float64) {
	var sum float64
	for _, v := range h {
		sum += v
	}
	if sum > 0 {
		for i := range h {
			h[i] /= sum
		}
	}
}

// epitomeHistogram returns the HSV histogram of e's means, each pixel
// weighted by its usage.
func epitomeHistogram(e *Epitome, bins appearance.Bins) ([]float64, error) {
	n := e.W * e.H
	r, g, b := make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range n {
		r[j] = min(1, max(0, e.Mean[3*j]))
		g[j] = min(1, max(0, e.Mean[3*j+1]))
		b[j] = min(1, max(0, e.Mean[3*j+2]))
	}
	img, err := appearance.NewImage(e.W, e.H, r, g, b)
	if err != nil {
		return nil, fmt.Errorf("generic epitome: %w", err)
	}
	hsv, err := appearance.ToHSV(img)
	if err != nil {
		return nil, fmt.Errorf("generic epitome: %w", err)
	}
	return appearance.WeightedHistogram(hsv, e.Usage, 0, e.H, bins)
}

// Locals returns up to count local epitomes of e: the windows of e
// (K×K, at every position) in decreasing score w·σ, with w the window's
// Position weight, how many patches map there (a recurrent motif of the
// images), and σ its heterogeneity, the root-mean-square deviation of its
// means from their average colour (a plain window tells nothing the
// histograms do not); ties by weight, then by position. Each is at least
// K/2 pixels (Chebyshev distance on the torus, at least 1) from those
// already taken, so that they are not shifts of one motif by a pixel.
func Locals(e *Epitome, count int) []Local {
	n, k := e.W*e.H, e.K
	window := func(t, i int) int { return ((t/e.W+i/k)%e.H)*e.W + (t%e.W+i%k)%e.W }
	score := make([]float64, n)
	for t := range n {
		var mean [3]float64
		for i := range k * k {
			for c := range 3 {
				mean[c] += e.Mean[3*window(t, i)+c]
			}
		}
		var dev float64
		for i := range k * k {
			for c := range 3 {
				d := e.Mean[3*window(t, i)+c] - mean[c]/float64(k*k)
				dev += d * d
			}
		}
		score[t] = e.Position[t] * math.Sqrt(dev/float64(3*k*k))
	}
	order := make([]int, n)
	for t := range order {
		order[t] = t
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(score[b], score[a]), cmp.Compare(e.Position[b], e.Position[a]))
	})
	sep := max(1, k/2)
	torus := func(a, b, size int) int {
		d := (a - b + size) % size
		return min(d, size-d)
	}
	var out []Local
	for _, t := range order {
		if len(out) == count {
			break
		}
		x, y := t%e.W, t/e.W
		if slices.ContainsFunc(out, func(l Local) bool {
			return max(torus(x, l.X, e.W), torus(y, l.Y, e.H)) < sep
		}) {
			continue
		}
		l := Local{X: x, Y: y, Weight: e.Position[t], Score: score[t], Mean: make([]float64, 3*k*k)}
		for i := range k * k {
			j := window(t, i)
			copy(l.Mean[3*i:3*i+3], e.Mean[3*j:3*j+3])
		}
		out = append(out, l)
	}
	return out
}
