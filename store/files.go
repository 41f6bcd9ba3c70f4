package store

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// Pending is a file of a Folder being written, buffered.
type Pending struct {
	name, path string // the final name and path
	f          *os.File
	w          *bufio.Writer
	sealed     atomic.Bool // by the Folder's Commit or Abort: no more writes
}

// errPendingDone is the error of a write to a Pending file after its
// Folder's Commit or Abort.
var errPendingDone = errors.New("written after the Folder's Commit or Abort")

// usable returns an error for a nil Pending, one not made by
// Folder.Create, and one whose Folder committed or aborted.
func (p *Pending) usable() error {
	switch {
	case p == nil || p.w == nil:
		return errors.New("store: a nil or zero Pending (not made by Folder.Create)")
	case p.sealed.Load():
		return p.writeErr(errPendingDone)
	}
	return nil
}

// Write appends b to the file. Its errors name the file; it returns an
// error after the Folder's Commit or Abort.
func (p *Pending) Write(b []byte) (int, error) {
	if err := p.usable(); err != nil {
		return 0, err
	}
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
	if err := p.usable(); err != nil {
		return 0, err
	}
	if err := p.w.Flush(); err != nil {
		return 0, p.writeErr(err)
	}
	n, err := p.f.WriteAt(b, off)
	if err != nil {
		return n, p.writeErr(err)
	}
	return n, nil
}

// finish flushes the file, syncs it to disk, makes it readable by all
// (0644, as os.Create would) and returns its record, read back since
// WriteAt may have changed what was written.
func (p *Pending) finish() (File, error) {
	p.sealed.Store(true)
	if err := p.w.Flush(); err != nil {
		return File{}, p.writeErr(err)
	}
	d := newDigest()
	if _, err := io.Copy(d, io.NewSectionReader(p.f, 0, math.MaxInt64)); err != nil {
		return File{}, fmt.Errorf("store: read back %s: %w", p.f.Name(), err)
	}
	if err := p.f.Chmod(0o644); err != nil {
		return File{}, p.writeErr(err)
	}
	if err := p.f.Sync(); err != nil {
		return File{}, p.writeErr(err)
	}
	return d.file(p.name), nil
}

func (p *Pending) writeErr(err error) error {
	return fmt.Errorf("store: write %s: %w", p.path, err)
}

// marker is what the marker of every covpipe folder holds, whatever its
// format: a descriptor folder's Meta has these fields among others.
type marker struct {
	Format  string `json:"format"`
	Version string `json:"covpipe_version,omitempty"`
	Files   []File `json:"files"`
}

// parseMarker parses the fields of a marker that the journal needs and
// checks them: a covpipe format and well-formed records of distinct
// plain names.
func parseMarker(b []byte) (*marker, error) {
	m := new(marker)
	if err := json.Unmarshal(b, m); err != nil {
		return nil, err
	}
	if err := checkFormat(m.Format); err != nil {
		return nil, err
	}
	return m, checkRecords(m.Files)
}

// checkRecords checks that files are well-formed records of distinct
// plain names.
func checkRecords(files []File) error {
	for i, f := range files {
		if err := checkName(f.Name); err != nil {
			return err
		}
		if f.Size < 0 || len(f.SHA256) != 2*sha256.Size || strings.Trim(f.SHA256, "0123456789abcdef") != "" {
			return fmt.Errorf("malformed file record %+v", f)
		}
		for _, g := range files[:i] {
			if g.Name == f.Name {
				return fmt.Errorf("file %s recorded twice", f.Name)
			}
		}
	}
	return nil
}

// checkName checks that name can be a file of a set: a plain file name,
// not hidden (the journal's names are) and not the marker's.
func checkName(name string) error {
	if name == "" || name == MetaFile || name[0] == '.' || strings.ContainsAny(name, `/\`+"\x00") || filepath.Base(name) != name {
		return fmt.Errorf("%q cannot be a file of an output set (a plain file name, not hidden, not %s)", name, MetaFile)
	}
	return nil
}

// checkFormat checks that format is a covpipe format: "covpipe-KIND/N".
func checkFormat(format string) error {
	k, n, ok := strings.Cut(format, "/")
	if !ok || !strings.HasPrefix(k, "covpipe-") || len(k) == len("covpipe-") || n == "" || strings.Trim(n, "0123456789") != "" {
		return fmt.Errorf("store: format %q is not covpipe's (covpipe-KIND/N)", format)
	}
	return nil
}

// kind returns the kind of a format, "covpipe-run" for "covpipe-run/1".
func kind(format string) string {
	k, _, _ := strings.Cut(format, "/")
	return k
}

// remedyOf says what to do about a torn or unreadable folder of format.
func remedyOf(format string) string {
	switch kind(format) {
	case kind(Format):
		return "rerun covpipe describe (or covpipe merge)"
	case kind(FormatDictionary):
		return "rerun covpipe learn"
	case kind(FormatCodes):
		return "rerun covpipe encode"
	case kind(FormatRun):
		return "rerun covpipe run (or covpipe report)"
	case kind(FormatRunShard):
		return "rerun covpipe run --shard"
	case kind(FormatModel):
		return "rerun covpipe fit"
	case kind(FormatPredictions):
		return "rerun covpipe predict"
	case kind(FormatEvaluation):
		return "rerun covpipe evaluate"
	}
	return "write it again"
}

// fileKind names what st describes, not a regular file.
func fileKind(st os.FileInfo) string {
	switch {
	case st.IsDir():
		return "a folder"
	case st.Mode()&os.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
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

// fileDigest returns the record of the file at path under the name name.
func fileDigest(path, name string) (File, error) {
	f, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	d := newDigest()
	if _, err := io.Copy(d, f); err != nil {
		return File{}, err
	}
	return d.file(name), nil
}

// encodeNPY returns the bytes of a .npy array of the given shape holding
// data (see WriteNPY).
func encodeNPY(shape []int, data []float64) ([]byte, error) {
	size, err := npyCount(shape)
	if err != nil {
		return nil, err
	}
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = fmt.Sprint(s)
	}
	if size != len(data) {
		return nil, fmt.Errorf("%d values for shape %v", len(data), shape)
	}
	dict := npyDict(dims...)
	total := npyAligned(len(dict))
	b := append(make([]byte, 0, total+8*len(data)), npyHeaderOf(dict, total)...)
	for _, v := range data {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b, nil
}

// npyCount returns the number of values of an array of the given shape,
// and an error for a negative dimension and for a shape whose bytes
// overflow an int.
func npyCount(shape []int) (int, error) {
	if slices.ContainsFunc(shape, func(s int) bool { return s < 0 }) {
		return 0, fmt.Errorf("negative dimension in shape %v", shape)
	}
	if slices.Contains(shape, 0) {
		return 0, nil
	}
	size := 1
	for _, s := range shape {
		if size > math.MaxInt/8/s {
			return 0, fmt.Errorf("shape %v: more bytes than an int holds", shape)
		}
		size *= s
	}
	return size, nil
}
