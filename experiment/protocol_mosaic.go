package experiment

import (
	"errors"
	"fmt"
	"image"
	"strings"
	"time"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/imageio"
)

// MosaicConfig is a texture mosaic whose regions are classified.
type MosaicConfig struct {
	// Image and Labels are the mosaic and its label map, relative to the
	// data root (USC-SIPI style: grey levels are labels). Relative paths
	// must stay under the root; absolute ones read anywhere.
	Image  string `yaml:"image,omitempty" json:"image,omitempty"`
	Labels string `yaml:"labels,omitempty" json:"labels,omitempty"`
	// Build composes a mosaic from the Brodatz album instead.
	Build *MosaicBuild `yaml:"build,omitempty" json:"build,omitempty"`
	// MinPurity is the smallest fraction of a region's pixels that must
	// carry its majority label for the region to be used (default 0.75).
	MinPurity float64 `yaml:"min_purity,omitempty" json:"min_purity,omitempty"`
}

// MosaicBuild configures datasets.BuildMosaic.
type MosaicBuild struct {
	// Album is the Brodatz folder relative to the data root (default
	// "brodatz"), which it must stay under unless absolute.
	Album string `yaml:"album,omitempty" json:"album,omitempty"`
	// Textures is the number of textures (5, 10, 16 in the paper).
	Textures int `yaml:"textures" json:"textures"`
	// Layout is grid (default) or voronoi.
	Layout string `yaml:"layout,omitempty" json:"layout,omitempty"`
	// Seed fixes the textures and layout.
	Seed uint64 `yaml:"seed" json:"seed"`
}

// mosaicTask classifies the grid regions of one texture mosaic (the
// paper's Fig. 4 protocol): regions whose label-map purity reaches the
// minimum, labelled by their majority texture, with k random training
// regions per class in every repeat.
type mosaicTask struct {
	Name   string       `yaml:"name" json:"name"`
	Mosaic MosaicConfig `yaml:"mosaic" json:"mosaic"`
	Split  SplitConfig  `yaml:"split" json:"split"`
	// allButOne is split.short_classes, resolved.
	allButOne bool
	data      *dataPlan
	layout    datasets.Layout
}

func newMosaic(t *config.TaskSpec, data *dataPlan, _ map[string]bool) (protocol, error) {
	p := &mosaicTask{data: data}
	if err := decodeTask(t, p); err != nil {
		return nil, err
	}
	m := p.Mosaic
	var err error
	if p.allButOne, err = p.Split.allButOne(); err != nil {
		return nil, err
	}
	switch {
	case data == nil:
		return nil, errors.New("a mosaic task needs the data section (features, regions, ridge)")
	case p.Split.TrainPerClass < 1 || p.Split.By != "":
		return nil, errors.New("a mosaic task needs split: {train_per_class: k}")

	case (m.Build == nil) == (m.Image == ""):
		return nil, errors.New("mosaic: give either image and labels, or build")
	case m.Image != "" && m.Labels == "":
		return nil, errors.New("mosaic: image needs its labels map")
	case m.Build != nil && m.Build.Textures < 2:
		return nil, fmt.Errorf("mosaic build: textures = %d, want >= 2", m.Build.Textures)
	case m.MinPurity < 0 || m.MinPurity > 1:
		return nil, fmt.Errorf("mosaic: min_purity = %v, want in [0, 1]", m.MinPurity)
	case data.layout.Kind != covariance.LayoutGrid:
		return nil, fmt.Errorf("mosaic: regions must be a grid (e.g. grid:8x8), got %s", data.layout)
	case m.Build != nil && data.w != data.h:
		return nil, fmt.Errorf("mosaic build: resize %dx%d, want a square canvas", data.w, data.h)
	}
	if m.Build != nil {
		switch m.Build.Layout {
		case "", "grid":
			p.layout = datasets.GridLayout
		case "voronoi":
			p.layout = datasets.VoronoiLayout
		default:
			return nil, fmt.Errorf("mosaic build: layout %q, want grid or voronoi", m.Build.Layout)
		}
	}
	return p, nil
}

func (p *mosaicTask) offer() offer { return offer{dims: []int{p.data.features.Dim()}} }

