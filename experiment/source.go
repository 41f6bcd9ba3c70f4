package experiment

import (
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/spd"
)

// DataRootEnv names the environment variable that locates the data root
// when no --data flag is given.
const DataRootEnv = "COVPIPE_DATA"

// DataRoot resolves the data root: the flag value if set, else
// $COVPIPE_DATA, else ./data.
func DataRoot(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv(DataRootEnv); env != "" {
		return env
	}
	return "data"
}

// expected describes what each kind of dataset folder should contain, for
// the error a missing dataset gets.
var expected = map[string]string{
	"feret":   "FERET images named SSSSSxx.ext (5-digit subject id and pose code ba, bj, bk, bd, be, bf, bg), e.g. 00001ba.png",
	"brodatz": "the Brodatz album, one image per texture named D<n>.ext, e.g. D1.gif ... D112.gif",
	"mars":    "one folder per person id holding its images, named <pid>C<camera>T<tracklet>F<frame>.jpg",
	"folders": "one folder per class holding its images (a plain folder of images has no labels)",
	"csv":     "a CSV manifest with a header and path,label columns",
}

// openDataset opens a datasets.Open spec whose path is relative to root,
// explaining what was expected when it is missing.
func openDataset(root, spec string) (*datasets.List, error) {
	kind, path := datasetPath(root, spec)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("dataset %q: %s not found (data root %q, set by --data, $%s or ./data): expected %s",
			spec, path, root, DataRootEnv, expected[kind])
	}
	l, err := datasets.Open(kind + ":" + path)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w (expected %s)", spec, err, expected[kind])
	}
	return l, nil
}

// descriptorOptions are the resolved descriptor settings of a DataConfig.
type descriptorOptions struct {
	features *features.Set
	w, h     int
	filter   imageio.Filter
	layout   covariance.Layout
}

func (d *DataConfig) resolve() (descriptorOptions, error) {
	var o descriptorOptions
	var err error
	if o.features, err = features.ParseWithGaborBorder(d.Features, d.GaborBorder); err != nil {
		return o, err
	}
	if d.Resize != "" {
		if o.w, o.h, err = imageio.ParseSize(d.Resize); err != nil {
			return o, fmt.Errorf("resize %w", err)
		}
	}
	if o.filter, err = imageio.ParseFilter(d.Filter); err != nil {
		return o, fmt.Errorf("filter %w", err)
	}
	regions := d.Regions
	if regions == "" {
		regions = "whole"
	}
	o.layout, err = covariance.ParseLayout(regions)
	return o, err
}

// regularization returns the data's ridge of strength ε (none when ε = 0).
func (d *DataConfig) regularization(eps float64) covariance.Regularization {
	if eps == 0 {
		return covariance.Regularization{Kind: covariance.None}
	}
	kind, _ := covariance.ParseRegKind(d.RidgeKind) // checked by validate
	return covariance.Regularization{Kind: kind, Eps: eps}
}

// mosaicData makes one Data per ridge value from a texture mosaic: the
// image's grid regions whose label-map purity reaches the minimum, labelled
// by their majority texture. It also returns notes on dropped regions.
func mosaicData(root string, m *MosaicConfig, dc *DataConfig, seed uint64) ([]*Data, []string, error) {
	o, err := dc.resolve()
	if err != nil {
		return nil, nil, err
	}
	if o.layout.Kind != covariance.LayoutGrid {
		return nil, nil, fmt.Errorf("mosaic: regions must be a grid (e.g. grid:8x8), got %s", o.layout)
	}
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
		if o.w != 0 {
			if o.w != o.h {
				return nil, nil, fmt.Errorf("mosaic build: resize %dx%d, want a square canvas", o.w, o.h)
			}
			size = o.w
		}
		layout := datasets.GridLayout
		switch m.Build.Layout {
		case "", "grid":
		case "voronoi":
			layout = datasets.VoronoiLayout
		default:
			return nil, nil, fmt.Errorf("mosaic build: layout %q, want grid or voronoi", m.Build.Layout)
		}
		mo, err := datasets.BuildMosaic(list, datasets.MosaicOptions{K: m.Build.Textures, Size: size, Layout: layout}, m.Build.Seed)
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
		path := filepath.Join(root, m.Image)
		img, err = imageio.Load(path, imageio.Options{Width: o.w, Height: o.h, Filter: o.filter})
		if err != nil {
			return nil, nil, fmt.Errorf("mosaic (data root %q): %w", root, err)
		}
		if labels, err = datasets.LoadLabelMap(filepath.Join(root, m.Labels)); err != nil {
			return nil, nil, fmt.Errorf("mosaic labels (data root %q): %w", root, err)
		}
	}
	fm, err := o.features.Compute(img)
	if err != nil {
		return nil, nil, fmt.Errorf("mosaic features: %w", err)
	}
	regions, err := covariance.Grid(img.W, img.H, o.layout.Rows, o.layout.Cols)
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
	d := o.features.Dim()
	var out []*Data
	for _, eps := range dc.Ridge {
		ex, err := covariance.NewExtractor(d, covariance.Options{Reg: dc.regularization(eps)})
		if err != nil {
			return nil, nil, err
		}
		buf := make([]float64, len(kept)*d*d)
		if err := ex.Compute(buf, fm.Planes, fm.W, fm.H, kept); err != nil {
			return nil, nil, fmt.Errorf("mosaic descriptors: %w", err)
		}
		set, err := spd.NewSetFromData(d, buf)
		if err != nil {
			return nil, nil, fmt.Errorf("mosaic descriptors: %w", err)
		}
		out = append(out, &Data{Set: set, Labels: lab, Classes: classes, Ridge: eps})
	}
	return out, notes, nil
}
