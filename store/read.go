package store

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/covpipe/covpipe/covariance"
)

// Output is a descriptor folder read into memory.
type Output struct {
	// Dir is the folder Read read, which messages name; "" for
	// descriptors made in memory (describe.Collect's).
	Dir  string
	Meta Meta
	// Rows are the manifest rows, Rows[i] describing descriptor i.
	Rows []Row
	// Data holds the n = len(Rows) descriptors as consecutive row-major
	// d×d blocks (d = Meta.Dim): descriptor i is Data[i·d·d:(i+1)·d·d],
	// the layout that spd.NewSetFromData takes.
	Data []float64
	// Vectors holds, when Meta.Vectors is set, one vector of VectorLen
	// values per row (vectors need the whole-image layout, so one per
	// image), one after another: the vector of row i is
	// Vectors[i·VectorLen:(i+1)·VectorLen].
	Vectors   []float64
	VectorLen int
}

// Row is one manifest row: what descriptor Index describes.
type Row struct {
	Index int
	// Input is the number of the input (0-based, in Meta.Inputs) the
	// image came from, and Path its path relative to that input's Root,
	// slash-separated: the manifest's path without its "k:" prefix.
	Input int
	Path  string
	Label string
	// Region is the pixel rectangle of the (resized) image.
	Region covariance.Region
}

// Read reads the descriptor folder dir written by describe.Describe or
// Merge (a commit cut short completed first, as ReadMeta does): meta.json, the manifest (its paths and labels unescaped),
// descriptors.npy and vectors.npy (their headers parsed with
// github.com/sbinet/npyio), and
// checks every file, failures.csv too, against the size and SHA-256 that
// meta.json records. It returns an error wrapping ErrTorn for files that
// are not the set meta.json records, and one wrapping ErrInvalid for a
// missing file, a malformed file, and files that disagree (an array's
// shape against meta.json's dimension and count and the manifest's rows,
// indices out of sequence). It reads every descriptor into memory; it
// does not check that they are SPD (spd.NewSetFromData does).
func Read(dir string) (*Output, error) {
	var out *Output
	err := readView(dir, func(v *view) error {
		var err error
		out, _, err = readOutput(v, nil, nil, nil)
		return err
	})
	return out, err
}

// ReadEach reads the descriptor folder dir as Read does, but gives its
// descriptors to each one at a time rather than holding them all: start
// is given the Output with its Meta and Rows, read and checked, but no
// Data, then each(i, m) gets descriptor i's d·d values (row-major), in
// order, in a buffer that each may modify and that the next call
// reuses. Vectors, when the folder has them, are read into the Output
// after the descriptors. Reading holds one descriptor and one chunk of
// the file besides the Output. Files are checked as Read checks them,
// descriptors.npy's SHA-256 once its last descriptor is given: when
// ReadEach returns an error wrapping ErrTorn, each has seen values that
// are not the folder's, which the caller must drop. An error of start or
// each ends the read and is returned as it is, unless the file is torn
// (ErrTorn then). A read that a writer's commit disturbs is read again,
// as Read does, start then called again.
func ReadEach(dir string, start func(*Output) error, each func(i int, m []float64) error) (*Output, error) {
	out, desc, err := OpenEach(dir, start, each)
	if desc != nil {
		desc.Close()
	}
	return out, err
}

// OpenEach is ReadEach, but keeps the descriptors' file open when it has
// read it whole and checked it, so that the Descriptors it returns read
// descriptors again, by index, from the file that was checked, whatever
// becomes of the folder (a writer replaces files, never rewrites them).
// The caller closes it; it closes itself when unreachable.
func OpenEach(dir string, start func(*Output) error, each func(i int, m []float64) error) (*Output, *Descriptors, error) {
	var out *Output
	var desc *Descriptors
	err := readView(dir, func(v *view) error {
		if desc != nil {
			desc.Close()
		}
		var err error
		out, desc, err = readOutput(v, start, each, nil)
		return err
	})
	if err != nil && desc != nil {
		desc.Close()
		desc = nil
	}
	return out, desc, err
}

// Descriptors reads the descriptors of a folder's descriptors.npy by
// index (OpenEach). It is safe for concurrent use.
type Descriptors struct {
	f      *os.File
	offset int64 // of descriptor 0
	d, n   int
}

// ReadMatrices writes descriptors idx[0], idx[1], ... (d·d values each,
// row-major) into dst, one after another. It returns an error for an
// index out of range, a dst of another length and the file's read
// errors.
func (r *Descriptors) ReadMatrices(idx []int, dst []float64) error {
	dd := r.d * r.d
	if len(dst) != len(idx)*dd {
		return fmt.Errorf("store: %d values for %d descriptors of %d×%d", len(dst), len(idx), r.d, r.d)
	}
	buf := make([]byte, 8*dd)
	for k, i := range idx {
		if i < 0 || i >= r.n {
			return fmt.Errorf("store: descriptor %d out of range [0, %d)", i, r.n)
		}
		if _, err := r.f.ReadAt(buf, r.offset+int64(i)*int64(len(buf))); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		m := dst[k*dd : (k+1)*dd]
		for j := range m {
			m[j] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*j:]))
		}
	}
	return nil
}

// Close closes r's file.
func (r *Descriptors) Close() error { return r.f.Close() }

// readOutput reads the descriptor folder of the view v, as Read does
// when each is nil and as ReadEach does otherwise.
func readOutput(v *view, start func(*Output) error, each func(i int, m []float64) error, vr *vectorRead) (_ *Output, desc *Descriptors, err error) {
	out, err := readOutputOf(v, start, each, &desc, vr)
	if err != nil && desc != nil {
		desc.Close()
		desc = nil
	}
	return out, desc, err
}

