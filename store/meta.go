package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/covpipe/covpipe/datasets"
)

// Format is the value of Meta.Format, the version of the folder layout
// this package reads and writes: with the file records of Meta.Files (the
// commit marker), escaped manifest fields and the skipped-entry counts of
// the inputs.
const Format = "covpipe-descriptors/2"

// formatV1 is the layout without file records, whose folders ReadMeta
// refuses with a request to rerun describe.
const formatV1 = "covpipe-descriptors/1"

// File names inside a descriptor folder.
const (
	DescriptorsFile = "descriptors.npy"
	VectorsFile     = "vectors.npy"
	ManifestFile    = "manifest.csv"
	FailuresFile    = "failures.csv"
	MetaFile        = "meta.json"
)

// fileNames are the files a descriptor folder may hold but its marker,
// in the order of Meta.Files.
var fileNames = []string{DescriptorsFile, VectorsFile, ManifestFile, FailuresFile}

// remedy is what the errors for a torn descriptor folder ask for.
const remedy = "rerun covpipe describe"

// Meta is the content of meta.json: everything that determined the
// descriptors, and the counts. It holds nothing that depends on how the
// run went (no times, worker count or host), so that the same options give
// the same bytes.
type Meta struct {
	// Format is the folder layout version, Format.
	Format string `json:"format"`
	// Version is covpipe's version (internal/version.String).
	Version string `json:"covpipe_version"`
	// FeatureSpec is the canonical form of the feature set
	// (features.Set.String): the expanded plane names joined by commas,
	// then ";gabor-border=zero" or ";gabor-border=symmetric" when there
	// are Gabor planes, e.g. "I,Ix,Iy,Ixx,Iyy"; features.Parse of it gives
	// the set back. Features are the plane names in order, Dim their
	// number d.
	FeatureSpec string   `json:"feature_spec"`
	Features    []string `json:"features"`
	Dim         int      `json:"dim"`
	// GaborBorder is the border extension of the Gabor planes, "zero"
	// (MATLAB's conv2 'same', the default) or "symmetric"; empty for
	// features without Gabor planes.
	GaborBorder string `json:"gabor_border,omitempty"`
	// Ridge is the regularisation added to each descriptor.
	Ridge Ridge `json:"ridge"`
	// Estimator is the covariance estimator, "lwf" (Ledoit–Wolf) or
	// "oas", applied before the ridge; empty for the sample covariance
	// ("scm"), so that folders made with the default options keep their
	// bytes.
	Estimator string `json:"estimator,omitempty"`
	// Normalize is the normalisation applied after the ridge, "trace",
	// "det" or "corr"; empty for none.
	Normalize string `json:"normalize,omitempty"`
	// Resize is the size images were resized to, nil for native size;
	// Filter is the resampling filter ("linear", ...), empty without
	// resizing.
	Resize *Size  `json:"resize,omitempty"`
	Filter string `json:"filter,omitempty"`
	// JPEGScale is "auto" or "fast" when JPEGs may have been decoded at
	// 1/2, 1/4 or 1/8 of their size before resizing (imageio.JPEGScaleAuto
	// and JPEGScaleFast), and empty when every image was decoded at full
	// size (with
	// imageio.JPEGScaleOff, by versions before the setting, and without
	// resizing), so that caches keyed on the metadata do not mix the
	// two decodes.
	JPEGScale string `json:"jpeg_scale,omitempty"`
	// Regions is the region layout ("whole", "grid:RxC", "blocks:N:S"),
	// Seed the run's seed for blocks.
	Regions string `json:"regions"`
	Seed    uint64 `json:"seed"`
	// SkipBad says whether failing images were skipped (and listed in
	// failures.csv) rather than failing the run.
	SkipBad bool `json:"skip_bad"`
	// Vectors, when not nil, says that vectors.npy holds a feature vector
	// per descriptor (per image: vectors need the whole-image layout).
	Vectors *Vectors `json:"vectors,omitempty"`
	// Inputs are the concatenated inputs, in order.
	Inputs []Input `json:"inputs"`
	// ItemsSHA256 is the SHA-256, in hex, of the list of all items of all
	// inputs (see Inputs). Shards of the same listing agree on it.
	ItemsSHA256 string `json:"items_sha256"`
	// Shard is the part of the run this folder holds; nil for a whole run
	// (or a merge of all shards).
	Shard *Shard `json:"shard,omitempty"`
	// Counts are the numbers of this folder's images and descriptors.
	Counts Counts `json:"counts"`
	// Files are the size and SHA-256 of each other file of the folder,
	// in the order descriptors.npy, vectors.npy (with Vectors),
	// manifest.csv and failures.csv (with SkipBad): meta.json is the
	// folder's commit marker (see the package documentation), and a
	// folder whose files do not match it is torn (ErrTorn). A Meta of no
	// folder (describe.Collect's) has Files nil.
	Files []File `json:"files"`
}

