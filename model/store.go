package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"gonum.org/v1/gonum/mat"
)

// Files of a model's folder beside its meta.json.
const (
	recordFile      = "model.json"
	descriptorsFile = "descriptors.npy"
	vectorsFile     = "vectors.npy"
	// statePrefix prefixes the files of the fitted method's arrays
	// (classify.State), statePrefix+name+".npy".
	statePrefix = "state-"
)

// Save writes the model into the folder dir, created if needed, as one
// output set of Format (store.CreateFolder): model.json (the method, its
// parameters as resolved and as chosen, the classes, each training
// item's class, the extraction options, covpipe's version, the fitted
// method's state record), descriptors.npy (the training descriptors,
// each item's regions one after another for a model of several regions
// per image), vectors.npy (their vectors, for a method that reads them),
// the arrays of the fitted method's state (state-NAME.npy: an SRC's
// training kernel matrix, a dictionary's atoms and codes, ...), and
// meta.json, which records each file's size and SHA-256. It returns the
// errors of store.CreateFolder (a folder another covpipe is writing, or
// one holding another kind of output) and of writing.
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
	st, err := m.fitted.Save(context.Background())
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	rec := m.rec
	rec.State, rec.Arrays = st.Record, slices.Sorted(maps.Keys(st.Arrays))
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := f.WriteFile(recordFile, append(b, '\n')); err != nil {
		return err
	}
	data, n := m.descriptors()
	d := m.rec.Dim
	if err := f.WriteNPY(descriptorsFile, []int{n, d, d}, data); err != nil {
		return err
	}
	for _, v := range m.train.Vectors {
		x, err := v.Dense()
		if err != nil {
			return err
		}
		r, c := x.Dims()
		if err := f.WriteNPY(vectorsFile, []int{r, c}, x.RawMatrix().Data[:r*c]); err != nil {
			return err
		}
	}
	for _, name := range rec.Arrays {
		a := st.Arrays[name]
		if err := f.WriteNPY(statePrefix+name+".npy", a.Shape, a.Data); err != nil {
			return err
		}
	}
	return f.Commit()
}

// descriptors returns the training descriptors as consecutive row-major
// d×d blocks, each item's regions one after another for a model of
// several regions per image, and their number.
func (m *Model) descriptors() ([]float64, int) {
	tr := m.train
	if tr.Parts == nil {
		return tr.Set.Data(), tr.Set.Len()
	}
	dd := m.rec.Dim * m.rec.Dim
	var out []float64
	for i := range len(tr.Labels) {
		for _, p := range tr.Parts {
			out = append(out, p.Set.Data()[i*dd:(i+1)*dd]...)
		}
	}
	return out, len(out) / dd
}

