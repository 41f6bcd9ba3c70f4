package experiment

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"gonum.org/v1/gonum/mat"
)

// listData returns the descriptors of the data section's dataset, one
// Data per ridge candidate, extracted by package describe, through the
// cache when there is one (extract).
func (e *engine) listData() ([]*classify.Data, error) {
	dp := e.plan.data
	list, err := openDataset(e.opts.DataRoot, dp.dataset)
	if err != nil {
		return nil, err
	}
	if err := checkClasses(e.opts.DataRoot, dp.dataset, list); err != nil {
		return nil, err
	}
	if s := list.Skipped.String(); s != "" {
		e.log.Info("dataset listing skipped entries", "dataset", dp.dataset, "skipped", s)
	}
	if err := e.plan.checkDataMemory(list.Len(), e.opts.MaxMemory); err != nil {
		return nil, err
	}
	byRel := make(map[string]datasets.Item, len(list.Items))
	for _, it := range list.Items {
		byRel[it.Rel] = it
	}
	names := list.Labels()
	index := make(map[string]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	var pr *partReader
	if dp.fusion != nil {
		// Each repeat running at once goes through the parts on its own:
		// a budget below their number would unpack a part at every read.
		outer, _ := e.parallelism()
		e.resident.Max = residentParts * outer
		pr = &partReader{k: dp.layout.Count(), res: &e.resident}
	}
	var variants []*classify.Data
	for k, reg := range dp.regs {
		out, err := e.extract(list, e.describeOptions(reg), pr, nil)
		if err != nil {
			return nil, fmt.Errorf("descriptors of %s: %w", dp.dataset, err)
		}
		if k == 0 {
			e.countLeftOut(out.Meta.Counts)
		}
		// The regions of data.parts come packed (partReader); other
		// descriptors dense.
		var set *spd.Set
		var sets []*spd.Set
		if pr != nil {
			sets, err = pr.sets()
			if pr.src != nil {
				e.sources = append(e.sources, pr.src.d)
			}
		} else {
			set, err = spd.NewSetFromData(out.Meta.Dim, out.Data)
		}
		if err != nil {
			return nil, fmt.Errorf("descriptors of %s: %w", dp.dataset, err)
		}
		data := &classify.Data{Set: set, Labels: make([]int, len(out.Rows)), Classes: names, Meta: make([]map[string]string, len(out.Rows)), Ridge: reg.Eps}
		for i, r := range out.Rows {
			it, ok := byRel[r.Path]
			if !ok {
				return nil, fmt.Errorf("descriptors of %s: row %d names %q, which the dataset does not list", dp.dataset, i, r.Path)
			}
			data.Labels[i] = index[it.Label]
			m := map[string]string{"path": it.Rel, "region": r.Region.String()}
			for k, v := range it.Meta {
				m[k] = v
			}
			data.Meta[i] = m
		}
		if k == 0 {
			var pairs [][2]int
			if pr != nil {
				pairs = pr.copies(sets, data.Labels)
			} else {
				pairs, _ = classify.MislabelledCopies(out.Data, out.Meta.Dim, data.Labels, -1)
			}
			e.noteCopies(pairs, func(i int) string { return out.Rows[i].Path })
		}
		if pr != nil {
			if data, e.partRegions, err = partsOf(data, pr.k, sets); err != nil {
				return nil, fmt.Errorf("descriptors of %s: %w", dp.dataset, err)
			}
		}
		variants = append(variants, data)
	}
	return variants, nil
}

// residentParts is how many parts of data.parts hold their descriptors
// unpacked at once (classify.Data.PackParts) for each repeat that runs
// at once. A repeat's methods go through the parts one after another and
// compute a part's pairwise quantities together, so that one suffices:
// configs/feret-regions.yaml unpacks its 22 distinct parts 123 times in
// all with a budget of one, as with four (logE-SR computes a test item's
// log-vector when it first codes it, its part unpacked again).
const residentParts = 1

// partsOf regroups d, whose rows are each image's regions in layout order
// (n per image, image after image), into one item per image with a Data
// per region (classify.Data.Parts): the items' labels and metadata are
// their first region's, less the region, and Set is the first region's
// descriptors. The parts' Sets are sets, when not nil (a partReader's),
// and otherwise d's descriptors regrouped (classify.Data.SetParts, which
// takes them over, reordered in place). It also returns the first
// image's regions, in part order.
func partsOf(d *classify.Data, n int, sets []*spd.Set) (*classify.Data, []string, error) {
	rows := len(d.Labels)
	if rows%n != 0 {
		return nil, nil, fmt.Errorf("%d descriptors are not %d regions per image", rows, n)
	}
	var regions []string
	for r := range n {
		regions = append(regions, d.Meta[r]["region"])
	}
	items := rows / n
	out := &classify.Data{Labels: make([]int, items), Classes: d.Classes, Meta: make([]map[string]string, items), Ridge: d.Ridge}
	for i := range items {
		first := d.Meta[i*n]
		for r := range n {
			if m := d.Meta[i*n+r]; m["path"] != first["path"] {
				return nil, nil, fmt.Errorf("row %d is %s, not a region of %s", i*n+r, m["path"], first["path"])
			}
		}
		out.Labels[i] = d.Labels[i*n]
		meta := maps.Clone(first)
		delete(meta, "region")
		out.Meta[i] = meta
	}
	if sets != nil {
		out.SetPartSets(sets)
	} else if err := out.SetParts(d.Set, n); err != nil {
		return nil, nil, err
	}
	return out, regions, nil
}

// countLeftOut logs and notes, for the report of every task over the
// dataset, the images that extraction left out (data.skip_bad), and
// warns of grey images described with colour features.
func (e *engine) countLeftOut(c store.Counts) {
	dp := e.plan.data
	if c.Failed > 0 {
		e.log.Warn("images that failed to load or describe were left out (data.skip_bad)", "dataset", dp.dataset, "failed", c.Failed, "images", c.Images)
		e.imageNotes = append(e.imageNotes, fmt.Sprintf("%d of the %d images of %s failed to load or describe and were left out (data.skip_bad)", c.Failed, c.Images, dp.dataset))
	}
	if c.Grey > 0 {
		e.log.Warn("grey images (R = G = B) described with colour features, which repeat one plane", "dataset", dp.dataset, "grey", c.Grey, "images", c.Described)
	}
}

// vectors makes the feature vectors the methods ask for (Spec.Vectors),
// through the same describe path as the descriptors, and attaches them to
// every variant (they do not depend on the ridge).
func (e *engine) vectors(variants []*classify.Data) error {
	done := map[classify.VectorRequest]bool{}
	for _, spec := range e.plan.allSpecs() {
		r := spec.Vectors
		if r.IsZero() || done[r] {
			continue
		}
		done[r] = true
		dp := e.plan.data
		list, err := openDataset(e.opts.DataRoot, dp.dataset)
		if err != nil {
			return err
		}
		o := e.describeOptions(dp.regs[0])
		o.Regions = covariance.Layout{} // vectors are of whole images, with data.parts too
		o.Vectors = describe.VectorSpec{Features: e.plan.vectors[r], Step: r.Step}
		n := variants[0].Set.Len()
		paths := make([]string, n)
		for i, m := range variants[0].Meta {
			paths[i] = m["path"]
		}
		// Read from the cache, the vectors are read again by row from the
		// entry's file: SDALF and HPE go through them once each, and each
		// repeat's fits read their training images only.
		vf := &vectorFile{}
		out, err := e.extract(list, o, nil, vf)
		if err == nil {
			err = sameRows(out, paths)
		}
		if err != nil {
			if vf.rows != nil {
				vf.rows.Close()
			}
			return fmt.Errorf("vectors (%v) of %s: %w", r, dp.dataset, err)
		}
		var vecs *classify.Vectors
		if vf.rows != nil {
			e.vectorFiles = append(e.vectorFiles, vf.rows)
			vecs = classify.NewVectorsFrom(n, out.VectorLen, vf.rows)
		} else {
			vecs = classify.NewVectors(mat.NewDense(n, out.VectorLen, out.Vectors))
		}
		for _, d := range variants {
			if d.Vectors == nil {
				d.Vectors = map[classify.VectorRequest]*classify.Vectors{}
			}
			d.Vectors[r] = vecs
		}
	}
	return nil
}

// describeOptions are the extraction options of the data section with
// regularisation reg. The run's seed places random blocks only, so other
// layouts take seed 0: their extractions, and cache entries, do not
// depend on it.
func (e *engine) describeOptions(reg covariance.Regularization) describe.Options {
	dp := e.plan.data
	o := describe.Options{
		Features: dp.features, Width: dp.w, Height: dp.h, Filter: dp.filter, JPEGScale: dp.jpeg,
		Regions: dp.layout, Reg: reg, Estimator: dp.estimator, Normalize: dp.normalize,
		Workers: e.workers, Reporter: e.rep, MaxMemory: e.opts.MaxMemory,
		SkipBad: dp.skipBad,
	}
	if dp.layout.Kind == covariance.LayoutBlocks {
		o.Seed = e.cfg.Seed
	}
	return o
}

// sameRows returns an error unless the rows of out are of the images of
// paths, in order: vectors attach to the descriptors' rows.
func sameRows(out *store.Output, paths []string) error {
	if len(out.Rows) != len(paths) || out.VectorLen == 0 {
		return fmt.Errorf("%d vectors of %d values for %d items", len(out.Rows), out.VectorLen, len(paths))
	}
	for i, r := range out.Rows {
		if r.Path != paths[i] {
			return fmt.Errorf("row %d is %s, the descriptors' %s", i, r.Path, paths[i])
		}
	}
	return nil
}

// describeRegions returns the descriptors of regions of an image in
// memory (a texture mosaic), made as describe makes every descriptor.
func (e *engine) describeRegions(img *imageio.Image, regions []covariance.Region, reg covariance.Regularization) (*spd.Set, error) {
	ex, err := describe.NewExtractor(e.describeOptions(reg))
	if err != nil {
		return nil, err
	}
	buf, err := ex.Regions(img, regions)
	if err != nil {
		return nil, err
	}
	return spd.NewSetFromData(e.plan.data.features.Dim(), buf)
}

// checkClasses returns an error when the dataset that spec (relative to
// root) opened as list has fewer than two classes or items without a label
// (a plain folder of images): a classifier of one class is right by
// construction, so such a run would report 100%. The error names the
// dataset's spec and path and says where its kind of dataset takes labels
// from.
func checkClasses(root, spec string, list *datasets.List) error {
	names := list.Labels()
	if len(names) >= 2 && names[0] != "" {
		return nil
	}
	unlabelled := 0
	for _, it := range list.Items {
		if it.Label == "" {
			unlabelled++
		}
	}
	var found string
	switch {
	case unlabelled == list.Len():
		found = fmt.Sprintf("its %d images have an empty label", unlabelled)
	case unlabelled > 0:
		found = fmt.Sprintf("%d of its %d images have an empty label", unlabelled, list.Len())
	case len(names) == 1:
		found = fmt.Sprintf("it has a single class, %q (%d images)", names[0], list.Len())
	default:
		found = "it lists no images"
	}
	kind, path := datasetPath(root, spec)
	var source string
	switch kind {
	case "feret":
		source = "FERET labels are the subject ids of the file names (SSSSS of SSSSSxx.ext)"
	case "brodatz":
		source = "Brodatz labels are the texture names of the file names (D<n> of D<n>.ext)"
	case "csv":
		source = "a CSV manifest's labels are its label column"
	default:
		source = fmt.Sprintf("labels are the names of the first-level folders (%s/<label>/...); images directly in %s, without class folders, have an empty label",
			path, path)
	}
	return fmt.Errorf("dataset %q (%s): %s, but a classification experiment needs at least two classes; %s",
		spec, path, found, source)
}

// datasetPath returns the datasets.Open kind and the path that openDataset
// gives spec relative to root: the kind is spec's KIND: prefix when known,
// else csv for a .csv file and folders for anything else.
func datasetPath(root, spec string) (kind, path string) {
	kind, path, ok := strings.Cut(spec, ":")
	if _, known := expected[kind]; !ok || !known {
		kind, path = "folders", spec
		if strings.EqualFold(filepath.Ext(spec), ".csv") {
			kind = "csv"
		}
	}
	return kind, underData(root, path)
}

// underData returns the path that a config's path reads: under the data
// root when relative, as it is when absolute.
func underData(root, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(root, path)
}

// rootPath is a path of a config read relative to the data root, with
// its keys.
type rootPath struct {
	keys []string
	rel  string
}

// checkPaths returns an error when a relative path of the plan's config
// (data.dataset, a mosaic task's image, labels or build.album), which the
// run reads under root, leaves root: a path with more ".." than folders.
// An absolute path is the config's explicit choice to read outside the
// root, and passes. The error names the setting, its line and root.
func (p *Plan) checkPaths(root string) error {
	check := func(path []any, key, value, rel string) error {
		if rel == "" || filepath.IsAbs(rel) || filepath.IsLocal(rel) {
			return nil
		}
		where := fmt.Sprintf("the data root %q,", root)
		if root == "" {
			where = "the data root (the current folder),"
		}
		return fmt.Errorf("%w: %s%s %q: %s leaves %s under which relative paths are read; give an absolute path to read outside it",
			config.ErrConfig, config.At(p.root, path...), key, value, rel, where)
	}
	if d := p.Config.Data; d != nil {
		_, rel := datasetPath("", d.Dataset)
		if err := check([]any{"data", "dataset"}, "data.dataset", d.Dataset, rel); err != nil {
			return err
		}
	}
	for ti, t := range p.tasks {
		m, ok := t.(*mosaicTask)
		if !ok {
			continue
		}
		for _, rp := range m.paths() {
			path, key := taskPath(p.Config.Tasks[ti].Index(), append([]string{"mosaic"}, rp.keys...)...)
			if err := check(path, key, rp.rel, rp.rel); err != nil {
				return err
			}
		}
	}
	return nil
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
		if prefix, _, ok := strings.Cut(spec, ":"); ok && kind == "folders" && expected[prefix] == "" {
			// A KIND: prefix that is no kind, such as folder:orl.
			var kinds []string
			for k := range expected {
				kinds = append(kinds, k)
			}
			slices.Sort(kinds)
			hint := ""
			for _, k := range kinds {
				if len(prefix) >= 3 && (strings.HasPrefix(k, prefix[:3]) || strings.HasPrefix(prefix, k[:3])) {
					hint = fmt.Sprintf("; did you mean %s:?", k)
				}
			}
			return nil, fmt.Errorf("dataset %q: unknown kind %q (kinds: %s)%s", spec, prefix, strings.Join(kinds, ", "), hint)
		}
		return nil, fmt.Errorf("dataset %q: %s not found (data root %q): expected %s",
			spec, path, root, expected[kind])
	}
	l, err := datasets.Open(kind + ":" + path)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w (expected %s)", spec, err, expected[kind])
	}
	return l, nil
}
