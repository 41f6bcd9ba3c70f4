package describe

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/version"
)

// Format is the value of Meta.Format, the version of the output layout.
const Format = "covpipe-descriptors/1"

// File names inside an output folder.
const (
	DescriptorsFile = "descriptors.npy"
	ManifestFile    = "manifest.csv"
	FailuresFile    = "failures.csv"
	MetaFile        = "meta.json"
)

// ErrOutput is wrapped by the errors for an output folder that is missing
// files, inconsistent or not of this format, and for shards that do not
// belong together.
var ErrOutput = errors.New("describe: invalid output")

// Meta is the content of meta.json: everything that determined the
// descriptors, and the counts. It holds nothing that depends on how the
// run went (no times, worker count or host), so that the same options give
// the same bytes.
type Meta struct {
	// Format is the output layout version, Format.
	Format string `json:"format"`
	// Version is covpipe's version (internal/version.String).
	Version string `json:"covpipe_version"`
	// FeatureSpec is the canonical form of the feature set
	// (features.Set.String of Options.Features, or of the set of
	// DefaultFeatures): the expanded plane names joined by commas, then
	// ";gabor-border=zero" or ";gabor-border=symmetric" when there are
	// Gabor planes, e.g. "I,Ix,Iy,Ixx,Iyy"; features.Parse of it gives the
	// set back. Features are the plane names in order, Dim their number d.
	FeatureSpec string   `json:"feature_spec"`
	Features    []string `json:"features"`
	Dim         int      `json:"dim"`
	// GaborBorder is the border extension of the Gabor planes, "zero"
	// (MATLAB's conv2 'same', the default) or "symmetric"; empty for
	// features without Gabor planes.
	GaborBorder string `json:"gabor_border,omitempty"`
	// Ridge is the regularisation added to each descriptor.
	Ridge Ridge `json:"ridge"`
	// Resize is the size images were resized to, nil for native size;
	// Filter is the resampling filter ("linear", ...), empty without
	// resizing.
	Resize *Size  `json:"resize,omitempty"`
	Filter string `json:"filter,omitempty"`
	// Regions is the region layout ("whole", "grid:RxC", "blocks:N:S"),
	// Seed the run's seed for blocks.
	Regions string `json:"regions"`
	Seed    uint64 `json:"seed"`
	// SkipBad says whether failing images were skipped (and listed in
	// failures.csv) rather than failing the run.
	SkipBad bool `json:"skip_bad"`
	// Inputs are the concatenated inputs, in order.
	Inputs []Input `json:"inputs"`
	// ItemsSHA256 is the SHA-256, in hex, of the list of all items of all
	// inputs: for each, the input index as 8 bytes little-endian, then the
	// relative path and the label, each followed by a zero byte. Shards
	// of the same listing agree on it.
	ItemsSHA256 string `json:"items_sha256"`
	// Shard is the part of the run this folder holds; nil for a whole run
	// (or a merge of all shards).
	Shard *Shard `json:"shard,omitempty"`
	// Counts are the numbers of this folder's images and descriptors.
	Counts Counts `json:"counts"`
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

// Input is one input list of a run.
type Input struct {
	// Root is the folder that the input's manifest paths are relative to
	// (datasets.List.Root, as given).
	Root string `json:"root"`
	// Images is the number of images the input lists.
	Images int `json:"images"`
}

// Counts are the numbers of images and descriptors of an output.
type Counts struct {
	// Images is the number of images of the run (or shard); Described of
	// them gave descriptors and Failed are listed in failures.csv.
	Images    int `json:"images"`
	Described int `json:"described"`
	Failed    int `json:"failed"`
	// Descriptors is n, the first dimension of descriptors.npy and the
	// number of manifest rows.
	Descriptors int `json:"descriptors"`
}

// newMeta returns the meta of a run of p over inputs, without counts.
func newMeta(p *plan, inputs []*datasets.List) Meta {
	m := Meta{
		Format:      Format,
		Version:     version.String(),
		FeatureSpec: p.set.String(),
		Features:    p.set.Names(),
		Dim:         p.set.Dim(),
		Ridge:       p.ridge(),
		Regions:     p.layout.String(),
		Seed:        p.seed,
		SkipBad:     p.skipBad,
		Inputs:      make([]Input, len(inputs)),
	}
	if p.set.HasGabor() {
		m.GaborBorder = p.set.GaborBorder().String()
	}
	if p.load.Width > 0 {
		m.Resize = &Size{Width: p.load.Width, Height: p.load.Height}
		m.Filter = filterName(p.load.Filter)
	}
	h := sha256.New()
	var buf []byte
	for k, l := range inputs {
		m.Inputs[k] = Input{Root: l.Root, Images: len(l.Items)}
		for _, it := range l.Items {
			buf = binary.LittleEndian.AppendUint64(buf[:0], uint64(k))
			buf = append(append(buf, it.Rel...), 0)
			buf = append(append(buf, it.Label...), 0)
			h.Write(buf)
		}
	}
	m.ItemsSHA256 = hex.EncodeToString(h.Sum(nil))
	if p.shard.Count > 1 {
		sh := p.shard
		m.Shard = &sh
	}
	return m
}

// totalImages returns the number of images of all inputs.
func (m *Meta) totalImages() int {
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

// ReadMeta reads dir/meta.json. It returns an error wrapping ErrOutput for
// a missing file, malformed or unknown fields, or another Format.
func ReadMeta(dir string) (*Meta, error) {
	path := filepath.Join(dir, MetaFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s: no %s (not a describe output, or an interrupted one)", ErrOutput, dir, MetaFile)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	m := new(Meta)
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrOutput, path, err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("%w: %s: format %q, want %q", ErrOutput, path, m.Format, Format)
	}
	if m.Dim < 1 || len(m.Features) != m.Dim {
		return nil, fmt.Errorf("%w: %s: dim %d with %d features", ErrOutput, path, m.Dim, len(m.Features))
	}
	if len(m.Inputs) == 0 {
		return nil, fmt.Errorf("%w: %s: no inputs", ErrOutput, path)
	}
	c := m.Counts
	if c.Images < 0 || c.Described < 0 || c.Failed < 0 || c.Descriptors < 0 ||
		c.Described+c.Failed != c.Images || (c.Failed > 0 && !m.SkipBad) {
		return nil, fmt.Errorf("%w: %s: inconsistent counts %+v", ErrOutput, path, c)
	}
	if m.Shard != nil {
		if err := m.Shard.check(); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrOutput, path, err)
		}
	}
	return m, nil
}

// diff returns the first JSON field, in order, whose value differs
// between a and b, ignoring Shard and Counts, or "" when none does.
func (a *Meta) diff(b *Meta) string {
	va, vb := reflect.ValueOf(*a), reflect.ValueOf(*b)
	t := va.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "Shard" || f.Name == "Counts" {
			continue
		}
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			ja, _ := json.Marshal(va.Field(i).Interface())
			jb, _ := json.Marshal(vb.Field(i).Interface())
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			return fmt.Sprintf("%s %s vs %s", name, ja, jb)
		}
	}
	return ""
}
