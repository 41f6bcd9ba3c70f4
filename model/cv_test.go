package model_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/covpipe/covpipe/model"
)

// TestCVRecorded checks that a model records the cross-validation of
// its fit: the chosen row of each table is the candidate the fit chose
// (the parameters of Chosen, a best model's ChosenMethod), the chosen
// candidate's own choice follows under its name, and Load gives the
// tables back.
func TestCVRecorded(t *testing.T) {
	trainDir, _ := gratingFolders(t, 6, 0)
	ctx := context.Background()
	train := collect(t, trainDir, textureOptions(t))
	rsr := methodCases[0]
	m, err := model.FitOutput(ctx, train, model.Options{Method: rsr.method, Params: rsr.params, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	cv := m.CV()
	if len(cv) != 1 || cv[0].Choice != "parameters" || len(cv[0].Candidates) != 2 || cv[0].Items != 18 {
		t.Fatalf("tables %+v, want one of 2 parameter candidates on 18 items", cv)
	}
	want := fmt.Sprintf("sigma=%g lambda_ratio=%g", m.Chosen()["sigma"], m.Chosen()["lambda_ratio"])
	if got := cv[0].Candidates[cv[0].Chosen].Name; got != want {
		t.Errorf("chosen row %q, the model chose %q", got, want)
	}
	for _, r := range cv[0].Candidates {
		if len(r.Folds) != model.DefaultFolds {
			t.Errorf("row %q: %d folds, want %d", r.Name, len(r.Folds), model.DefaultFolds)
		}
	}
	if back := saveLoad(t, m); !reflect.DeepEqual(back.CV(), cv) || !reflect.DeepEqual(back.Info().CV, cv) {
		t.Errorf("loaded tables %+v, saved %+v", back.CV(), cv)
	}
	// One candidate: nothing to choose, no table.
	nn, err := model.FitOutput(ctx, train, model.Options{Method: "nn", Params: map[string]any{"metric": "stein"}})
	if err != nil || len(nn.CV()) != 0 {
		t.Errorf("nn: %v, tables %+v", err, nn.CV())
	}
	// A best model: its choice of method, then the chosen candidate's.
	b, err := model.FitOutput(ctx, train, model.Options{Method: "best", Params: map[string]any{"rule": "max"}, Seed: 5, Candidates: []model.Candidate{
		{Name: "nn-airm", Method: "nn", Params: map[string]any{"metric": "airm"}},
		{Name: "rsr", Method: rsr.method, Params: rsr.params},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cv = b.CV()
	if len(cv) == 0 || cv[0].Choice != "methods" || cv[0].Rule != "max" || cv[0].Candidates[cv[0].Chosen].Name != b.ChosenMethod() {
		t.Fatalf("best: tables %+v, chose %q", cv, b.ChosenMethod())
	}
	if b.ChosenMethod() == "rsr" && (len(cv) != 2 || cv[1].Scope != `candidate "rsr"` || cv[1].Choice != "parameters") {
		t.Errorf("best chose rsr: tables %+v, want rsr's choice of parameters after the choice of method", cv)
	}
}
