package describe

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/covpipe/covpipe/covariance"
)

// Output is an output folder read back into memory.
type Output struct {
	Meta Meta
	// Rows are the manifest rows, Rows[i] describing descriptor i.
	Rows []Row
	// Data holds the n = len(Rows) descriptors as consecutive row-major
	// d×d blocks (d = Meta.Dim): descriptor i is Data[i·d·d:(i+1)·d·d],
	// the layout that spd.NewSetFromData takes.
	Data []float64
	// Vectors holds, for Collect with Options.Vectors, one vector of
	// VectorLen values per image (so per row: vectors need the
	// whole-image layout), one after another.
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

// Read reads the output folder dir written by Describe or Merge: meta.json,
// the manifest (its paths and labels unescaped) and descriptors.npy (with
// github.com/sbinet/npyio), and checks every file, failures.csv too,
// against the size and SHA-256 that meta.json records. It returns an
// error wrapping ErrTorn for files that are not the set meta.json records,
// and one wrapping ErrOutput for a missing file, a malformed file, and
// files that disagree (the array's shape against meta.json's dimension and
// count and the manifest's rows, indices out of sequence). It reads every
// descriptor into memory; it does not check that they are SPD
// (spd.NewSetFromData does).
func Read(dir string) (*Output, error) {
	meta, err := ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	// ReadMeta has checked the manifest's size; a row has 8 bytes or more.
	rows := make([]Row, 0, min(meta.Counts.Descriptors, int(meta.Files[1].Size/8)))
	err = readManifest(dir, meta, func(index int, path, label, region string) error {
		if index != len(rows) {
			return fmt.Errorf("index %d, want %d", index, len(rows))
		}
		k, rel, err := splitPath(path, len(meta.Inputs))
		if err != nil {
			return err
		}
		if label, err = unescape(label); err != nil {
			return err
		}
		r, err := covariance.ParseRegion(region)
		if err != nil {
			return err
		}
		rows = append(rows, Row{Index: index, Input: k, Path: rel, Label: label, Region: r})
		return nil
	})
	if err != nil {
		return nil, meta.tornOr(dir, ManifestFile, err)
	}
	if len(rows) != meta.Counts.Descriptors {
		return nil, fmt.Errorf("%w: %s has %d rows, %s counts %d descriptors", ErrOutput, filepath.Join(dir, ManifestFile), len(rows), MetaFile, meta.Counts.Descriptors)
	}
	if meta.SkipBad {
		if err := readCSV(dir, FailuresFile, failuresHeader, meta, func([]string) error { return nil }); err != nil {
			return nil, meta.tornOr(dir, FailuresFile, err)
		}
	}
	info, data, err := readNPY(filepath.Join(dir, DescriptorsFile), func(d *digest) error { return meta.checkFile(dir, DescriptorsFile, d) })
	if err != nil {
		return nil, meta.tornOr(dir, DescriptorsFile, err)
	}
	if info.n != len(rows) || info.d != meta.Dim {
		return nil, fmt.Errorf("%w: %s: shape (%d, %d, %d), want (%d, %d, %d) from %s", ErrOutput, filepath.Join(dir, DescriptorsFile),
			info.n, info.d, info.d, len(rows), meta.Dim, meta.Dim, MetaFile)
	}
	return &Output{Meta: *meta, Rows: rows, Data: data}, nil
}

// readManifest streams the rows of the manifest of the folder dir, whose
// meta is m, to fn, with their fields as written (escaped). Errors,
// including fn's, name the file and line and wrap ErrOutput; a manifest
// that is not the one m records is an error wrapping ErrTorn.
func readManifest(dir string, m *Meta, fn func(index int, path, label, region string) error) error {
	return readCSV(dir, ManifestFile, manifestHeader, m, func(rec []string) error {
		index, err := strconv.Atoi(rec[0])
		if err != nil || index < 0 || rec[0] != strconv.Itoa(index) {
			return fmt.Errorf("index %q is not a non-negative integer", rec[0])
		}
		return fn(index, rec[1], rec[2], rec[3])
	})
}

// readCSV streams the records after the header row of the CSV file name
// of the folder dir, whose first row must be header (with its newline),
// to fn; the record's slice is reused between calls. Once the file is
// read, it checks it against its record in m.Files.
func readCSV(dir, name, header string, m *Meta, fn func(rec []string) error) error {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %v", ErrOutput, err)
		}
		return err
	}
	defer f.Close()
	d := newDigest()
	cr := csv.NewReader(bufio.NewReaderSize(io.TeeReader(f, d), 1<<16))
	cr.ReuseRecord = true
	cr.FieldsPerRecord = strings.Count(header, ",") + 1
	want := strings.TrimSuffix(header, "\n")
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			if line == 1 {
				return fmt.Errorf("%w: %s: empty file (want the header %s)", ErrOutput, path, want)
			}
			return m.checkFile(dir, name, d)
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrOutput, path, err)
		}
		if line == 1 {
			if got := strings.Join(rec, ","); got != want {
				return fmt.Errorf("%w: %s line 1: header %q, want %q", ErrOutput, path, got, want)
			}
			continue
		}
		if err := fn(rec); err != nil {
			l, _ := cr.FieldPos(0)
			return fmt.Errorf("%w: %s line %d: %v", ErrOutput, path, l, err)
		}
	}
}
