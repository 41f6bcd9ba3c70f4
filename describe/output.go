package describe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/atomicfile"
)

// folder is the Sink of Describe: it writes the output folder dir with
// outputs, atomically.
type folder struct {
	dir    string
	inputs int // number of inputs: paths get a "k:" prefix when > 1
	out    *outputs
}

func (f *folder) Begin(m *Meta) (err error) {
	f.inputs = len(m.Inputs)
	f.out, err = createOutputs(f.dir, m.Dim, m.SkipBad)
	return err
}

func (f *folder) Descriptors(input int, item *datasets.Item, regions []covariance.Region, data []float64) error {
	o := f.out
	o.path = appendPath(o.path[:0], input, f.inputs, item.Rel)
	o.label = appendEscaped(o.label[:0], item.Label)
	d2 := o.d * o.d
	for k, r := range regions {
		if err := o.descriptor(data[k*d2 : (k+1)*d2]); err != nil {
			return err
		}
		o.region = appendRegion(o.region[:0], r)
		if err := row(o, o.path, o.label, o.region); err != nil {
			return err
		}
	}
	return nil
}

func (f *folder) Failed(input int, item *datasets.Item, err error) error {
	o := f.out
	o.path = appendPath(o.path[:0], input, f.inputs, item.Rel)
	return failure(o, o.path, string(appendEscaped(nil, oneLine(err.Error()))))
}

func (f *folder) Commit(m *Meta) error { return f.out.commit(m) }

func (f *folder) Abort() {
	if f.out != nil {
		f.out.abort()
	}
}

// outputs writes the files of an output folder to temporary files in it,
// streaming: descriptors go to disk as they come and nothing of the set is
// kept. commit renames them into place; abort removes them.
type outputs struct {
	dir               string
	created           bool // dir did not exist before
	committed         bool
	d                 int
	n                 int // descriptors written so far
	npy, man, fail    *atomicfile.File
	npyW, manW, failW *bufio.Writer
	buf               []byte // one row or descriptor being encoded
	path, label       []byte // fields of the row being encoded, escaped
	region            []byte
}

// createOutputs starts the output files in dir, which it creates if
// needed; failures.csv only with skipBad. It first removes the temporary
// files of the output files that killed runs left in dir
// (atomicfile.RemoveStale).
func createOutputs(dir string, d int, skipBad bool) (o *outputs, err error) {
	_, err = os.Stat(dir)
	created := errors.Is(err, os.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	for _, name := range []string{DescriptorsFile, ManifestFile, FailuresFile, MetaFile} {
		if err := atomicfile.RemoveStale(filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("describe: %w", err)
		}
	}
	// The error returns below set o to nil: abort through a copy.
	started := &outputs{dir: dir, created: created, d: d}
	o = started
	defer func() {
		if err != nil {
			started.abort()
		}
	}()
	create := func(name string) (*atomicfile.File, *bufio.Writer, error) {
		f, err := atomicfile.Create(filepath.Join(dir, name))
		if err != nil {
			return nil, nil, fmt.Errorf("describe: %w", err)
		}
		return f, bufio.NewWriterSize(f, 1<<16), nil
	}
	if o.npy, o.npyW, err = create(DescriptorsFile); err != nil {
		return nil, err
	}
	// The header is rewritten with the final n by commit; it has the same
	// length for every n.
	if _, err := o.npyW.Write(npyHeader(0, d)); err != nil {
		return nil, o.writeErr(DescriptorsFile, err)
	}
	if o.man, o.manW, err = create(ManifestFile); err != nil {
		return nil, err
	}
	if _, err := o.manW.WriteString(manifestHeader); err != nil {
		return nil, o.writeErr(ManifestFile, err)
	}
	if skipBad {
		if o.fail, o.failW, err = create(FailuresFile); err != nil {
			return nil, err
		}
		if _, err := o.failW.WriteString(failuresHeader); err != nil {
			return nil, o.writeErr(FailuresFile, err)
		}
	}
	return o, nil
}

func (o *outputs) writeErr(name string, err error) error {
	return fmt.Errorf("describe: write %s: %w", filepath.Join(o.dir, name), err)
}

// descriptor appends one d×d descriptor, row-major, to descriptors.npy.
func (o *outputs) descriptor(c []float64) error {
	o.buf = o.buf[:0]
	for _, v := range c {
		o.buf = binary.LittleEndian.AppendUint64(o.buf, math.Float64bits(v))
	}
	if _, err := o.npyW.Write(o.buf); err != nil {
		return o.writeErr(DescriptorsFile, err)
	}
	return nil
}

// rawDescriptors copies n encoded descriptors from r to descriptors.npy.
func (o *outputs) rawDescriptors(r io.Reader, n int) error {
	size := int64(n) * int64(o.d*o.d) * 8
	if m, err := io.CopyN(o.npyW, r, size); err != nil {
		if m < size && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) {
			return fmt.Errorf("%w: %d of %d bytes of descriptors", ErrOutput, m, size)
		}
		return o.writeErr(DescriptorsFile, err)
	}
	return nil
}

