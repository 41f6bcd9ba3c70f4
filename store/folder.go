package store

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/internal/atomicfile"
)

// ErrInvalid is wrapped by the errors for a folder that is missing files,
// holds malformed or inconsistent ones, or is not of this format, and for
// shards that do not belong together.
var ErrInvalid = errors.New("store: invalid folder")

// ErrTorn is wrapped by the errors for a folder whose files are not the
// set its marker records: a file missing, or of another size or SHA-256,
// as when a writer was killed while renaming its files into place, or
// files of different runs were mixed. It wraps ErrInvalid. The remedy is
// to write the folder again.
var ErrTorn = fmt.Errorf("%w: torn folder", ErrInvalid)

// File is the record of one file of a folder in its marker: its name,
// its length in bytes and the SHA-256 of its bytes in lower-case hex.
type File struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Folder writes a set of named files into a folder so that readers see
// either the whole set or know that they do not. Each file is written to
// a temporary file in the folder (".NAME.tmp-DIGITS", internal/atomicfile)
// and Commit renames them into place, then writes the marker file last,
// which records the size and SHA-256 of each file (File). The previous
// marker is removed before the renames, so a folder whose commit was cut
// short has no marker, or one whose records do not match its files: a
// reader that checks the records (as ReadMeta and Read do) refuses it as
// torn (ErrTorn). A Folder that fails or is aborted before Commit
// removes the previous marker leaves the previous set in place.
//
// A Folder must not be used concurrently, and only one process at a time
// may write a folder.
type Folder struct {
	dir       string
	marker    string
	names     []string // the files of the set, in the order of the records
	created   bool     // dir did not exist before
	committed bool
	files     []*Pending // by position in names; nil: not written
}

