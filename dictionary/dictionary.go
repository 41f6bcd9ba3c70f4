// Package dictionary is the on-disk form of the dictionaries that
// covpipe learn makes by the paper's Algorithm 1 (rsr.FitDictionary) and
// of the sparse codes that covpipe encode makes against them
// (rsr.Encode) or as tangent-space vectors (covpipe encode --tangent,
// spd.TangentVectors): output sets of package store, a dictionary folder
// of format store.FormatDictionary (dictionary.npy, learn.json) and a
// codes folder of format store.FormatCodes (codes.npy, encode.json, the
// manifest of the descriptors coded, and for tangent vectors the
// reference point, reference.npy). Write and Read keep a dictionary,
// WriteCodes and WriteTangent keep codes, ReadReference reads a reference
// point back; the records say how they were made.
package dictionary

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"gonum.org/v1/gonum/mat"
)

// Files of a dictionary folder and of a codes folder beside their
// meta.json.
const (
	AtomsFile  = "dictionary.npy"
	RecordFile = "learn.json"
	CodesFile  = "codes.npy"
	CodesLog   = "encode.json"
	// ReferenceFile is the reference point P of tangent vectors, (d, d).
	ReferenceFile = "reference.npy"
)

// Iteration is one iteration of Algorithm 1 in learn.json: J after the
// coding step and after the atom update, and the guard counts
// (rsr.LearnIteration).
type Iteration struct {
	J           float64 `json:"j"`
	JUpdated    float64 `json:"j_after_update"`
	NonZeros    int     `json:"nonzeros"`
	Unconverged int     `json:"unconverged_codes"`
	Unused      int     `json:"kept_unused"`
	KeptSign    int     `json:"kept_sign"`
	KeptNotSPD  int     `json:"kept_not_spd"`
}

// IterationOf is the record of an iteration of rsr.FitDictionary.
func IterationOf(it rsr.LearnIteration) Iteration {
	return Iteration{it.J, it.JUpdated, it.NonZeros, it.Unconverged, it.Unused, it.KeptSign, it.KeptNotSPD}
}

// Sparsity is the sparsity weight that learn.json and encode.json record:
// the one the codes were solved with, λ or its ratio, even when it is 0.
type Sparsity struct {
	Lambda      *float64 `json:"lambda,omitempty"`
	LambdaRatio *float64 `json:"lambda_ratio,omitempty"`
}

// SparsityOf is the sparsity weight of o.
func SparsityOf(o rsr.LassoOptions) Sparsity {
	if r := o.LambdaRatio; r != 0 {
		return Sparsity{LambdaRatio: &r}
	}
	l := o.Lambda
	return Sparsity{Lambda: &l}
}

// Options returns the sparsity weight as Lasso options: λ = 0 for a
// record of neither (learn.json files of covpipe before the weight was
// always recorded).
func (s Sparsity) Options() rsr.LassoOptions {
	var o rsr.LassoOptions
	if s.Lambda != nil {
		o.Lambda = *s.Lambda
	}
	if s.LambdaRatio != nil {
		o.LambdaRatio = *s.LambdaRatio
	}
	return o
}

// Record is learn.json: the options, the input, and J after every
// iteration with the guard counts.
type Record struct {
	Version string  `json:"covpipe_version"`
	Input   string  `json:"input"`
	Samples int     `json:"samples"`
	Dim     int     `json:"dim"`
	Atoms   int     `json:"atoms"`
	Init    string  `json:"init"`
	Iters   int     `json:"iters"`
	Tol     float64 `json:"tolerance"`
	Sigma   float64 `json:"sigma"`
	Pseudo  bool    `json:"pseudo_kernel,omitempty"`
	Sparsity
	KeepScale bool   `json:"keep_scale"`
	Update    string `json:"update"`
	// Class is the class the atoms were learned from (covpipe learn
	// --class), and Extraction the extraction options of its descriptors,
	// so that covpipe fit can label the atoms and describe images as they
	// were.
	Class       string      `json:"class,omitempty"`
	Extraction  *store.Meta `json:"extraction,omitempty"`
	Seed        uint64      `json:"seed"`
	J           float64     `json:"j"`
	Converged   bool        `json:"converged"`
	Unconverged int         `json:"unconverged_codes"`
	History     []Iteration `json:"history"`
	Seconds     float64     `json:"seconds"`
}

// Write writes the atoms and their record into f, a folder of
// store.FormatDictionary that the caller created and commits.
func Write(f *store.Folder, atoms *spd.Set, rec *Record) error {
	d := atoms.Dim()
	if err := f.WriteNPY(AtomsFile, []int{atoms.Len(), d, d}, atoms.Data()); err != nil {
		return err
	}
	return writeJSON(f, RecordFile, rec)
}

