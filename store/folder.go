package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/covpipe/covpipe/internal/version"
)

// ErrInvalid is wrapped by the errors for an input that is not what it
// should be: a folder that is missing files, holds malformed or
// inconsistent ones, or is not of the format asked for, a malformed .npy
// file, and shards that do not belong together.
var ErrInvalid = errors.New("store: invalid input")

// ErrTorn is wrapped by the errors for a folder whose files are not the
// set its marker records: a file missing, or of another size or SHA-256,
// as when files of different runs were mixed. It wraps ErrInvalid. The
// remedy is to write the folder again.
var ErrTorn = fmt.Errorf("%w: torn folder", ErrInvalid)

// ErrNoSet is wrapped by the errors for a folder without a marker
// (meta.json): not an output of covpipe, or one whose first write was
// interrupted before its commit point. It wraps ErrInvalid.
var ErrNoSet = fmt.Errorf("%w: no output set", ErrInvalid)

// Formats of the folders covpipe writes, the "format" of their meta.json
// (see the package documentation). Format is that of descriptor folders.
const (
	FormatDictionary  = "covpipe-dictionary/1"  // covpipe learn
	FormatCodes       = "covpipe-codes/1"       // covpipe encode
	FormatRun         = "covpipe-run/1"         // covpipe run and covpipe report
	FormatRunShard    = "covpipe-run-shard/1"   // covpipe run --shard
	FormatModel       = "covpipe-model/2"       // covpipe fit (package model)
	FormatPredictions = "covpipe-predictions/1" // covpipe predict into a folder
	FormatEvaluation  = "covpipe-evaluation/1"  // covpipe evaluate (package evaluate)
)

// File is the record of one file of a folder in its marker: its name,
// its length in bytes and the SHA-256 of its bytes in lower-case hex.
type File struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Names of the journal's files in a folder: the marker being committed,
// and the temporary files (".NAME.tmp-DIGITS") of every other file.
const (
	pendingFile = ".meta.json.pending"
	tempInfix   = ".tmp-"
)

// Folder writes one output set, a set of named files and the marker
// meta.json that records them, into a folder so that after a crash at
// any moment (kill -9, power loss) the folder holds either the whole
// previous set or the whole new one (see "Output sets" in the package
// documentation for the journal that guarantees it). It holds the
// folder's lock from CreateFolder to Commit or Abort: one writer per
// folder.
//
// A Folder's methods must not be called concurrently.
type Folder struct {
	ctx     context.Context
	dir     string
	format  string
	lock    *folderLock
	created []string // the folders made for dir, dir first: none existed before
	old     []File   // the files of the set in place, to remove those the new set has not
	files   []*Pending
	state   folderState // guarded by live's mutex once registered
	// stop, when not nil, is called before each step of Commit; an
	// error stops Commit there as a kill would (tests).
	stop func(step string) error
}

// folderState is how far a Folder is.
type folderState int

const (
	writing    folderState = iota // temporary files only: removed by Abort
	committing                    // past the commit point: its files are the journal's
	done                          // committed or aborted, lock released
	killed                        // stopped by a test's stop hook: nothing more is touched
)

// CreateFolder starts writing an output set of format (such as
// FormatRun) into the folder dir, created if needed. It takes the
// folder's lock, failing at once with a *LockedError (wrapping
// ErrLocked) when another process holds it; completes or removes what a
// writer killed earlier left (a pending commit is rolled forward, other
// temporary files removed); and checks that it can create files there,
// so that a command finds a bad output folder before it computes. It
// refuses a folder that holds a set of another kind (a descriptor folder
// for a run's output, say), naming both, and one whose meta.json is not
// a file or not covpipe's marker.
//
// ctx stops the writer: once it is done, Commit commits nothing. Call
// Abort when the set is not committed (`defer f.Abort()`).
func CreateFolder(ctx context.Context, dir, format string) (*Folder, error) {
	return openFolder(ctx, dir, format, nil)
}