// readOutputOf is readOutput, setting *desc when each is not nil; with
// vr, the vectors go to vr (OpenVectors) rather than into the Output.
func readOutputOf(v *view, start func(*Output) error, each func(i int, m []float64) error, desc **Descriptors, vr *vectorRead) (*Output, error) {
	meta, rec, err := metaOf(v)
	if err != nil {
		return nil, err
	}
	dir := v.dir
	// ReadMeta has checked the manifest's size; a row has 8 bytes or more.
	rows := make([]Row, 0, min(meta.Counts.Descriptors, int(fileSize(meta.Files, ManifestFile)/8)))
	err = readManifest(rec, func(index int, path, label, region string) error {
		if index != len(rows) {
			return fmt.Errorf("index %d, want %d", index, len(rows))
		}
		r, err := parseRow(index, path, label, region, len(meta.Inputs))
		rows = append(rows, r)
		return err
	})
	if err != nil {
		return nil, rec.tornOr(ManifestFile, err)
	}
	if len(rows) != meta.Counts.Descriptors {
		return nil, fmt.Errorf("%w: %s has %d rows, %s counts %d descriptors", ErrInvalid, filepath.Join(dir, ManifestFile), len(rows), MetaFile, meta.Counts.Descriptors)
	}
	if meta.SkipBad {
		if err := readCSV(rec, FailuresFile, failuresHeader, func([]string) error { return nil }); err != nil {
			return nil, rec.tornOr(FailuresFile, err)
		}
	}
	out := &Output{Dir: dir, Meta: *meta, Rows: rows}
	var info npyInfo
	check := func(d *digest) error { return rec.check(DescriptorsFile, d) }
	if each == nil {
		info, out.Data, err = readNPY(rec.path(DescriptorsFile), matrixShape, check)
	} else {
		info, *desc, err = readEach(rec.path(DescriptorsFile), out, check, start, each)
	}
	if err != nil {
		return nil, rec.tornOr(DescriptorsFile, err)
	}
	if n, d := info.shape[0], info.shape[1]; n != len(rows) || d != meta.Dim {
		return nil, fmt.Errorf("%w: %s: shape (%d, %d, %d), want (%d, %d, %d) from %s", ErrInvalid, filepath.Join(dir, DescriptorsFile),
			n, d, d, len(rows), meta.Dim, meta.Dim, MetaFile)
	}
	if meta.Vectors == nil {
		return out, nil
	}
	if vr != nil {
		if err := vr.read(rec.path(VectorsFile), out, func(d *digest) error { return rec.check(VectorsFile, d) }); err != nil {
			return nil, rec.tornOr(VectorsFile, err)
		}
		return out, nil
	}
	info, out.Vectors, err = readNPY(rec.path(VectorsFile), rowShape, func(d *digest) error { return rec.check(VectorsFile, d) })
	if err != nil {
		return nil, rec.tornOr(VectorsFile, err)
	}
	if info.shape[0] != len(rows) {
		return nil, fmt.Errorf("%w: %s: %d vectors for %d descriptors", ErrInvalid, filepath.Join(dir, VectorsFile), info.shape[0], len(rows))
	}
	out.VectorLen = info.shape[1]
	return out, nil
}

// readEach reads the descriptors of the file path into start's and
// each's hands (ReadEach), out holding the folder's Meta and Rows.
func readEach(path string, out *Output, check func(*digest) error, start func(*Output) error, each func(i int, m []float64) error) (npyInfo, *Descriptors, error) {
	i := 0
	info, f, err := openNPYEach(path, matrixShape, check, func(info npyInfo) ([]float64, error) {
		if n, d := info.shape[0], info.shape[1]; n != len(out.Rows) || d != out.Meta.Dim {
			return nil, fmt.Errorf("%w: %s: shape (%d, %d, %d), want (%d, %d, %d) from %s", ErrInvalid, path,
				n, d, d, len(out.Rows), out.Meta.Dim, out.Meta.Dim, MetaFile)
		}
		if err := start(out); err != nil {
			return nil, err
		}
		return make([]float64, out.Meta.Dim*out.Meta.Dim), nil
	}, func(m []float64) error {
		err := each(i, m)
		i++
		return err
	})
	if err != nil {
		return npyInfo{}, nil, err
	}
	return info, &Descriptors{f: f, offset: info.offset, d: out.Meta.Dim, n: len(out.Rows)}, nil
}

// parseRow parses the fields of a manifest row, as written (escaped), of
// a folder of inputs inputs.
func parseRow(index int, path, label, region string, inputs int) (Row, error) {
	k, rel, err := splitPath(path, inputs)
	if err != nil {
		return Row{}, err
	}
	if label, err = unescape(label); err != nil {
		return Row{}, err
	}
	r, err := covariance.ParseRegion(region)
	if err != nil {
		return Row{}, err
	}
	return Row{Index: index, Input: k, Path: rel, Label: label, Region: r}, nil
}

// fileSize returns the size that files records for the file name, 0 when
// none.
func fileSize(files []File, name string) int64 {
	for _, f := range files {
		if f.Name == name {
			return f.Size
		}
	}
	return 0
}

// readManifest streams the rows of the manifest of the folder of r to
// fn, with their fields as written (escaped). Errors, including fn's,
// name the file and line and wrap ErrInvalid; a manifest that is not the
// one r records is an error wrapping ErrTorn.
func readManifest(r records, fn func(index int, path, label, region string) error) error {
	return readCSV(r, ManifestFile, manifestHeader, func(rec []string) error {
		index, err := strconv.Atoi(rec[0])
		if err != nil || index < 0 || rec[0] != strconv.Itoa(index) {
			return fmt.Errorf("index %q is not a non-negative integer", rec[0])
		}
		return fn(index, rec[1], rec[2], rec[3])
	})
}
