package model_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/covpipe/covpipe/internal/panictest"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"gonum.org/v1/gonum/mat"
)

// TestMisuse checks that nil and zero Models, and nil arguments, give an
// error containing want, never a panic nor a saved folder.
func TestMisuse(t *testing.T) {
	ctx := context.Background()
	var nilModel *model.Model
	set, err := spd.NewSet([]*mat.SymDense{mat.NewSymDense(2, []float64{2, 1, 1, 2})})
	if err != nil {
		t.Fatal(err)
	}
	saved, _ := savedModel(t)
	loaded, err := model.Load(saved)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func(t *testing.T) error
		want string
	}{
		{"zero Model Save", func(t *testing.T) error {
			dir := filepath.Join(t.TempDir(), "model")
			err := (&model.Model{}).Save(dir)
			if _, lerr := model.Load(dir); lerr == nil {
				t.Error("a zero Model's folder loads")
			}
			return err
		}, "nil or zero Model"},
		{"nil Model Save", func(t *testing.T) error { return nilModel.Save(filepath.Join(t.TempDir(), "model")) }, "nil or zero Model"},
		{"zero Model Write", func(t *testing.T) error {
			f, err := store.CreateFolder(ctx, filepath.Join(t.TempDir(), "model"), model.Format)
			if err != nil {
				return err
			}
			return (&model.Model{}).Write(f)
		}, "nil or zero Model"},
		{"Write nil Folder", func(*testing.T) error { return loaded.Write(nil) }, "nil or zero Folder"},
		{"nil Model PredictSet", func(*testing.T) error { return errOf(nilModel.PredictSet(ctx, set, model.PredictOptions{})) }, "nil or zero Model"},
		{"PredictSet nil set", func(*testing.T) error { return errOf(loaded.PredictSet(ctx, nil, model.PredictOptions{})) }, "nil *spd.Set"},
		{"nil Model PredictOutput", func(*testing.T) error {
			return errOf(nilModel.PredictOutput(ctx, &store.Output{}, model.PredictOptions{}))
		}, "nil or zero Model"},
		{"PredictOutput nil", func(*testing.T) error { return errOf(loaded.PredictOutput(ctx, nil, model.PredictOptions{})) }, "nil *store.Output"},
		{"zero Model Predict", func(*testing.T) error { return errOf((&model.Model{}).Predict(ctx, nil, model.PredictOptions{})) }, "nil or zero Model"},
		{"FitOutput nil", func(*testing.T) error { return errOf(model.FitOutput(ctx, nil, model.Options{Method: "nn"})) }, "nil *store.Output"},
		{"nil Model accessors", func(*testing.T) error {
			if nilModel.Method() != "" || nilModel.Classes() != nil || nilModel.Dim() != 0 || len(nilModel.Chosen()) != 0 ||
				nilModel.Extraction() != nil || nilModel.Parts() != nil || nilModel.Probabilities() {
				t.Error("a nil Model's accessors are not zero")
			}
			return errNone
		}, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			panictest.WantError(t, func() error { return tc.call(t) }, tc.want)
		})
	}
}

// errNone stands for the error of a call that returns none.
var errNone = errorString("none")

type errorString string

func (e errorString) Error() string { return string(e) }

func errOf[T any](_ T, err error) error { return err }