// WaitFolder is CreateFolder waiting, while ctx allows, for another
// process that writes the folder to finish, polling every poll; waiting,
// when not nil, is called once with that process's error when it has to
// wait.
func WaitFolder(ctx context.Context, dir, format string, poll time.Duration, waiting func(*LockedError)) (*Folder, error) {
	return openFolder(ctx, dir, format, func() (*folderLock, error) {
		return waitFolder(ctx, dir, poll, waiting)
	})
}

// openFolder is CreateFolder taking the lock with lock, by default
// without waiting.
func openFolder(ctx context.Context, dir, format string, lock func() (*folderLock, error)) (*Folder, error) {
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, fmt.Errorf("store: output folder %s: a nil context.Context", dir)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return nil, fmt.Errorf("store: output folder %s is a file", dir)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("store: output folder: %w", err)
	}
	created := missingFolders(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		removeEmpty(created) // the parents made before the name that failed
		return nil, fmt.Errorf("store: output folder: %w", err)
	}
	f := &Folder{ctx: ctx, dir: dir, format: format, created: created, state: done}
	if lock == nil {
		lock = func() (*folderLock, error) {
			l, err := lockFolder(dir)
			if errors.Is(err, os.ErrNotExist) {
				// Removed meanwhile by a writer that had created it and
				// gave up: make it again.
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return nil, fmt.Errorf("store: output folder: %w", err)
				}
				l, err = lockFolder(dir)
			}
			return l, err
		}
	}
	f.lock, err = lock()
	if err != nil {
		f.release()
		return nil, err
	}
	if err := f.open(); err != nil {
		f.release()
		return nil, err
	}
	registered := withLive(func() bool {
		if live.closed {
			return false
		}
		f.state = writing
		live.folders[f] = struct{}{}
		return true
	})
	if !registered {
		f.release()
		return nil, errExiting
	}
	return f, nil
}

// open prepares the locked folder for a new set: it refuses a meta.json
// that is not a file and a set of another kind, completes or rolls back
// what a killed writer left, records the set in place and checks that a
// file can be created.
func (f *Folder) open() error {
	for _, name := range []string{MetaFile, pendingFile} {
		if st, err := os.Lstat(filepath.Join(f.dir, name)); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("store: %s is %s, not covpipe's marker file: remove it, or choose another output folder",
				filepath.Join(f.dir, name), fileKind(st))
		}
	}
	if err := recoverFolder(f.dir); err != nil {
		return err
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, MetaFile)); err == nil {
		m, err := parseMarker(b)
		switch {
		case err != nil:
			return fmt.Errorf("store: %s is not covpipe's marker (%v): remove it, or choose another output folder", filepath.Join(f.dir, MetaFile), err)
		case kind(m.Format) != kind(f.format):
			return fmt.Errorf("store: %s holds a %s folder (see its %s), not a %s one: choose another output folder",
				f.dir, m.Format, MetaFile, f.format)
		}
		f.old = m.Files
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: %w", err)
	}
	probe, err := os.CreateTemp(f.dir, ".covpipe"+tempInfix+"*")
	if err != nil {
		return fmt.Errorf("store: output folder %s is not writable: %w", f.dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// Dir returns the folder's path.
// A nil Folder's is "".
func (f *Folder) Dir() string {
	if f == nil {
		return ""
	}
	return f.dir
}

// errNoFolder is the error of a method called on a nil Folder or one not
// made by CreateFolder or WaitFolder.
var errNoFolder = errors.New("store: a nil or zero Folder (not made by CreateFolder or WaitFolder)")

// check returns errNoFolder for a nil or zero Folder.
func (f *Folder) check() error {
	if f == nil || f.ctx == nil {
		return errNoFolder
	}
	return nil
}

// Create starts the file name of the set as a temporary file in the
// folder. name is a plain file name, not hidden, not meta.json and not
// created before in this set; errors say so, and give those of the file
// system.
func (f *Folder) Create(name string) (*Pending, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("store: folder %s: %w", f.dir, err)
	}
	for _, p := range f.files {
		if p.name == name {
			return nil, fmt.Errorf("store: folder %s: %s created twice", f.dir, name)
		}
	}
	live.Lock()
	defer live.Unlock()
	switch {
	case live.closed:
		return nil, errExiting
	case f.state != writing:
		return nil, fmt.Errorf("store: folder %s: %s created after Commit or Abort", f.dir, name)
	}
	tmp, err := os.CreateTemp(f.dir, "."+name+tempInfix+"*")
	if err != nil {
		return nil, fmt.Errorf("store: create %s: %w", filepath.Join(f.dir, name), err)
	}
	p := &Pending{name: name, path: filepath.Join(f.dir, name), f: tmp, w: bufio.NewWriterSize(tmp, 1<<16)}
	f.files = append(f.files, p)
	return p, nil
}

// WriteFile writes the file name of the set with the content data, as
// Create and Write do.
func (f *Folder) WriteFile(name string, data []byte) error {
	p, err := f.Create(name)
	if err != nil {
		return err
	}
	_, err = p.Write(data)
	return err
}

// WriteNPY writes the file name of the set as a .npy array of the given
// shape, as WriteNPY writes a file.
func (f *Folder) WriteNPY(name string, shape []int, data []float64) error {
	if err := f.check(); err != nil {
		return err
	}
	b, err := encodeNPY(shape, data)
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(f.dir, name), err)
	}
	return f.WriteFile(name, b)
}