// Ridge is a regularisation as recorded in meta.json: Kind is
// "trace-ridge" (Eps·tr(C)/d·I), "ridge" (Eps·I) or "none" (Eps 0).
type Ridge struct {
	Kind string  `json:"kind"`
	Eps  float64 `json:"eps"`
}

// Size is an image size in pixels.
type Size struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Vectors describes the vectors of vectors.npy: the planes of the
// feature set FeatureSpec (in features.Set.String's canonical form),
// sampled every Step pixels along rows and columns from pixel 0 and
// concatenated plane by plane, row-major.
type Vectors struct {
	FeatureSpec string `json:"feature_spec"`
	Step        int    `json:"step"`
}

// Input is one input list of a run.
type Input struct {
	// Root is the folder that the input's manifest paths are relative to
	// (datasets.List.Root, as given).
	Root string `json:"root"`
	// Images is the number of images the input lists.
	Images int `json:"images"`
	// Skipped counts the entries that listing the input's folder passed
	// over: files that are not images and class folders without images
	// (datasets.List.Skipped; hidden files are not counted).
	Skipped datasets.Skipped `json:"skipped"`
}

// Inputs returns the records of lists, in order, and the SHA-256 in hex
// of all their items (Meta.ItemsSHA256): for each item, the input index
// as 8 bytes little-endian, then the relative path and the label, each
// followed by a zero byte.
func Inputs(lists []*datasets.List) ([]Input, string) {
	inputs := make([]Input, len(lists))
	h := sha256.New()
	var buf []byte
	for k, l := range lists {
		inputs[k] = Input{Root: l.Root, Images: len(l.Items), Skipped: l.Skipped}
		for _, it := range l.Items {
			buf = binary.LittleEndian.AppendUint64(buf[:0], uint64(k))
			buf = append(append(buf, it.Rel...), 0)
			buf = append(append(buf, it.Label...), 0)
			h.Write(buf)
		}
	}
	return inputs, hex.EncodeToString(h.Sum(nil))
}

// Counts are the numbers of images and descriptors of a folder.
type Counts struct {
	// Images is the number of images of the run (or shard); Described of
	// them gave descriptors and Failed are listed in failures.csv.
	Images    int `json:"images"`
	Described int `json:"described"`
	Failed    int `json:"failed"`
	// Descriptors is n, the first dimension of descriptors.npy and the
	// number of manifest rows.
	Descriptors int `json:"descriptors"`
	// Grey is the number of described images whose R, G and B planes are
	// equal although the features read colour: grey images, whose colour
	// features repeat one plane.
	Grey int `json:"grey,omitempty"`
}

// TotalImages returns the number of images of all inputs.
func (m *Meta) TotalImages() int {
	n := 0
	for _, in := range m.Inputs {
		n += in.Images
	}
	return n
}

// encode returns meta.json's bytes: indented JSON and a final newline.
func (m *Meta) encode() []byte {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		panic(err) // unreachable: Meta holds only strings, numbers and bools
	}
	return append(b, '\n')
}

