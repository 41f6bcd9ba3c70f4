package model

import (
	"maps"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/store"
)

// Info is what a model holds but its arrays, as model.json records it
// (covpipe inspect).
type Info struct {
	// Version is the covpipe version that fitted the model.
	Version string
	// Method is the method's type; Params its parameters as resolved
	// (candidates as given), Chosen those that cross-validation chose; a
	// best model's Candidates and ChosenMethod, the one it chose.
	Method       string
	Params       map[string]any
	Candidates   []Candidate
	Chosen       map[string]float64
	ChosenMethod string
	// Folds, FoldsBy and Seed are those of the cross-validation; Atoms
	// the size of a dictionary made from the training items (0: none).
	Folds   int
	FoldsBy classify.FoldGroups
	Seed    uint64
	Atoms   int
	// Classes are the class names and Counts each one's training items;
	// Trained their number, Dim the descriptors' d.
	Classes []string
	Counts  []int
	Trained int
	Dim     int
	// Extraction is the training descriptors' metadata (nil when they
	// had none), Vectors the per-image vectors the method reads (nil:
	// none), Parts the fusion of a model of several regions per image.
	Extraction *store.Meta
	Vectors    *store.Vectors
	Parts      *Parts
	// CV are the cross-validation tables of the fit (Model.CV).
	CV []classify.CVTable
	// Notes are what the fit found wrong with the training data, such as
	// the same descriptor under two labels (Model.Notes).
	Notes []string
}

// Info returns what the model holds (the zero Info for a nil Model).
func (m *Model) Info() Info {
	if m == nil {
		return Info{}
	}
	r := &m.rec
	counts := make([]int, len(r.Classes))
	for _, l := range r.Labels {
		counts[l]++
	}
	return Info{Version: r.Version, Method: r.Method, Params: maps.Clone(r.Params), Candidates: slices.Clone(r.Candidates),
		Chosen: m.Chosen(), ChosenMethod: r.ChosenMethod, Folds: r.Folds, FoldsBy: r.foldGroups(), Seed: r.Seed, Atoms: r.Atoms,
		Classes: m.Classes(), Counts: counts, Trained: r.Trained, Dim: r.Dim,
		Extraction: m.Extraction(), Vectors: m.Vectors(), Parts: m.Parts(), CV: m.CV(), Notes: m.Notes()}
}

// CV returns the tables of the choices that cross-validation made when
// the model was fitted (classify.CVTable: every candidate's accuracy on
// each fold, the one chosen and why), in the order they were made: a
// best model's choice of method, then its chosen candidate's; a fusion's
// choice of rule, then each region's choice of parameters. It is empty
// for a model fitted without a choice, and for one saved before models
// recorded them.
func (m *Model) CV() []classify.CVTable {
	if m == nil {
		return nil
	}
	return slices.Clone(m.rec.CV)
}

// Notes returns what the fit found wrong with the training data: pairs
// of training descriptors that are bit for bit the same under different
// labels (classify.MislabelledCopies: the same image listed under two
// classes, which no method can tell apart). covpipe fit prints them as
// warnings.
func (m *Model) Notes() []string {
	if m == nil {
		return nil
	}
	return slices.Clone(m.rec.Notes)
}

// ChosenMethod returns, for a best model, the name of the candidate that
// cross-validation chose, "" for any other model.
func (m *Model) ChosenMethod() string {
	if m == nil {
		return ""
	}
	return m.rec.ChosenMethod
}

// Extraction returns the metadata of the descriptors the model was
// fitted on (their extraction options), nil when it has none.
func (m *Model) Extraction() *store.Meta {
	if m == nil || m.rec.Extraction == nil {
		return nil
	}
	meta := *m.rec.Extraction
	return &meta
}
