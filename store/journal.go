package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// recoverFolder completes or rolls back what a writer killed before it
// was done left in the folder dir, whose lock the caller holds: a pending
// marker whose files are all there, under their final or temporary
// names, is rolled forward (the files renamed into place, those of the
// previous set that the new one has not removed, and the pending marker
// renamed to meta.json); a pending marker whose files are not all there,
// which the journal never leaves, is removed. Then every temporary file
// is removed.
func recoverFolder(dir string) error {
	pending := filepath.Join(dir, pendingFile)
	b, err := os.ReadFile(pending)
	switch {
	case err == nil:
		if err := rollForward(dir, b); err != nil {
			return err
		}
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("store: %w", err)
	}
	return removeTemps(dir)
}

// rollForward completes the commit of the pending marker content b in
// the folder dir.
func rollForward(dir string, b []byte) error {
	pending := filepath.Join(dir, pendingFile)
	m, err := parseMarker(b)
	if err != nil {
		return removeIfExists(pending)
	}
	paths, ok := resolve(dir, m.Files)
	if !ok {
		return removeIfExists(pending)
	}
	for _, f := range m.Files {
		if p := paths[f.Name]; p != filepath.Join(dir, f.Name) {
			if err := os.Rename(p, filepath.Join(dir, f.Name)); err != nil {
				return fmt.Errorf("store: complete the commit of %s: %w", dir, err)
			}
		}
	}
	var old []File
	if ob, err := os.ReadFile(filepath.Join(dir, MetaFile)); err == nil {
		if om, err := parseMarker(ob); err == nil {
			old = om.Files
		}
	}
	if err := removeOld(dir, old, m.Files); err != nil {
		return fmt.Errorf("store: complete the commit of %s: %w", dir, err)
	}
	if err := os.Rename(pending, filepath.Join(dir, MetaFile)); err != nil {
		return fmt.Errorf("store: complete the commit of %s: %w", dir, err)
	}
	syncDir(dir)
	return nil
}

// resolve finds each of files in the folder dir, under its name or as
// one of its temporary files, by size and SHA-256: it returns the path
// of each, and false when one is not there.
func resolve(dir string, files []File) (map[string]string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	paths := make(map[string]string, len(files))
	for _, f := range files {
		candidates := []string{f.Name}
		for _, e := range entries {
			if name, ok := tempOf(e.Name()); ok && name == f.Name {
				candidates = append(candidates, e.Name())
			}
		}
		for _, c := range candidates {
			path := filepath.Join(dir, c)
			if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() || st.Size() != f.Size {
				continue
			}
			if got, err := fileDigest(path, f.Name); err == nil && got == f {
				paths[f.Name] = path
				break
			}
		}
		if _, ok := paths[f.Name]; !ok {
			return nil, false
		}
	}
	return paths, true
}

// removeOld removes from the folder dir the files of the set old that the
// set files does not hold.
func removeOld(dir string, old, files []File) error {
	for _, o := range old {
		if checkName(o.Name) != nil || recorded(files, o.Name) {
			continue
		}
		if err := removeIfExists(filepath.Join(dir, o.Name)); err != nil {
			return err
		}
	}
	return nil
}

// recorded reports whether files records the file name.
func recorded(files []File, name string) bool {
	for _, f := range files {
		if f.Name == name {
			return true
		}
	}
	return false
}

// removeTemps removes the temporary files (".NAME.tmp-DIGITS", regular
// files) of the folder dir.
func removeTemps(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	for _, e := range entries {
		if _, ok := tempOf(e.Name()); ok && e.Type().IsRegular() {
			if err := removeIfExists(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// tempOf returns the name of the file whose temporary file is entry,
// ".NAME.tmp-DIGITS", and whether it is one.
func tempOf(entry string) (string, bool) {
	rest, ok := strings.CutPrefix(entry, ".")
	i := strings.LastIndex(rest, tempInfix)
	if !ok || i < 1 {
		return "", false
	}
	digits := rest[i+len(tempInfix):]
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	return rest[:i], true
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// view is how a reader sees a folder: the marker of its committed set and
// where each recorded file is.
type view struct {
	dir    string
	marker []byte // nil: no marker
	// temp holds the paths of files read under their temporary names:
	// a pending set seen without the lock.
	temp map[string]string
	// seen is what openView read, to tell whether a writer has changed
	// the folder since.
	seen []byte
}

// openView returns the view of the folder dir. A pending commit is
// completed first when the reader can take the folder's lock; when it
// cannot (another process is writing the folder, or it is read-only),
// the pending set is read where its files are, when they are all there.
func openView(dir string) (*view, error) {
	b, err := os.ReadFile(filepath.Join(dir, pendingFile))
	if err == nil {
		if l, lerr := lockFolder(dir); lerr == nil {
			rerr := recoverFolder(dir)
			l.unlock()
			if rerr != nil {
				return nil, rerr
			}
		} else if m, perr := parseMarker(b); perr == nil {
			if paths, ok := resolve(dir, m.Files); ok {
				v := &view{dir: dir, marker: b, temp: paths}
				v.seen = v.state()
				return v, nil
			}
		}
	}
	v := &view{dir: dir}
	v.marker, err = os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		v.marker = nil
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("store: read %s: %w", filepath.Join(dir, MetaFile), err)
		}
	}
	v.seen = v.state()
	return v, nil
}

// path returns the path to read the recorded file name from.
func (v *view) path(name string) string {
	if p, ok := v.temp[name]; ok {
		return p
	}
	return filepath.Join(v.dir, name)
}

// state returns the folder's marker and pending marker as they are now.
func (v *view) state() []byte {
	m, _ := os.ReadFile(filepath.Join(v.dir, MetaFile))
	p, _ := os.ReadFile(filepath.Join(v.dir, pendingFile))
	return append(append(m, 0), p...)
}

// changed reports whether a writer has changed the folder's markers
// since the view was taken.
func (v *view) changed() bool { return !bytes.Equal(v.seen, v.state()) }

// maxAttempts bounds the times a reader reads a folder that a writer
// commits to meanwhile.
const maxAttempts = 3

// readView calls read with the view of the folder dir and returns its
// error; when read fails (a file changed under it, say) and a writer has
// committed to the folder meanwhile, it reads again.
func readView(dir string, read func(v *view) error) error {
	for attempt := 1; ; attempt++ {
		v, err := openView(dir)
		if err != nil {
			return err
		}
		err = read(v)
		if err == nil || attempt == maxAttempts || !v.changed() {
			return err
		}
	}
}