// row appends a manifest row for the next descriptor, whose index it
// assigns; path and label are escaped (appendEscaped), region is in its
// string form.
func row[P, L, R ~string | ~[]byte](o *outputs, path P, label L, region R) error {
	b := strconv.AppendInt(o.buf[:0], int64(o.n), 10)
	b = append(b, ',')
	b = appendField(b, path)
	b = append(b, ',')
	b = appendField(b, label)
	b = append(b, ',')
	b = appendField(b, region)
	o.buf = append(b, '\n')
	if _, err := o.manW.Write(o.buf); err != nil {
		return o.writeErr(ManifestFile, err)
	}
	o.n++
	return nil
}

// failure appends a row to failures.csv; path and msg are escaped
// (appendEscaped), msg on one line.
func failure[P ~string | ~[]byte](o *outputs, path P, msg string) error {
	b := appendField(o.buf[:0], path)
	b = append(b, ',')
	b = appendField(b, msg)
	o.buf = append(b, '\n')
	if _, err := o.failW.Write(o.buf); err != nil {
		return o.writeErr(FailuresFile, err)
	}
	return nil
}

// commit completes the output: it writes the final .npy header, records
// the size and SHA-256 of each file in meta.Files, renames the files into
// place and writes meta.json last. The previous meta.json is removed
// first, so that a folder whose commit is cut short has no meta.json or,
// should the removal not reach the disk before a crash, one whose records
// do not match the files: meta.json is the commit marker that readers
// check (ErrTorn). Without failures.csv in this run, a stale one from a
// previous run is removed.
func (o *outputs) commit(meta *Meta) error {
	for _, w := range []struct {
		name string
		w    *bufio.Writer
	}{{DescriptorsFile, o.npyW}, {ManifestFile, o.manW}, {FailuresFile, o.failW}} {
		if w.w == nil {
			continue
		}
		if err := w.w.Flush(); err != nil {
			return o.writeErr(w.name, err)
		}
	}
	if _, err := o.npy.WriteAt(npyHeader(o.n, o.d), 0); err != nil {
		return o.writeErr(DescriptorsFile, err)
	}
	files := make([]File, 0, 3)
	for _, f := range []struct {
		name string
		f    *atomicfile.File
	}{{DescriptorsFile, o.npy}, {ManifestFile, o.man}, {FailuresFile, o.fail}} {
		if f.f == nil {
			continue
		}
		// Read back what was written: the .npy header changed last.
		d := newDigest()
		if _, err := io.Copy(d, io.NewSectionReader(f.f, 0, math.MaxInt64)); err != nil {
			return fmt.Errorf("describe: read back %s: %w", f.f.Name(), err)
		}
		files = append(files, d.file(f.name))
	}
	meta.Files = files
	if err := os.Remove(filepath.Join(o.dir, MetaFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("describe: %w", err)
	}
	for _, f := range []*atomicfile.File{o.npy, o.man, o.fail} {
		if f == nil {
			continue
		}
		if err := f.Commit(); err != nil {
			return fmt.Errorf("describe: %w", err)
		}
	}
	if o.fail == nil {
		if err := os.Remove(filepath.Join(o.dir, FailuresFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("describe: %w", err)
		}
	}
	syncDir(o.dir) // the renames reach the disk before the marker
	if err := atomicfile.WriteFile(filepath.Join(o.dir, MetaFile), meta.encode()); err != nil {
		return fmt.Errorf("describe: %w", err)
	}
	o.committed = true
	return nil
}

// abort removes the temporary files that have not been committed, and
// dir if this run created it and it is empty. It does nothing after a
// successful commit.
func (o *outputs) abort() {
	if o.committed {
		return
	}
	for _, f := range []*atomicfile.File{o.npy, o.man, o.fail} {
		if f != nil {
			f.Abort()
		}
	}
	if o.created {
		os.Remove(o.dir) // fails, harmlessly, when not empty
	}
}

// syncDir flushes the entries of the folder dir to disk, where the system
// allows it; errors are ignored, as some systems cannot sync folders.
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}