// ReadMeta reads dir/meta.json and checks that the files it records
// (Meta.Files) are in dir with the recorded sizes; it does not read them
// (Read and Merge check their SHA-256 as they read them). A commit that a
// writer killed before it was done left is completed first (see the
// package documentation). It returns an error wrapping ErrInvalid for a
// missing file, malformed or unknown fields, another Format (one written
// by an older covpipe asks to rerun describe), and one wrapping ErrTorn
// when a recorded file is missing or of another size.
func ReadMeta(dir string) (*Meta, error) {
	var m *Meta
	err := readView(dir, func(v *view) error {
		var err error
		m, _, err = metaOf(v)
		return err
	})
	return m, err
}

// metaOf parses and checks the Meta of the marker of the view v, and
// returns it with its records, as ReadMeta does.
func metaOf(v *view) (*Meta, records, error) {
	dir := v.dir
	path := filepath.Join(dir, MetaFile)
	b := v.marker
	if b == nil {
		return nil, records{}, fmt.Errorf("%w: %s: no %s (not a describe output, or an interrupted one)", ErrNoSet, dir, MetaFile)
	}
	var format struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &format); err == nil && format.Format == formatV1 {
		return nil, records{}, fmt.Errorf("%w: %s was written by an older covpipe (format %s, without the file checksums that mark a complete output): %s",
			ErrInvalid, dir, formatV1, remedy)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	m := new(Meta)
	if err := dec.Decode(m); err != nil {
		return nil, records{}, fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
	}
	if m.Format != Format {
		return nil, records{}, fmt.Errorf("%w: %s: format %q, want %q", ErrInvalid, path, m.Format, Format)
	}
	if m.Dim < 1 || len(m.Features) != m.Dim {
		return nil, records{}, fmt.Errorf("%w: %s: dim %d with %d features", ErrInvalid, path, m.Dim, len(m.Features))
	}
	if len(m.Inputs) == 0 {
		return nil, records{}, fmt.Errorf("%w: %s: no inputs", ErrInvalid, path)
	}
	if v := m.Vectors; v != nil && (v.FeatureSpec == "" || v.Step < 1) {
		return nil, records{}, fmt.Errorf("%w: %s: vectors %+v, want a feature spec and a step >= 1", ErrInvalid, path, *v)
	}
	c := m.Counts
	if c.Images < 0 || c.Described < 0 || c.Failed < 0 || c.Descriptors < 0 ||
		c.Described+c.Failed != c.Images || (c.Failed > 0 && !m.SkipBad) {
		return nil, records{}, fmt.Errorf("%w: %s: inconsistent counts %+v", ErrInvalid, path, c)
	}
	if m.Shard != nil {
		if err := m.Shard.Check(); err != nil {
			return nil, records{}, fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
		}
	}
	rec := m.records(dir)
	rec.v = v
	if err := rec.checkSizes(m.fileNames()); err != nil {
		return nil, records{}, err
	}
	return m, rec, nil
}

// fileNames returns the names of the files that Files records, in order.
func (m *Meta) fileNames() []string {
	names := make([]string, 0, len(fileNames))
	for _, name := range fileNames {
		if (name != VectorsFile || m.Vectors != nil) && (name != FailuresFile || m.SkipBad) {
			names = append(names, name)
		}
	}
	return names
}

// records returns the file records of m, of the folder dir, each file
// under its name.
func (m *Meta) records(dir string) records {
	return records{dir: dir, remedy: remedy, files: m.Files}
}

// CheckFile checks that data is the content of the file name (such as
// ManifestFile) of the folder dir that m was read from, as m.Files
// records it: for a reader that reads the file again after Read. It
// returns an error wrapping ErrTorn when the size or SHA-256 differ, and
// one wrapping ErrInvalid when m records no such file.
func (m *Meta) CheckFile(dir, name string, data []byte) error {
	d := newDigest()
	d.Write(data)
	return m.records(dir).check(name, d)
}