// CreateFolder starts writing the folder dir, which it creates if needed,
// as a set of files among names, committed by the marker file marker. It
// first removes the temporary files that killed writers of those names
// left in dir (atomicfile.RemoveStale), and no other file. It returns an
// error for a name given twice or equal to the marker, and errors of the
// file system.
func CreateFolder(dir, marker string, names ...string) (*Folder, error) {
	for i, n := range names {
		if n == marker || slices.Contains(names[:i], n) {
			return nil, fmt.Errorf("store: folder %s: file %s given twice", dir, n)
		}
	}
	_, err := os.Stat(dir)
	created := errors.Is(err, os.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	for _, name := range append(slices.Clone(names), marker) {
		if err := atomicfile.RemoveStale(filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	return &Folder{dir: dir, marker: marker, names: names, created: created, files: make([]*Pending, len(names))}, nil
}

// Dir returns the folder's path.
func (f *Folder) Dir() string { return f.dir }

// Create starts the file name, one of the names given to CreateFolder,
// as a temporary file in the folder. It returns an error for another
// name, a file created twice and errors of the file system.
func (f *Folder) Create(name string) (*Pending, error) {
	i := slices.Index(f.names, name)
	switch {
	case i < 0:
		return nil, fmt.Errorf("store: folder %s: %s is not one of its files %v", f.dir, name, f.names)
	case f.files[i] != nil:
		return nil, fmt.Errorf("store: folder %s: %s created twice", f.dir, name)
	}
	path := filepath.Join(f.dir, name)
	af, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	p := &Pending{path: path, f: af, w: bufio.NewWriterSize(af, 1<<16)}
	f.files[i] = p
	return p, nil
}

// Commit completes the set: it flushes the files, records the size and
// SHA-256 of each file created, in the order of the names given to
// CreateFolder, and passes the records to marker, which returns the
// marker's content. It then removes the previous marker, renames the
// files into place, removes the files of names that this set does not
// hold (stale ones of an earlier set), syncs the folder and writes the
// marker. It returns the errors of marker and of the file system; after
// an error, Abort cleans up.
func (f *Folder) Commit(marker func(files []File) ([]byte, error)) error {
	var files []File
	for _, p := range f.files {
		if p == nil {
			continue
		}
		if err := p.w.Flush(); err != nil {
			return p.writeErr(err)
		}
		// Read back what was written: WriteAt may have changed it.
		d := newDigest()
		if _, err := io.Copy(d, io.NewSectionReader(p.f, 0, math.MaxInt64)); err != nil {
			return fmt.Errorf("store: read back %s: %w", p.f.Name(), err)
		}
		files = append(files, d.file(filepath.Base(p.path)))
	}
	content, err := marker(files)
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(f.dir, f.marker)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: %w", err)
	}
	for _, p := range f.files {
		if p == nil {
			continue
		}
		if err := p.f.Commit(); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	for i, p := range f.files {
		if p != nil {
			continue
		}
		if err := os.Remove(filepath.Join(f.dir, f.names[i])); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store: %w", err)
		}
	}
	syncDir(f.dir) // the renames reach the disk before the marker
	if err := atomicfile.WriteFile(filepath.Join(f.dir, f.marker), content); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	f.committed = true
	return nil
}

// Abort removes the temporary files that have not been committed, and
// the folder if CreateFolder created it and it is empty. It does nothing
// after a successful Commit, so `defer f.Abort()` cleans up every error
// path.
func (f *Folder) Abort() {
	if f.committed {
		return
	}
	for _, p := range f.files {
		if p != nil {
			p.f.Abort()
		}
	}
	if f.created {
		os.Remove(f.dir) // fails, harmlessly, when not empty
	}
}

// Pending is a file of a Folder being written, buffered.
type Pending struct {
	path string
	f    *atomicfile.File
	w    *bufio.Writer
}

// Write appends p to the file. Its errors name the file.
func (p *Pending) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if err != nil {
		return n, p.writeErr(err)
	}
	return n, nil
}

// WriteAt writes b at offset off of the file, once what was written
// before is flushed, as the header of a .npy file is rewritten with its
// final length; later writes still append. Its errors name the file.
func (p *Pending) WriteAt(b []byte, off int64) (int, error) {
	if err := p.w.Flush(); err != nil {
		return 0, p.writeErr(err)
	}
	n, err := p.f.WriteAt(b, off)
	if err != nil {
		return n, p.writeErr(err)
	}
	return n, nil
}

func (p *Pending) writeErr(err error) error {
	return fmt.Errorf("store: write %s: %w", p.path, err)
}

// syncDir flushes the entries of the folder dir to disk, where the system
// allows it; errors are ignored, as some systems cannot sync folders.
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
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

// records are the file records of the marker of the folder dir, and
// what the user should do when the folder is torn.
type records struct {
	dir, marker, remedy string
	files               []File
}

// checkSizes checks that the records are of the files names, in order,
// and that those are in the folder with their recorded sizes. It returns
// an error wrapping ErrTorn for a missing file or another size, and one
// wrapping ErrInvalid for malformed records.
func (r records) checkSizes(names []string) error {
	path := filepath.Join(r.dir, r.marker)
	if len(r.files) != len(names) {
		return fmt.Errorf("%w: %s: files %+v, want records of %s", ErrInvalid, path, r.files, strings.Join(names, ", "))
	}
	for i, f := range r.files {
		if f.Name != names[i] || f.Size < 0 || len(f.SHA256) != 2*sha256.Size || strings.Trim(f.SHA256, "0123456789abcdef") != "" {
			return fmt.Errorf("%w: %s: malformed file record %+v (want %s)", ErrInvalid, path, f, names[i])
		}
		st, err := os.Stat(filepath.Join(r.dir, f.Name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			return r.torn("%s is missing", f.Name)
		case err != nil:
			return err
		case st.Size() != f.Size:
			return r.torn("%s has %d bytes, %s records %d", f.Name, st.Size(), r.marker, f.Size)
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
			return r.torn("%s has %d bytes, %s records %d", name, got.Size, r.marker, f.Size)
		}
		if got.SHA256 != f.SHA256 {
			return r.torn("the SHA-256 of %s is %s, %s records %s", name, got.SHA256, r.marker, f.SHA256)
		}
		return nil
	}
	return fmt.Errorf("%w: %s: %s records no %s", ErrInvalid, r.dir, r.marker, name)
}

// tornOr returns err, an error reading the file name, or, when that file
// is not the one recorded, the error saying so (ErrTorn): the likelier
// cause of a malformed file in a folder.
func (r records) tornOr(name string, err error) error {
	if err == nil || errors.Is(err, ErrTorn) {
		return err
	}
	f, ferr := os.Open(filepath.Join(r.dir, name))
	if ferr != nil {
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
	return fmt.Errorf("%w: %s: %s: its files are not one complete set (a run killed while committing them, or files of different runs): %s",
		ErrTorn, r.dir, fmt.Sprintf(format, args...), r.remedy)
}
