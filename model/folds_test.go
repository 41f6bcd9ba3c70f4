package model_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/store"
)

// TestFitFoldsBy fits with folds by a metadata key of the images: three
// images per class, one per pose, so five stratified folds are refused,
// while folds by pose hold out each pose in turn (three folds), which
// model.json records; descriptors without their images' metadata cannot
// be grouped.
func TestFitFoldsBy(t *testing.T) {
	train, _ := gratingFolders(t, 3, 0)
	inputs := open(t, train)
	poses := []string{"ba", "bj", "bk"}
	for i := range inputs[0].Items {
		inputs[0].Items[i].Meta = map[string]string{"pose": poses[i%3]}
	}
	o := model.Options{Method: "rsr", Params: map[string]any{"sigma": 2, "lambda_ratio": []float64{0.05, 0.1}}, Folds: 5, Describe: textureOptions(t)}
	ctx := context.Background()
	if _, err := model.Fit(ctx, inputs, o); err == nil || !strings.Contains(err.Error(), "lower the folds") {
		t.Fatalf("five stratified folds of three images per class: %v", err)
	}
	o.FoldsBy = classify.FoldGroups{Key: "pose"}
	m, err := model.Fit(ctx, inputs, o)
	if err != nil {
		t.Fatal(err)
	}
	cv := m.CV()
	if info := m.Info(); info.FoldsBy.Key != "pose" || len(cv) != 1 || len(cv[0].Candidates[0].Folds) != 3 {
		t.Errorf("folds by pose: info %+v, CV %+v; want three folds, one per pose", info, cv)
	}
	out, err := describe.Collect(ctx, inputs, o.Describe)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = model.FitOutput(ctx, out, o); err == nil || !strings.Contains(err.Error(), `folds_by: pose: descriptors carry no image metadata`) {
		t.Errorf("FitOutput with FoldsBy: %v", err)
	}
	// The same descriptors with their poses as groups fold as Fit does.
	pose := map[string]string{}
	for _, it := range inputs[0].Items {
		pose[it.Rel] = it.Meta["pose"]
	}
	for _, r := range out.Rows {
		o.Groups = append(o.Groups, pose[r.Path])
	}
	g, err := model.FitOutput(ctx, out, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.CV(), cv) || g.Info().FoldsBy != o.FoldsBy {
		t.Errorf("FitOutput with the poses as groups: CV %+v, folds %v; want Fit's %+v, %v", g.CV(), g.Info().FoldsBy, cv, o.FoldsBy)
	}
	n := len(o.Groups)
	for _, c := range []struct {
		name   string
		key    string
		groups []string
		want   string
	}{
		{"no key", "", o.Groups, "without folds_by or folds_within"},
		{"short", "pose", o.Groups[:n-1], fmt.Sprintf("%d groups for %d descriptors", n-1, n)},
		{"empty", "pose", append(slices.Clone(o.Groups[:n-1]), ""), fmt.Sprintf("descriptor %d has an empty group", n-1)},
	} {
		p := o
		p.FoldsBy.Key, p.Groups = c.key, c.groups
		if _, err := model.FitOutput(ctx, out, p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestFitNotesCopies fits on descriptors of which one has a copy under
// another label and one under its own: the model notes the two pairs
// across labels, recorded and read back, and none without the copies.
func TestFitNotesCopies(t *testing.T) {
	ctx := context.Background()
	o := model.Options{Method: "nn", Params: map[string]any{"metric": "stein"}}
	out := synthOutput(t, 8, 3)
	m, err := model.FitOutput(ctx, out, o)
	if err != nil {
		t.Fatal(err)
	}
	if n := m.Notes(); n != nil {
		t.Errorf("no copies: notes %q", n)
	}
	size := 9
	other := slices.IndexFunc(out.Rows, func(r store.Row) bool { return r.Label != out.Rows[0].Label })
	same := slices.IndexFunc(out.Rows[1:], func(r store.Row) bool { return r.Label == out.Rows[0].Label }) + 1
	copy(out.Data[other*size:(other+1)*size], out.Data[:size])
	copy(out.Data[same*size:(same+1)*size], out.Data[:size])
	if m, err = model.FitOutput(ctx, out, o); err != nil {
		t.Fatal(err)
	}
	// Row 0, its copy under its label and the copy under another label
	// make two pairs across labels, the first found (0, other).
	want := fmt.Sprintf("2 pairs of the training descriptors are bit for bit the same under different labels (e.g. descriptor 0 (%s) and descriptor %d (%s))", out.Rows[0].Label, other, out.Rows[other].Label)
	for _, notes := range [][]string{m.Notes(), saveLoad(t, m).Info().Notes} {
		if len(notes) != 1 || !strings.HasPrefix(notes[0], want) {
			t.Errorf("notes %q, want one starting %q", notes, want)
		}
	}
}