// Difference is a field of two Metas that differs (Meta.Differences):
// its JSON name and each Meta's value, readable.
type Difference struct {
	Field string
	This  string
	Other string
}

// Differences returns every JSON field, in order, whose value differs
// between m and o, ignoring those Diff ignores, Features (the plane
// names that feature_spec gives) and, when only one of them resized its
// images, the filter and JPEG scale that go with resizing, each value
// written for a reader (readable): the extraction options that make two
// folders' descriptors differ.
func (m *Meta) Differences(o *Meta) []Difference {
	oneResized := (m.Resize == nil) != (o.Resize == nil)
	var out []Difference
	for _, f := range m.differing(o) {
		if f.name == "features" || oneResized && (f.name == "filter" || f.name == "jpeg_scale") {
			continue
		}
		out = append(out, Difference{Field: f.name, This: readable(f.name, f.a), Other: readable(f.name, f.b)})
	}
	return out
}

// field is a field of two Metas: its JSON name and each one's value.
type field struct {
	name string
	a, b reflect.Value
}

// differing returns the fields, in order, whose value differs between m
// and o, but Shard, Counts and Files (what differs between the shards of
// one run).
func (m *Meta) differing(o *Meta) []field {
	va, vb := reflect.ValueOf(*m), reflect.ValueOf(*o)
	t := va.Type()
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "Shard" || f.Name == "Counts" || f.Name == "Files" {
			continue
		}
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			out = append(out, field{name, va.Field(i), vb.Field(i)})
		}
	}
	return out
}

// Setting is an extraction option of a Meta (Meta.Settings): its JSON
// name and its value, readable.
type Setting struct {
	Field string
	Value string
}

// Settings returns the extraction options of m, in the order of its
// fields, each readable: every field but the format, the version, the
// plane names, the inputs, their hash, the shard, the counts and the
// files.
func (m *Meta) Settings() []Setting {
	v := reflect.ValueOf(*m)
	t := v.Type()
	var out []Setting
	for i := range t.NumField() {
		switch t.Field(i).Name {
		case "Format", "Version", "Features", "Inputs", "ItemsSHA256", "Shard", "Counts", "Files":
			continue
		}
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, Setting{name, readable(name, v.Field(i))})
	}
	return out
}

// readable writes the field name of a Meta, of value v, for a reader:
// "none" for an empty string (the sample covariance "scm" for the
// estimator) or a nil pointer, a ridge as "trace-ridge 0.0001", a size
// as "32x64", vectors as "features I, step 2", others as JSON.
func readable(name string, v reflect.Value) string {
	switch x := v.Interface().(type) {
	case string:
		switch {
		case x == "" && name == "estimator":
			return "scm"
		case x == "":
			return "none"
		}
		return x
	case Ridge:
		if x.Kind == "none" || x.Kind == "" {
			return "none"
		}
		return fmt.Sprintf("%s %g", x.Kind, x.Eps)
	case *Size:
		if x == nil {
			return "none"
		}
		return fmt.Sprintf("%dx%d", x.Width, x.Height)
	case *Vectors:
		if x == nil {
			return "none"
		}
		return fmt.Sprintf("features %s, step %d", x.FeatureSpec, x.Step)
	}
	b, _ := json.Marshal(v.Interface())
	return string(b)
}

// Diff returns the first JSON field, in order, whose value differs
// between m and o, as "name VALUE vs VALUE", ignoring Shard, Counts and
// Files (what differs between the shards of one run), or "" when none
// does: whether m and o describe the same run.
func (m *Meta) Diff(o *Meta) string {
	d := m.differing(o)
	if len(d) == 0 {
		return ""
	}
	ja, _ := json.Marshal(d[0].a.Interface())
	jb, _ := json.Marshal(d[0].b.Interface())
	return fmt.Sprintf("%s %s vs %s", d[0].name, ja, jb)
}
