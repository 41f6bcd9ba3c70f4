package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
)

// Files of a model's folder beside its meta.json.
const (
	recordFile      = "model.json"
	descriptorsFile = "descriptors.npy"
	gramFile        = "gram.npy"
)

// Save writes the model into the folder dir, created if needed, as one
// output set of Format (store.CreateFolder): model.json (the method, its
// parameters as resolved and as chosen, the classes, each descriptor's
// class, the extraction options, covpipe's version, the SVM's machines),
// descriptors.npy (the descriptors queries are compared with: the
// training descriptors, or the SVM's support vectors) and, for SRC
// methods, gram.npy (their kernel matrix), and meta.json, which records
// each file's size and SHA-256. It returns the errors of
// store.CreateFolder (a folder another covpipe is writing, or one
// holding another kind of output) and of writing.
func (m *Model) Save(dir string) error {
	if err := m.check(); err != nil {
		return err
	}
	f, err := store.CreateFolder(context.Background(), dir, Format)
	if err != nil {
		return err
	}
	return m.Write(f)
}

// Write writes the model as Save does into f, a folder of Format that
// the caller has created (and so locked; covpipe fit takes it before it
// fits), and commits it, or aborts it on an error.
func (m *Model) Write(f *store.Folder) error {
	defer f.Abort()
	if err := m.check(); err != nil {
		return err
	}
	rec := m.rec
	if m.parts != nil {
		p := *rec.Parts
		p.Models = nil
		for _, s := range m.parts {
			p.Models = append(p.Models, s.rec)
		}
		rec.Parts = &p
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := f.WriteFile(recordFile, append(b, '\n')); err != nil {
		return err
	}
	if m.parts == nil {
		if err := m.writeArrays(f, ""); err != nil {
			return err
		}
	}
	for k, s := range m.parts {
		if err := s.writeArrays(f, regionPrefix(k)); err != nil {
			return err
		}
	}
	return f.Commit()
}

// writeArrays writes the model's descriptors and kernel matrix into f,
// their file names prefixed by prefix.
func (m *Model) writeArrays(f *store.Folder, prefix string) error {
	d := m.rec.Dim
	if err := f.WriteNPY(prefix+descriptorsFile, []int{m.train.Len(), d, d}, m.train.Data()); err != nil {
		return err
	}
	if m.gram != nil {
		n := m.train.Len()
		if err := f.WriteNPY(prefix+gramFile, []int{n, n}, m.gram); err != nil {
			return err
		}
	}
	return nil
}

// Load reads the model that Save wrote into the folder dir, checking
// every file against the sizes and SHA-256 its meta.json records and the
// files against each other. It returns an error naming the folder, and
// saying to fit the model again, for a folder without a model (no
// meta.json, or one of another kind of output, wrapping store.ErrInvalid),
// one written by another version of covpipe's model format or by a
// newer covpipe (its covpipe_version), a file that is a symbolic link
// to one outside the folder (store.ErrInvalid), a file that
// is missing or not the one recorded (store.ErrTorn), and files that do
// not parse or do not agree (wrapping store.ErrInvalid).
func Load(dir string) (*Model, error) {
	set, err := store.OpenSet(dir, Format)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	if err := inside(set); err != nil {
		return nil, err
	}
	b, err := set.ReadFile(recordFile)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	m := &Model{dir: dir}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m.rec); err != nil {
		return nil, invalid(dir, "%s: %v", recordFile, err)
	}
	newer, err := version.Newer(m.rec.Version)
	switch {
	case err != nil:
		return nil, invalid(dir, "%s: %v", recordFile, err)
	case newer:
		return nil, fmt.Errorf("load model: %w: %s was written by covpipe %s, newer than this covpipe %s: use that covpipe, or rerun covpipe fit",
			store.ErrInvalid, dir, m.rec.Version, version.Number)
	}
	if m.rec.Parts == nil {
		if err := m.readArrays(set, "", ""); err != nil {
			return nil, err
		}
		return m, nil
	}
	if err := m.rec.checkParts(); err != nil {
		return nil, invalid(dir, "%v", err)
	}
	for k, rec := range m.rec.Parts.Models {
		sub := &Model{rec: rec, dir: dir}
		if err := sub.readArrays(set, regionPrefix(k), fmt.Sprintf("region %d: ", k)); err != nil {
			return nil, err
		}
		m.parts = append(m.parts, sub)
	}
	m.rec.Parts.Models = nil
	return m, nil
}

