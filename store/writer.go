package store

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"

	"github.com/covpipe/covpipe/covariance"
)

// Writer writes a descriptor folder as a Folder: descriptors.npy and
// vectors.npy streamed as they come, manifest.csv, failures.csv, and
// meta.json last, by Commit. Nothing of the set is kept in memory.
type Writer struct {
	f          *Folder
	inputs     int // number of inputs: paths get a "k:" prefix when > 1
	d          int
	vectors    bool
	npy, vec   *NPYWriter // vec is made by the first vector
	vecFile    *Pending
	man, fail  *Pending
	rows       int    // manifest rows written so far
	buf        []byte // one row being encoded
	path, lbl  []byte // fields of the row being encoded, escaped
	regionText []byte
}

// Create starts the descriptor folder dir (created if needed) of the run
// that m describes, as a Folder (CreateFolder: it takes the folder's
// lock and completes or removes what killed writers left) written by
// NewWriter. A failed or aborted Writer leaves dir as it was. It
// returns an error for a nil m before it touches dir.
func Create(ctx context.Context, dir string, m *Meta) (*Writer, error) {
	if m == nil {
		return nil, fmt.Errorf("store: create %s: a nil Meta", dir)
	}
	f, err := CreateFolder(ctx, dir, Format)
	if err != nil {
		return nil, err
	}
	return NewWriter(f, m)
}