// Load reads the model that Save wrote into the folder dir, checking
// every file against the sizes and SHA-256 its meta.json records and the
// files against each other, and restores its fitted method (its
// method's Load). It returns an error naming the folder, and saying to
// fit the model again, for a folder without a model (no meta.json, or
// one of another kind of output, wrapping store.ErrInvalid), one written
// by another version of covpipe's model format, a file that is missing
// or not the one recorded (store.ErrTorn), one written by a newer
// covpipe (its covpipe_version), a file that is a symbolic link to one
// outside the folder, and files that do not parse or do not agree
// (wrapping store.ErrInvalid).
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
	mats, err := set.ReadMatrices(descriptorsFile)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	all, err := spd.NewSetFromData(mats.D, mats.Data)
	if err != nil {
		return nil, invalid(dir, "%s: %v", descriptorsFile, err)
	}
	if err := m.rec.check(all); err != nil {
		return nil, invalid(dir, "%v", err)
	}
	r := &m.rec
	m.train = &classify.Data{Labels: r.Labels, Classes: r.Classes}
	if err := setItems(m.train, all, max(1, m.regions())); err != nil {
		return nil, invalid(dir, "%v", err)
	}
	if r.Vectors != nil {
		shape, x, err := set.ReadNPY(vectorsFile)
		if err != nil {
			return nil, fmt.Errorf("load model: %w", err)
		}
		if len(shape) != 2 || shape[0] != r.Trained || shape[1] < 1 {
			return nil, invalid(dir, "%s has shape %v, want (%d, the vector length)", vectorsFile, shape, r.Trained)
		}
		m.train.Vectors = map[classify.VectorRequest]*classify.Vectors{r.vectorRequest(): classify.NewVectors(mat.NewDense(shape[0], shape[1], x))}
	}
	var specs []typeSpec
	if m.method, _, specs, err = r.newMethods(m.train); err != nil {
		return nil, invalid(dir, "%s: %v", recordFile, err)
	}
	m.declare(r.chosenSpec(specs))
	st := &classify.State{Record: r.State}
	for _, name := range r.Arrays {
		if !validArrayName(name) {
			return nil, invalid(dir, "%s: state array %q: want a name of lower-case letters, digits and '-'", recordFile, name)
		}
		shape, data, err := set.ReadNPY(statePrefix + name + ".npy")
		if err != nil {
			return nil, fmt.Errorf("load model: %w", err)
		}
		st.Put(name, data, shape...)
	}
	if m.fitted, err = m.method.Load(context.Background(), st, r.training(m.train)); err != nil {
		return nil, invalid(dir, "method %s: %v", r.Method, err)
	}
	if got := m.fitted.Chosen(); !maps.Equal(got, r.Chosen) || classify.ChosenMethod(m.fitted) != r.ChosenMethod {
		return nil, invalid(dir, "%s: chosen parameters %v (method %q) but the fitted method's state has %v (method %q)", recordFile, r.Chosen, r.ChosenMethod, got, classify.ChosenMethod(m.fitted))
	}
	return m, nil
}

// validArrayName reports whether name, a state array's, makes a file
// name of the folder's own: lower-case letters, digits and '-'.
func validArrayName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// invalid is the error for the model folder dir whose files do not
// parse or agree, saying what is wrong.
func invalid(dir, format string, args ...any) error {
	return fmt.Errorf("load model: %w: %s: %s: rerun covpipe fit", store.ErrInvalid, dir, fmt.Sprintf(format, args...))
}

// check checks the record against the descriptors it goes with: one per
// training item, or regions per item for a model of several regions per
// image.
func (r *record) check(train *spd.Set) error {
	per := 1
	if r.Parts != nil {
		per = len(r.Parts.Regions)
		if _, ok := classify.FusionRules.Parse(r.Parts.Rule); !ok {
			return fmt.Errorf("%s: fusion rule %q: want one of %v", recordFile, r.Parts.Rule, []string(classify.FusionRules))
		}
		if per < 2 || len(r.Parts.Weights) != per {
			return fmt.Errorf("%s: %d regions and %d weights: want as many, at least two", recordFile, per, len(r.Parts.Weights))
		}
	}
	switch {
	case r.Dim != train.Dim():
		return fmt.Errorf("%s says %d×%d descriptors, %s holds %d×%d", recordFile, r.Dim, r.Dim, descriptorsFile, train.Dim(), train.Dim())
	case len(r.Labels) != r.Trained || r.Trained*per != train.Len():
		return fmt.Errorf("%s has %d labels for the %d descriptors of %s (%d training items, %d descriptors each)", recordFile, len(r.Labels), train.Len(), descriptorsFile, r.Trained, per)
	case len(r.Classes) < 2 || !slices.IsSorted(r.Classes) || len(slices.Compact(slices.Clone(r.Classes))) != len(r.Classes):
		return fmt.Errorf("%s: classes %q are not two or more, sorted and distinct", recordFile, r.Classes)
	case r.Extraction != nil && r.Extraction.Dim != r.Dim:
		return fmt.Errorf("%s: extraction of %d×%d descriptors for a model of %d×%d", recordFile, r.Extraction.Dim, r.Extraction.Dim, r.Dim, r.Dim)
	}
	if _, err := classify.NewFoldGroups(r.FoldsBy, r.FoldsWithin); err != nil {
		return fmt.Errorf("%s: %w", recordFile, err)
	}
	for i, l := range r.Labels {
		if l < 0 || l >= len(r.Classes) {
			return fmt.Errorf("%s: label %d of training item %d is not a class (0..%d)", recordFile, l, i, len(r.Classes)-1)
		}
	}
	return nil
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