// inside returns an error for a file of set, or its meta.json, that is
// a symbolic link to a file outside the folder: a model is its folder,
// and loading one must not read elsewhere.
func inside(set *store.Set) error {
	root, err := filepath.EvalSymlinks(set.Dir)
	if err != nil {
		return fmt.Errorf("load model: %w", err)
	}
	names := []string{store.MetaFile}
	for _, f := range set.Files {
		names = append(names, f.Name)
	}
	for _, name := range names {
		path := filepath.Join(set.Dir, name)
		if st, err := os.Lstat(path); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			continue // not a link (a missing file is the set's readers' to report)
		}
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fmt.Errorf("load model: %w: %s: %v: rerun covpipe fit", store.ErrInvalid, path, err)
		}
		if rel, err := filepath.Rel(root, target); err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("load model: %w: %s is a symbolic link to %s, outside the model's folder: copy the file into it, or rerun covpipe fit",
				store.ErrInvalid, path, target)
		}
	}
	return nil
}

// readArrays reads the model's descriptors and kernel matrix from set,
// their file names prefixed by prefix, and checks them against its
// record; what prefixes its errors.
func (m *Model) readArrays(set *store.Set, prefix, what string) error {
	mats, err := set.ReadMatrices(prefix + descriptorsFile)
	if err != nil {
		return fmt.Errorf("load model: %w", err)
	}
	if m.train, err = spd.NewSetFromData(mats.D, mats.Data); err != nil {
		return invalid(m.dir, "%s: %v", prefix+descriptorsFile, err)
	}
	if err := m.rec.check(m.train); err != nil {
		return invalid(m.dir, "%s%v", what, err)
	}
	if m.kind, err = kindOf(&m.rec); err != nil {
		return invalid(m.dir, "%s%s: method %s: %v", what, recordFile, m.rec.Method, err)
	}
	if set.Has(prefix + gramFile) {
		var shape []int
		if shape, m.gram, err = set.ReadNPY(prefix + gramFile); err != nil {
			return fmt.Errorf("load model: %w", err)
		}
		if n := m.train.Len(); !slices.Equal(shape, []int{n, n}) {
			return invalid(m.dir, "%s has shape %v, want (%d, %d)", prefix+gramFile, shape, n, n)
		}
	}
	if err := m.kind.check(m); err != nil {
		return invalid(m.dir, "%s%v", what, err)
	}
	return nil
}

// invalid is the error for the model folder dir whose files do not
// parse or agree, saying what is wrong.
func invalid(dir, format string, args ...any) error {
	return fmt.Errorf("load model: %w: %s: %s: rerun covpipe fit", store.ErrInvalid, dir, fmt.Sprintf(format, args...))
}

// check checks the record against the descriptors it goes with.
func (r *record) check(train *spd.Set) error {
	switch {
	case r.Dim != train.Dim():
		return fmt.Errorf("%s says %d×%d descriptors, %s holds %d×%d", recordFile, r.Dim, r.Dim, descriptorsFile, train.Dim(), train.Dim())
	case len(r.Labels) != train.Len():
		return fmt.Errorf("%s has %d labels for the %d descriptors of %s", recordFile, len(r.Labels), train.Len(), descriptorsFile)
	case len(r.Classes) < 2 || !slices.IsSorted(r.Classes) || len(slices.Compact(slices.Clone(r.Classes))) != len(r.Classes):
		return fmt.Errorf("%s: classes %q are not two or more, sorted and distinct", recordFile, r.Classes)
	case r.Extraction != nil && r.Extraction.Dim != r.Dim:
		return fmt.Errorf("%s: extraction of %d×%d descriptors for a model of %d×%d", recordFile, r.Extraction.Dim, r.Extraction.Dim, r.Dim, r.Dim)
	}
	for i, l := range r.Labels {
		if l < 0 || l >= len(r.Classes) {
			return fmt.Errorf("%s: label %d of descriptor %d is not a class (0..%d)", recordFile, l, i, len(r.Classes)-1)
		}
	}
	return nil
}