// Read reads the dictionary at path: a dictionary folder, whose
// dictionary.npy and learn.json are read as one set (a torn or older
// folder is an error asking to rerun covpipe learn), or an (n, d, d) .npy
// file of SPD atoms. It returns the atoms, the file they came from and,
// for a folder, its record. Errors name the file and, for a matrix that
// is not SPD, the matrix.
func Read(path string) (*spd.Set, string, *Record, error) {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		m, err := store.ReadMatrices(path)
		if err != nil {
			return nil, "", nil, err
		}
		atoms, err := atomsOf(m)
		return atoms, path, nil, err
	}
	set, err := store.OpenSet(path, store.FormatDictionary)
	if err != nil {
		return nil, "", nil, err
	}
	m, err := set.ReadMatrices(AtomsFile)
	if err != nil {
		return nil, "", nil, err
	}
	atoms, err := atomsOf(m)
	if err != nil {
		return nil, "", nil, err
	}
	b, err := set.ReadFile(RecordFile)
	if err != nil {
		return nil, "", nil, err
	}
	rec := new(Record)
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, "", nil, fmt.Errorf("%s: %w", filepath.Join(path, RecordFile), err)
	}
	return atoms, m.Path, rec, nil
}

// atomsOf checks that the matrices m read are SPD.
func atomsOf(m *store.Matrices) (*spd.Set, error) {
	set, err := spd.NewSetFromData(m.D, m.Data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	return set, nil
}

// CodesRecord is encode.json: what the codes were made from.
type CodesRecord struct {
	Version    string  `json:"covpipe_version"`
	Input      string  `json:"input"`
	Dictionary string  `json:"dictionary"`
	Samples    int     `json:"samples"`
	Atoms      int     `json:"atoms"`
	Sigma      float64 `json:"sigma"`
	Pseudo     bool    `json:"pseudo_kernel,omitempty"`
	Sparsity
	NonZeros float64 `json:"mean_nonzeros"`
	AllZero  int     `json:"all_zero_codes"`
}

// WriteCodes writes codes, one row per descriptor coded, their record
// (a *CodesRecord, or another value that encoding/json encodes for codes
// that a fitted model gave) and, when not nil, the manifest of the
// descriptors (its bytes) into f, a folder of store.FormatCodes that the
// caller created and commits.
func WriteCodes(f *store.Folder, codes *mat.Dense, rec any, manifest []byte) error {
	n, k := codes.Dims()
	if err := f.WriteNPY(CodesFile, []int{n, k}, codes.RawMatrix().Data); err != nil {
		return err
	}
	if manifest != nil {
		if err := f.WriteFile(store.ManifestFile, manifest); err != nil {
			return err
		}
	}
	return writeJSON(f, CodesLog, rec)
}

// TangentRecord is the encode.json of tangent vectors: what they were
// made from and at which reference point.
type TangentRecord struct {
	Version string `json:"covpipe_version"`
	// Encoding is "tangent-space", telling these codes from sparse ones.
	Encoding string `json:"encoding"`
	Input    string `json:"input"`
	// Reference names the reference point: "mean" (the Karcher mean of
	// the input), "identity", or the file it was read from.
	Reference string `json:"reference"`
	Samples   int    `json:"samples"`
	Dim       int    `json:"dim"`
	// Length is d(d+1)/2, the length of each vector.
	Length int `json:"length"`
}

// TangentEncoding is TangentRecord.Encoding.
const TangentEncoding = "tangent-space"

// WriteTangent writes the tangent vectors, one row per descriptor, the
// reference point ref, their record and, when not nil, the manifest of
// the descriptors (its bytes) into f, a folder of store.FormatCodes that
// the caller created and commits: codes.npy of shape (n, d(d+1)/2),
// reference.npy of shape (d, d), encode.json.
func WriteTangent(f *store.Folder, vectors *mat.Dense, ref *mat.SymDense, rec *TangentRecord, manifest []byte) error {
	d := ref.SymmetricDim()
	p := make([]float64, d*d)
	for i := range d {
		for j := range d {
			p[i*d+j] = ref.At(i, j)
		}
	}
	if err := f.WriteNPY(ReferenceFile, []int{d, d}, p); err != nil {
		return err
	}
	return WriteCodes(f, vectors, rec, manifest)
}

// ReadReference reads a reference point of tangent vectors: the
// reference.npy of a codes folder that WriteTangent wrote (read as one
// set with the folder's meta.json), or a .npy file of shape (d, d). It
// returns the matrix and the file it came from; an array of another
// shape, or one that is not SPD, is an error naming the file.
func ReadReference(path string) (*mat.SymDense, string, error) {
	var shape []int
	var data []float64
	var err error
	file := path
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		set, err := store.OpenSet(path, store.FormatCodes)
		if err != nil {
			return nil, "", err
		}
		file = filepath.Join(path, ReferenceFile)
		shape, data, err = set.ReadNPY(ReferenceFile)
		if err != nil {
			return nil, "", err
		}
	} else if shape, data, err = store.ReadNPY(path); err != nil {
		return nil, "", err
	}
	if len(shape) != 2 || shape[0] != shape[1] || shape[0] == 0 {
		return nil, "", fmt.Errorf("%s: array of shape %v, want a reference point of shape (d, d)", file, shape)
	}
	d := shape[0]
	if err := spd.Validate(mat.NewDense(d, d, data)); err != nil {
		return nil, "", fmt.Errorf("%s: %w", file, err)
	}
	return mat.NewSymDense(d, data), file, nil
}

// writeJSON writes v as indented JSON to the file name of f.
func writeJSON(f *store.Folder, name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return f.WriteFile(name, append(b, '\n'))
}
