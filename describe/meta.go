package describe

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/version"
)

// Format is the value of Meta.Format, the version of the output layout.
// Version 2 added Meta.Files (the commit marker), the escaping of
// manifest fields and the skipped-entry counts of the inputs.
const Format = "covpipe-descriptors/2"

// formatV1 is the layout of covpipe releases before Format 2, whose
// folders ReadMeta refuses with a request to rerun describe.
const formatV1 = "covpipe-descriptors/1"

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

// ErrTorn is wrapped by the errors for an output folder whose files are
// not the set its meta.json records (Meta.Files): a file missing, or of
// another size or SHA-256, as when a run was killed while renaming its
// files into place, or files of different runs were mixed. It wraps
// ErrOutput. The remedy is to rerun describe.
var ErrTorn = fmt.Errorf("%w: torn output", ErrOutput)

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
	// Files are the size and SHA-256 of each other file of the folder,
	// in the order descriptors.npy, manifest.csv and, with SkipBad,
	// failures.csv. meta.json is written last, after the others are in
	// place, so it is the commit marker: a folder whose files do not
	// match it is torn (ErrTorn). Collect, which writes no file, leaves
	// Files nil.
	Files []File `json:"files"`
}

// File is the record of one file of an output folder in meta.json.
type File struct {
	Name string `json:"name"`
	// Size is the file's length in bytes, SHA256 the SHA-256 of its
	// bytes in lower-case hex.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
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
	// Skipped counts the entries that listing the input's folder passed
	// over: files that are not images and class folders without images
	// (datasets.List.Skipped; hidden files are not counted).
	Skipped datasets.Skipped `json:"skipped"`
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
		m.Inputs[k] = Input{Root: l.Root, Images: len(l.Items), Skipped: l.Skipped}
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

// ReadMeta reads dir/meta.json and checks that the files it records
// (Meta.Files) are in dir with the recorded sizes; it does not read them
// (Read and Merge check their SHA-256 as they read them). It returns an
// error wrapping ErrOutput for a missing file, malformed or unknown
// fields, another Format (one written by an older covpipe asks to rerun
// describe), and one wrapping ErrTorn when a recorded file is missing or
// of another size.
func ReadMeta(dir string) (*Meta, error) {
	path := filepath.Join(dir, MetaFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s: no %s (not a describe output, or an interrupted one)", ErrOutput, dir, MetaFile)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var format struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &format); err == nil && format.Format == formatV1 {
		return nil, fmt.Errorf("%w: %s was written by an older covpipe (format %s, without the file checksums that mark a complete output): rerun covpipe describe",
			ErrOutput, dir, formatV1)
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
	if err := m.checkFiles(dir); err != nil {
		return nil, err
	}
	return m, nil
}

// fileNames returns the names of the files that Files records, in order.
func (m *Meta) fileNames() []string {
	if m.SkipBad {
		return []string{DescriptorsFile, ManifestFile, FailuresFile}
	}
	return []string{DescriptorsFile, ManifestFile}
}

// checkFiles checks that m.Files records the files of the folder dir, in
// order, and that they exist there with their recorded sizes.
func (m *Meta) checkFiles(dir string) error {
	names := m.fileNames()
	if len(m.Files) != len(names) {
		return fmt.Errorf("%w: %s: files %+v, want records of %s", ErrOutput, filepath.Join(dir, MetaFile), m.Files, strings.Join(names, ", "))
	}
	for i, f := range m.Files {
		if f.Name != names[i] || f.Size < 0 || len(f.SHA256) != 2*sha256.Size || strings.Trim(f.SHA256, "0123456789abcdef") != "" {
			return fmt.Errorf("%w: %s: malformed file record %+v (want %s)", ErrOutput, filepath.Join(dir, MetaFile), f, names[i])
		}
		st, err := os.Stat(filepath.Join(dir, f.Name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			return tornError(dir, "%s is missing", f.Name)
		case err != nil:
			return err
		case st.Size() != f.Size:
			return tornError(dir, "%s has %d bytes, %s records %d", f.Name, st.Size(), MetaFile, f.Size)
		}
	}
	return nil
}

// checkFile checks the digest of the file name of the folder dir, read
// whole, against its record in m.Files.
func (m *Meta) checkFile(dir, name string, d *digest) error {
	for _, f := range m.Files {
		if f.Name != name {
			continue
		}
		got := d.file(name)
		if got.Size != f.Size {
			return tornError(dir, "%s has %d bytes, %s records %d", name, got.Size, MetaFile, f.Size)
		}
		if got.SHA256 != f.SHA256 {
			return tornError(dir, "the SHA-256 of %s is %s, %s records %s", name, got.SHA256, MetaFile, f.SHA256)
		}
		return nil
	}
	return fmt.Errorf("%w: %s: %s records no %s", ErrOutput, dir, MetaFile, name)
}

// tornOr returns err, an error reading the file name of the folder dir,
// or, when that file is not the one m.Files records, the error saying so
// (ErrTorn), the likelier cause of a malformed file in a folder.
func (m *Meta) tornOr(dir, name string, err error) error {
	if err == nil || errors.Is(err, ErrTorn) {
		return err
	}
	f, ferr := os.Open(filepath.Join(dir, name))
	if ferr != nil {
		return err
	}
	defer f.Close()
	d := newDigest()
	if _, ferr := io.Copy(d, f); ferr != nil {
		return err
	}
	if terr := m.checkFile(dir, name, d); errors.Is(terr, ErrTorn) {
		return terr
	}
	return err
}

// CheckFile checks that data is the content of the file name (such as
// ManifestFile) of the output folder dir that m was read from, as m.Files
// records it: for a reader that reads the file again after Read. It
// returns an error wrapping ErrTorn when the size or SHA-256 differ, and
// one wrapping ErrOutput when m records no such file.
func (m *Meta) CheckFile(dir, name string, data []byte) error {
	d := newDigest()
	d.Write(data)
	return m.checkFile(dir, name, d)
}

// tornError returns the error, wrapping ErrTorn, for the folder dir whose
// files are not the set its meta.json records, saying why.
func tornError(dir, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s: its files are not one complete set (a describe killed while committing them, or files of different runs): rerun covpipe describe",
		ErrTorn, dir, fmt.Sprintf(format, args...))
}

// digest hashes (SHA-256) and counts the bytes written to it.
type digest struct {
	h hash.Hash
	n int64
}

func newDigest() *digest { return &digest{h: sha256.New()} }

func (d *digest) Write(p []byte) (int, error) {
	d.n += int64(len(p))
	return d.h.Write(p)
}

// file returns the record of the file name with the bytes written so far.
func (d *digest) file(name string) File {
	return File{Name: name, Size: d.n, SHA256: hex.EncodeToString(d.h.Sum(nil))}
}

// diff returns the first JSON field, in order, whose value differs
// between a and b, ignoring Shard, Counts and Files, or "" when none does.
func (a *Meta) diff(b *Meta) string {
	va, vb := reflect.ValueOf(*a), reflect.ValueOf(*b)
	t := va.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "Shard" || f.Name == "Counts" || f.Name == "Files" {
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