// paths lists the mosaic's paths, read relative to the data root, with
// their keys under mosaic.
func (p *mosaicTask) paths() []rootPath {
	out := []rootPath{{[]string{"image"}, p.Mosaic.Image}, {[]string{"labels"}, p.Mosaic.Labels}}
	if b := p.Mosaic.Build; b != nil {
		out = append(out, rootPath{[]string{"build", "album"}, b.Album})
	}
	return out
}

func (p *mosaicTask) open(e *engine, ti int) (*drawer, error) {
	t0 := time.Now()
	variants, notes, err := p.load(e)
	if err != nil {
		return nil, err
	}
	e.addTime("extraction", t0)
	e.setWorkers(variants)
	return randomDrawer(e, ti, newDataset(variants), p.Split.TrainPerClass, p.allButOne, notes)
}

// load makes one Data per ridge candidate from the mosaic, and notes on
// its textures and dropped regions.
func (p *mosaicTask) load(e *engine) ([]*classify.Data, []string, error) {
	root, dp, m := e.opts.DataRoot, p.data, p.Mosaic
	var img *imageio.Image
	var labels *datasets.LabelMap
	var notes []string
	levelName := func(level int) string { return fmt.Sprintf("level %d", level) }
	if m.Build != nil {
		album := m.Build.Album
		if album == "" {
			album = "brodatz"
		}
		list, err := openDataset(root, "brodatz:"+album)
		if err != nil {
			return nil, nil, err
		}
		size := 256
		if dp.w != 0 {
			size = dp.w
		}
		mo, err := datasets.BuildMosaic(list, datasets.MosaicOptions{K: m.Build.Textures, Size: size, Layout: p.layout}, m.Build.Seed)
		if err != nil {
			return nil, nil, fmt.Errorf("mosaic build: %w", err)
		}
		gray := make([]float64, len(mo.Gray))
		for i, v := range mo.Gray {
			gray[i] = v / 255
		}
		img = &imageio.Image{W: mo.W, H: mo.H, Gray: gray}
		labels = mo.Labels
		notes = append(notes, fmt.Sprintf("textures %s", strings.Join(mo.Textures, ", ")))
		levelName = func(level int) string {
			for i, l := range mo.Levels {
				if l == level {
					return mo.Textures[i]
				}
			}
			return fmt.Sprintf("level %d", level)
		}
	} else {
		var err error
		img, err = imageio.Load(underData(root, m.Image), imageio.Options{Width: dp.w, Height: dp.h, Filter: dp.filter, JPEGScale: dp.jpeg})
		if err != nil {
			return nil, nil, fmt.Errorf("mosaic (data root %q): %w", root, err)
		}
		if labels, err = datasets.LoadLabelMap(underData(root, m.Labels)); err != nil {
			return nil, nil, fmt.Errorf("mosaic labels (data root %q): %w", root, err)
		}
	}
	regions, err := covariance.Grid(img.W, img.H, dp.layout.Rows, dp.layout.Cols)
	if err != nil {
		return nil, nil, err
	}
	rects := make([]image.Rectangle, len(regions))
	for i, r := range regions {
		rects[i] = image.Rect(r.X, r.Y, r.X+r.W, r.Y+r.H)
	}
	purity := m.MinPurity
	if purity == 0 {
		purity = 0.75
	}
	rl, err := labels.LabelRegions(rects, datasets.RegionOptions{Width: img.W, Height: img.H, MinPurity: purity})
	if err != nil {
		return nil, nil, err
	}
	if len(rl.Dropped) > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d regions below purity %.2f dropped", len(rl.Dropped), len(regions), purity))
	}
	if len(rl.Kept) == 0 {
		return nil, nil, errors.New("mosaic: no region reaches the minimum purity")
	}
	kept := make([]covariance.Region, len(rl.Kept))
	levels := map[int]int{}
	var classes []string
	lab := make([]int, len(rl.Kept))
	for i, k := range rl.Kept {
		kept[i] = regions[k.Index]
		c, ok := levels[k.Label]
		if !ok {
			c = len(classes)
			levels[k.Label] = c
			classes = append(classes, levelName(k.Label))
		}
		lab[i] = c
	}
	var out []*classify.Data
	for _, reg := range dp.regs {
		set, err := e.describeRegions(img, kept, reg)
		if err != nil {
			return nil, nil, fmt.Errorf("mosaic descriptors: %w", err)
		}
		out = append(out, &classify.Data{Set: set, Labels: lab, Classes: classes, Ridge: reg.Eps})
	}
	return out, notes, nil
}