// Commit commits the set with a meta.json of the Folder's format that
// records its files, in the order they were created, and covpipe's
// version:
//
//	{"format": "covpipe-run/1", "covpipe_version": "...", "files": [{"name": ..., "size": ..., "sha256": ...}, ...]}
//
// It commits nothing, and returns the context's error, when ctx is done.
// After an error, Abort cleans up.
func (f *Folder) Commit() error {
	return f.CommitMarker(func(files []File) ([]byte, error) {
		b, err := json.MarshalIndent(marker{Format: f.format, Version: version.String(), Files: files}, "", "  ")
		return append(b, '\n'), err
	})
}

// CommitMarker is Commit with the marker content that marker returns for
// the files' records: a JSON object with the Folder's "format" and these
// "files", and any other fields (a descriptor folder's Meta). It returns
// the errors of marker, an error for a marker without them, and the
// errors of the file system; when ctx is done it commits nothing and
// returns the context's error. After an error, Abort cleans up; an error
// past the commit point leaves the new set to be completed by the next
// covpipe that opens the folder.
func (f *Folder) CommitMarker(marker func(files []File) ([]byte, error)) error {
	if err := f.check(); err != nil {
		return err
	}
	if marker == nil {
		return fmt.Errorf("store: folder %s: a nil marker function", f.dir)
	}
	if withLive(func() folderState { return f.state }) != writing {
		return fmt.Errorf("store: folder %s: Commit after Commit or Abort", f.dir)
	}
	if err := f.ctx.Err(); err != nil {
		return err
	}
	if err := f.step("sync"); err != nil {
		return err
	}
	files := make([]File, len(f.files))
	for i, p := range f.files {
		var err error
		if files[i], err = p.finish(); err != nil {
			return err
		}
	}
	content, err := marker(files)
	if err != nil {
		return err
	}
	if m, err := parseMarker(content); err != nil || m.Format != f.format || !slices.Equal(m.Files, files) {
		return fmt.Errorf("store: folder %s: marker %.200q is not of format %s with the records %+v (%v)", f.dir, content, f.format, files, err)
	}
	for _, p := range f.files {
		if st, err := os.Lstat(p.path); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("store: %s is %s, not a file: remove it, or choose another output folder", p.path, fileKind(st))
		}
	}
	if err := f.writePending(content); err != nil {
		return err
	}
	for _, p := range f.files {
		if err := f.step("rename " + p.name); err != nil {
			return err
		}
		if err := os.Rename(p.f.Name(), p.path); err != nil {
			return f.cutShort(err)
		}
	}
	if err := f.step("remove old"); err != nil {
		return err
	}
	if err := removeOld(f.dir, f.old, files); err != nil {
		return f.cutShort(err)
	}
	if err := f.step("marker"); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(f.dir, pendingFile), filepath.Join(f.dir, MetaFile)); err != nil {
		return f.cutShort(err)
	}
	syncDir(f.dir)
	f.release()
	return nil
}

