package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Set is the output set of a folder, as its meta.json records it, for
// reading its files, each checked against its record: files read through
// one Set are of one set.
type Set struct {
	// Dir is the folder, Format its format and Files the records of its
	// files, in order.
	Dir    string
	Format string
	Files  []File
	rec    records
}

// OpenSet opens the output set of the format format (such as
// FormatDictionary) in the folder dir, completing a commit that a
// writer killed before it was done left (see the package documentation),
// and checks that the files its meta.json records are there with their
// sizes. It returns an error wrapping ErrInvalid for a folder without a
// meta.json (not such a folder, or an interrupted or older output) or of
// another format, and one wrapping ErrTorn for a missing file or one of
// another size; the errors name the folder and the command to rerun.
func OpenSet(dir, format string) (*Set, error) {
	var s *Set
	err := readView(dir, func(v *view) error {
		if v.marker == nil {
			return fmt.Errorf("%w: %s: no %s (not a covpipe output of format %s, an interrupted one, or one of an older covpipe): %s",
				ErrNoSet, dir, MetaFile, format, remedyOf(format))
		}
		m, err := parseMarker(v.marker)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrInvalid, filepath.Join(dir, MetaFile), err)
		}
		if m.Format != format {
			if kind(m.Format) == kind(format) {
				return fmt.Errorf("%w: %s was written by another covpipe (format %s, want %s): %s", ErrInvalid, dir, m.Format, format, remedyOf(format))
			}
			return fmt.Errorf("%w: %s holds a %s folder, not a %s one", ErrInvalid, dir, m.Format, format)
		}
		rec := records{v: v, dir: dir, remedy: remedyOf(format), files: m.Files}
		names := make([]string, len(m.Files))
		for i, f := range m.Files {
			names[i] = f.Name
		}
		if err := rec.checkSizes(names); err != nil {
			return err
		}
		s = &Set{Dir: dir, Format: m.Format, Files: m.Files, rec: rec}
		return nil
	})
	return s, err
}

// Has reports whether the set holds the file name.
func (s *Set) Has(name string) bool { return recorded(s.Files, name) }

// needFile returns an error wrapping ErrInvalid when the set has no file
// name: the check of its readers.
func (s *Set) needFile(name string) error {
	if !s.Has(name) {
		return fmt.Errorf("%w: %s: %s records no %s", ErrInvalid, s.Dir, MetaFile, name)
	}
	return nil
}

// ReadFile reads the file name of the set. It returns an error wrapping
// ErrTorn when the file is not the one the set records, and one wrapping
// ErrInvalid when the set has no such file.
func (s *Set) ReadFile(name string) ([]byte, error) {
	if err := s.needFile(name); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(s.rec.path(name))
	if err != nil {
		return nil, s.rec.tornOr(name, err)
	}
	d := newDigest()
	d.Write(b)
	if err := s.rec.check(name, d); err != nil {
		return nil, err
	}
	return b, nil
}

// ReadFile reads the file at path. When its folder is a covpipe output
// set whose meta.json records the file, it is read as the set records it
// (a commit cut short completed first) and checked against its record:
// a file that is not the recorded one is an error wrapping ErrTorn,
// naming the folder and the command to rerun. Other files are read as
// they are.
func ReadFile(path string) ([]byte, error) {
	var b []byte
	err := readView(filepath.Dir(path), func(v *view) error {
		s, ok := v.setOf(filepath.Base(path))
		var err error
		if !ok {
			b, err = os.ReadFile(path)
			return err
		}
		b, err = s.ReadFile(filepath.Base(path))
		return err
	})
	return b, err
}

// setOf returns the folder's set when its marker is covpipe's and
// records the file name.
func (v *view) setOf(name string) (*Set, bool) {
	if v.marker == nil {
		return nil, false
	}
	m, err := parseMarker(v.marker)
	if err != nil || !recorded(m.Files, name) {
		return nil, false
	}
	rec := records{v: v, dir: v.dir, remedy: remedyOf(m.Format), files: m.Files}
	return &Set{Dir: v.dir, Format: m.Format, Files: m.Files, rec: rec}, true
}

// records are the file records of the marker (meta.json) of the folder
// dir, where to read each file, and what the user should do when the
// folder is torn.
type records struct {
	v           *view // nil: every file under its name in dir
	dir, remedy string
	files       []File
}

// path returns the path of the recorded file name.
func (r records) path(name string) string {
	if r.v == nil {
		return filepath.Join(r.dir, name)
	}
	return r.v.path(name)
}

// checkSizes checks that the records are of the files names, in order,
// and that those are in the folder with their recorded sizes. It returns
// an error wrapping ErrTorn for a missing file or another size, and one
// wrapping ErrInvalid for malformed records.
func (r records) checkSizes(names []string) error {
	path := filepath.Join(r.dir, MetaFile)
	if len(r.files) != len(names) {
		return fmt.Errorf("%w: %s: files %+v, want records of %v", ErrInvalid, path, r.files, names)
	}
	if err := checkRecords(r.files); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
	}
	for i, f := range r.files {
		if f.Name != names[i] {
			return fmt.Errorf("%w: %s: malformed file record %+v (want %s)", ErrInvalid, path, f, names[i])
		}
		st, err := os.Stat(r.path(f.Name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			return r.torn("%s is missing", f.Name)
		case err != nil:
			return err
		case st.Size() != f.Size:
			return r.torn("%s has %d bytes, %s records %d", f.Name, st.Size(), MetaFile, f.Size)
		}
	}
	return nil
}

// check checks the digest of the file name, read whole, against its
// record: an error wrapping ErrTorn when they differ, ErrInvalid when
// there is no record.
func (r records) check(name string, d *digest) error {
	for _, f := range r.files {
		if f.Name != name {
			continue
		}
		got := d.file(name)
		if got.Size != f.Size {
			return r.torn("%s has %d bytes, %s records %d", name, got.Size, MetaFile, f.Size)
		}
		if got.SHA256 != f.SHA256 {
			return r.torn("the SHA-256 of %s is %s, %s records %s", name, got.SHA256, MetaFile, f.SHA256)
		}
		return nil
	}
	return fmt.Errorf("%w: %s: %s records no %s", ErrInvalid, r.dir, MetaFile, name)
}

// tornOr returns err, an error reading the file name, or, when that file
// is not the one recorded, the error saying so (ErrTorn): the likelier
// cause of a malformed file in a folder.
func (r records) tornOr(name string, err error) error {
	if err == nil || errors.Is(err, ErrTorn) {
		return err
	}
	f, ferr := os.Open(r.path(name))
	if ferr != nil {
		if errors.Is(ferr, os.ErrNotExist) && recorded(r.files, name) {
			return r.torn("%s is missing", name)
		}
		return err
	}
	defer f.Close()
	d := newDigest()
	if _, ferr := io.Copy(d, f); ferr != nil {
		return err
	}
	if terr := r.check(name, d); errors.Is(terr, ErrTorn) {
		return terr
	}
	return err
}

// torn returns the error, wrapping ErrTorn, for the folder whose files
// are not the set its marker records, saying why and what to do.
func (r records) torn(format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s: its files are not the set its %s records (files of different runs mixed, or changed since): %s",
		ErrTorn, r.dir, fmt.Sprintf(format, args...), MetaFile, r.remedy)
}