// NewWriter starts writing the descriptor folder of the run that m
// describes into f, a Folder of Format: m.Dim is d, len(m.Inputs) the
// number of inputs, m.Vectors says whether vectors come and m.SkipBad
// whether failures do (failures.csv is written only then). The Writer
// commits or aborts f; NewWriter aborts it when it fails, and returns an
// error for a nil or zero f and a nil m.
func NewWriter(f *Folder, m *Meta) (w *Writer, err error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if m == nil {
		f.Abort()
		return nil, fmt.Errorf("store: descriptors into %s: a nil Meta", f.dir)
	}
	if f.format != Format {
		f.Abort()
		return nil, fmt.Errorf("store: folder %s of format %s for descriptors (%s)", f.dir, f.format, Format)
	}
	defer func() {
		if err != nil {
			f.Abort()
		}
	}()
	w = &Writer{f: f, inputs: len(m.Inputs), d: m.Dim, vectors: m.Vectors != nil}
	p, err := f.Create(DescriptorsFile)
	if err != nil {
		return nil, err
	}
	if w.npy, err = NewNPYWriter(p, m.Dim, m.Dim); err != nil {
		return nil, err
	}
	if w.vectors {
		if w.vecFile, err = f.Create(VectorsFile); err != nil {
			return nil, err
		}
	}
	if w.man, err = f.Create(ManifestFile); err != nil {
		return nil, err
	}
	if _, err := w.man.Write([]byte(manifestHeader)); err != nil {
		return nil, err
	}
	if m.SkipBad {
		if w.fail, err = f.Create(FailuresFile); err != nil {
			return nil, err
		}
		if _, err := w.fail.Write([]byte(failuresHeader)); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// Add writes the descriptors of the next image, with relative path rel
// (slash-separated) in input number input and label label: one per
// region, descriptor k of regions[k] being the row-major d×d block
// data[k·d·d:(k+1)·d·d], and a manifest row for each. It returns an
// error, writing nothing, for an input out of range (0 ≤ input < the
// number of inputs, 0 for a single input), a path that is empty or not
// clean (path.Clean; a CSV manifest's "../x.png" or "/abs/x.png" is),
// a region that covariance.ParseRegion would refuse, and data of
// another length.
func (w *Writer) Add(input int, rel, label string, regions []covariance.Region, data []float64) error {
	if err := w.usable(); err != nil {
		return err
	}
	if err := w.checkItem(input, rel); err != nil {
		return err
	}
	for _, r := range regions {
		if r.W < 1 || r.H < 1 || r.X < 0 || r.Y < 0 {
			return fmt.Errorf("store: %s: region %v of %s: want a size of at least 1x1 at a non-negative position", w.f.Dir(), r, rel)
		}
	}
	if len(data) != len(regions)*w.d*w.d {
		return fmt.Errorf("store: %d values for %d descriptors of %dx%d", len(data), len(regions), w.d, w.d)
	}
	if err := w.npy.Append(data); err != nil {
		return err
	}
	w.path = AppendPath(w.path[:0], input, w.inputs, rel)
	w.lbl = appendEscaped(w.lbl[:0], label)
	for _, r := range regions {
		w.regionText = appendRegion(w.regionText[:0], r)
		if err := row(w, w.path, w.lbl, w.regionText); err != nil {
			return err
		}
	}
	return nil
}

// AddVector writes the vector of the next image, which Add describes
// with the whole-image layout. Every vector must have the length of the
// first. It returns an error when Create's meta has no Vectors.
func (w *Writer) AddVector(v []float64) error {
	if err := w.usable(); err != nil {
		return err
	}
	if !w.vectors {
		return fmt.Errorf("store: %s: a vector for a folder without vectors", w.f.Dir())
	}
	if w.vec == nil {
		var err error
		if w.vec, err = NewNPYWriter(w.vecFile, len(v)); err != nil {
			return err
		}
	}
	if len(v) != w.vec.item {
		return fmt.Errorf("store: a vector of %d values after vectors of %d", len(v), w.vec.item)
	}
	return w.vec.Append(v)
}

// AddFailure lists the next image, which failed with err, in
// failures.csv, its message on one line. It returns an error when
// Create's meta did not have SkipBad, for the input and path that Add
// refuses, and for a nil err.
func (w *Writer) AddFailure(input int, rel string, err error) error {
	if err := w.usable(); err != nil {
		return err
	}
	if err := w.checkItem(input, rel); err != nil {
		return err
	}
	if err == nil {
		return fmt.Errorf("store: %s: a failure of %s without an error", w.f.Dir(), rel)
	}
	if w.fail == nil {
		return fmt.Errorf("store: %s: a failure without SkipBad", w.f.Dir())
	}
	w.path = AppendPath(w.path[:0], input, w.inputs, rel)
	return failure(w, w.path, string(appendEscaped(nil, oneLine(err.Error()))))
}

// row appends a manifest row for the next descriptor, whose index it
// assigns; path and label are escaped (appendEscaped), region is in its
// string form.
func row[P, L, R ~string | ~[]byte](w *Writer, path P, label L, region R) error {
	b := strconv.AppendInt(w.buf[:0], int64(w.rows), 10)
	b = append(b, ',')
	b = appendField(b, path)
	b = append(b, ',')
	b = appendField(b, label)
	b = append(b, ',')
	b = appendField(b, region)
	w.buf = append(b, '\n')
	if _, err := w.man.Write(w.buf); err != nil {
		return err
	}
	w.rows++
	return nil
}

// failure appends a row to failures.csv; path and msg are escaped
// (appendEscaped), msg on one line.
func failure[P ~string | ~[]byte](w *Writer, path P, msg string) error {
	b := appendField(w.buf[:0], path)
	b = append(b, ',')
	b = appendField(b, msg)
	w.buf = append(b, '\n')
	_, err := w.fail.Write(w.buf)
	return err
}

// Commit completes the folder: m is Create's meta with the counts, whose
// Files it sets. It writes the final .npy headers, then commits the
// Folder with m as its marker, meta.json. It returns an error when the
// descriptors or vectors written disagree with m's counts, and the
// errors of Folder.CommitMarker, and an error for a nil m.
func (w *Writer) Commit(m *Meta) error {
	if err := w.usable(); err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("store: commit %s: a nil Meta", w.f.Dir())
	}
	if w.npy.Len() != m.Counts.Descriptors || w.rows != m.Counts.Descriptors {
		return fmt.Errorf("store: %s: %d descriptors and %d manifest rows written, the counts say %d", w.f.Dir(), w.npy.Len(), w.rows, m.Counts.Descriptors)
	}
	if err := w.npy.Close(); err != nil {
		return err
	}
	if w.vectors {
		if w.vec == nil { // no image: shape (0, 0)
			var err error
			if w.vec, err = NewNPYWriter(w.vecFile, 0); err != nil {
				return err
			}
		}
		if w.vec.Len() != m.Counts.Descriptors {
			return fmt.Errorf("store: %s: %d vectors for %d descriptors", w.f.Dir(), w.vec.Len(), m.Counts.Descriptors)
		}
		if err := w.vec.Close(); err != nil {
			return err
		}
	}
	return w.f.CommitMarker(func(files []File) ([]byte, error) {
		m.Files = files
		return m.encode(), nil
	})
}

// Abort removes what was written, as Folder.Abort does. It does nothing
// after a successful Commit, and on a nil or zero Writer.
func (w *Writer) Abort() {
	if w != nil {
		w.f.Abort()
	}
}

// usable returns an error for a nil Writer and one not made by Create
// or NewWriter.
func (w *Writer) usable() error {
	if w == nil || w.npy == nil {
		return errors.New("store: a nil or zero Writer (not made by Create or NewWriter)")
	}
	return nil
}

// checkItem returns an error for an input number out of range and a
// path that is empty or not clean.
func (w *Writer) checkItem(input int, rel string) error {
	if input < 0 || input >= max(w.inputs, 1) {
		return fmt.Errorf("store: %s: input %d of %s, want 0..%d", w.f.Dir(), input, rel, max(w.inputs, 1)-1)
	}
	if rel == "" || path.Clean(rel) != rel {
		return fmt.Errorf("store: %s: path %q is empty or not clean (path.Clean gives %q)", w.f.Dir(), rel, path.Clean(rel))
	}
	return nil
}