// writePending writes the new marker to the pending marker, atomically
// (a temporary file renamed), and syncs the folder: the commit point.
// Once the folder is marked committing, RemoveTempFiles leaves its files
// to the journal.
func (f *Folder) writePending(content []byte) error {
	err := withLive(func() error {
		switch {
		case live.closed:
			return errExiting
		case f.ctx.Err() != nil:
			return f.ctx.Err()
		}
		f.state = committing
		return nil
	})
	if err != nil {
		return err
	}
	if err := f.step("pending"); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.dir, pendingFile+tempInfix+"*")
	if err == nil {
		_, err = tmp.Write(content)
		if err == nil {
			err = tmp.Chmod(0o644)
		}
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			if err = f.step("commit point"); err != nil {
				return err
			}
			err = os.Rename(tmp.Name(), filepath.Join(f.dir, pendingFile))
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		// Not committed: the set in place stands, and Abort removes the
		// temporary files.
		setState(f, writing)
		return fmt.Errorf("store: commit %s: %w", f.dir, err)
	}
	syncDir(f.dir)
	return nil
}

// step calls the test hook before the step of Commit named step.
func (f *Folder) step(step string) error {
	if f.stop == nil {
		return nil
	}
	if err := f.stop(step); err != nil {
		setState(f, killed)
		return err
	}
	return nil
}

// cutShort is the error of a commit that failed past its commit point.
func (f *Folder) cutShort(err error) error {
	return fmt.Errorf("store: the commit of %s was cut short (%w); the next covpipe to open the folder completes it", f.dir, err)
}

// Abort removes the temporary files of a set that was not committed,
// and the folder if CreateFolder created it and it is empty (with the
// parents it created for it, while empty), and
// releases the lock. It does nothing after a successful Commit, so
// `defer f.Abort()` cleans up every error path; past the commit point,
// it leaves the new set to the journal. It does nothing on a nil or zero
// Folder, so that `f, err := CreateFolder(...); defer f.Abort()` is safe
// before err is checked.
func (f *Folder) Abort() {
	if f.check() != nil {
		return
	}
	withLive(f.removeTemps)
	f.release()
}

// removeTemps closes and removes the temporary files of a Folder still
// writing, and reports whether it was; past the commit point its files
// are the journal's. live's mutex must be held.
func (f *Folder) removeTemps() bool {
	if f.state != writing {
		return false
	}
	for _, p := range f.files {
		p.sealed.Store(true)
		p.f.Close()
		os.Remove(p.f.Name())
	}
	return true
}

// release closes the temporary files, unregisters the folder and
// releases its lock, then removes the folder when it was created and
// holds nothing.
func (f *Folder) release() {
	l := withLive(func() *folderLock {
		if f.state != done {
			for _, p := range f.files {
				p.sealed.Store(true)
				p.f.Close()
			}
			delete(live.folders, f)
			f.state = done
		}
		l := f.lock
		f.lock = nil
		return l
	})
	l.unlock()
	removeEmpty(f.created)
}

// removeEmpty removes the folders dirs, innermost first, while they are
// empty (or were never made).
func removeEmpty(dirs []string) {
	for _, d := range dirs {
		if _, err := os.Lstat(d); err != nil {
			continue // not made: its name may be the one that failed
		}
		if os.Remove(d) != nil {
			break // not empty
		}
	}
}

// missingFolders lists dir and those of its parents that do not exist,
// dir first: what os.MkdirAll(dir) makes, so that a command that fails
// leaves no empty folders behind (out/ of out/NAME, say).
func missingFolders(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(d); !errors.Is(err, os.ErrNotExist) {
			return out
		}
		out = append(out, d)
		parent := filepath.Dir(d)
		if parent == d {
			return out
		}
		d = parent
	}
}
