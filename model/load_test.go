package model_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"math/rand/v2"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/store"
)

// savedModel fits an rsr model on gratings, saves it into a temporary
// folder and returns the folder and the gratings' test folder.
func savedModel(t *testing.T) (dir, testDir string) {
	t.Helper()
	trainDir, testDir := gratingFolders(t, 4, 2)
	m, err := model.Fit(context.Background(), open(t, trainDir), model.Options{Method: "rsr", Params: methodCases[0].params, Describe: textureOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "model")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	return dir, testDir
}

// edit replaces the file name of dir by what change makes of it.
func edit(t *testing.T, dir, name string, change func([]byte) []byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, change(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// resave writes the files of the model folder dir, model.json changed
// by change, as a new output set of a model (so with the hashes of the
// changed files) and returns its folder.
func resave(t *testing.T, dir string, change func([]byte) []byte) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "resaved")
	f, err := store.CreateFolder(context.Background(), out, model.Format)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == store.MetaFile || strings.HasPrefix(name, ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "model.json" {
			b = change(b)
		}
		if err := f.WriteFile(name, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLoadDamaged checks that Load refuses a damaged model folder with
// an error naming the folder (or the file) and what is wrong, and that
// the undamaged folder loads.
func TestLoadDamaged(t *testing.T) {
	dir, _ := savedModel(t)
	replace := func(old, new string) func([]byte) []byte {
		return func(b []byte) []byte {
			if !bytes.Contains(b, []byte(old)) {
				t.Fatalf("no %q in %s", old, b)
			}
			return bytes.Replace(b, []byte(old), []byte(new), 1)
		}
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string) string // the folder to load
		is     error
		want   string
	}{
		{"torn meta", func(t *testing.T, dir string) string {
			edit(t, dir, store.MetaFile, func(b []byte) []byte { return b[:len(b)/2] })
			return dir
		}, store.ErrInvalid, store.MetaFile},
		{"changed descriptors", func(t *testing.T, dir string) string {
			edit(t, dir, "descriptors.npy", func(b []byte) []byte { b[len(b)-3] ^= 1; return b })
			return dir
		}, store.ErrTorn, "descriptors.npy"},
		{"changed hash", func(t *testing.T, dir string) string {
			edit(t, dir, store.MetaFile, func(b []byte) []byte {
				i := bytes.Index(b, []byte(`"sha256": "`)) + len(`"sha256": "`)
				// Another hex digit.
				if b[i] == '0' {
					b[i] = '1'
				} else {
					b[i] = '0'
				}
				return b
			})
			return dir
		}, store.ErrTorn, "model.json"},
		{"wrong version", func(t *testing.T, dir string) string {
			edit(t, dir, store.MetaFile, replace(model.Format, "covpipe-model/9"))
			return dir
		}, store.ErrInvalid, "written by another covpipe (format covpipe-model/9, want " + model.Format + ")"},
		{"missing file", func(t *testing.T, dir string) string {
			if err := os.Remove(filepath.Join(dir, "state-gram.npy")); err != nil {
				t.Fatal(err)
			}
			return dir
		}, store.ErrTorn, "state-gram.npy"},
		{"no model", func(t *testing.T, dir string) string { return t.TempDir() }, store.ErrInvalid, "no meta.json"},
		{"labels", func(t *testing.T, dir string) string {
			return resave(t, dir, replace(`"labels": [`, `"labels": [0,`))
		}, store.ErrInvalid, "labels for the"},
		{"class", func(t *testing.T, dir string) string {
			return resave(t, dir, func(b []byte) []byte {
				i := bytes.Index(b, []byte(`"labels": [`))
				i += bytes.IndexAny(b[i:], "0123456789")
				b[i] = '7'
				return b
			})
		}, store.ErrInvalid, "is not a class"},
		{"both fold groups", func(t *testing.T, dir string) string {
			return resave(t, dir, replace(`"method":`, `"folds_by": "pose", "folds_within": "tracklet", "method":`))
		}, store.ErrInvalid, "folds_by pose and folds_within tracklet: give one"},
		{"unknown key", func(t *testing.T, dir string) string {
			return resave(t, dir, replace(`"method":`, `"methods": "x", "method":`))
		}, store.ErrInvalid, "methods"},
		{"future version", func(t *testing.T, dir string) string {
			return resave(t, dir, func(b []byte) []byte {
				return regexp.MustCompile(`"covpipe_version": "[^"]*"`).ReplaceAll(b, []byte(`"covpipe_version": "99.0.0 (rev 1234567)"`))
			})
		}, store.ErrInvalid, "written by covpipe 99.0.0 (rev 1234567), newer than this covpipe"},
		{"malformed version", func(t *testing.T, dir string) string {
			return resave(t, dir, func(b []byte) []byte {
				return regexp.MustCompile(`"covpipe_version": "[^"]*"`).ReplaceAll(b, []byte(`"covpipe_version": "latest"`))
			})
		}, store.ErrInvalid, `version "latest" does not start with MAJOR.MINOR.PATCH`},
		{"link outside", func(t *testing.T, dir string) string {
			// The same bytes, so that only the link is wrong.
			outside := filepath.Join(t.TempDir(), "state-gram.npy")
			if err := os.Rename(filepath.Join(dir, "state-gram.npy"), outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(dir, "state-gram.npy")); err != nil {
				t.Fatal(err)
			}
			return dir
		}, store.ErrInvalid, "outside the model's folder"},
		{"λ", func(t *testing.T, dir string) string {
			return resave(t, dir, replace(`"lambda_ratio": 0.`, `"lambda_ratio": 7`))
		}, store.ErrInvalid, "lambda"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			copyDir := filepath.Join(t.TempDir(), "model")
			if err := os.CopyFS(copyDir, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			bad := tc.damage(t, copyDir)
			_, err := model.Load(bad)
			if err == nil || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), bad) {
				t.Errorf("Load: %v, want %v naming %s and %q", err, tc.is, bad, tc.want)
			}
		})
	}
	if _, err := model.Load(dir); err != nil {
		t.Errorf("undamaged: %v", err)
	}
}

// TestPredictMismatch checks that a model refuses images or descriptors
// its extraction options do not fit, naming both sides: descriptors of
// another d, descriptors made with another ridge, and grey images for
// colour features.
func TestPredictMismatch(t *testing.T) {
	dir, testDir := savedModel(t)
	ctx := context.Background()
	m, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := textureOptions(t)
	if o.Features, err = features.Parse("I,Ix,Iy"); err != nil {
		t.Fatal(err)
	}
	grey, err := describe.Collect(ctx, open(t, testDir), o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.PredictOutput(ctx, grey, model.PredictOptions{})
	if want := "takes 5×5 descriptors (features I,Ix,Iy,Ixx,Iyy), the descriptors of " + testDir + " are 3×3 (features I,Ix,Iy)"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), dir) {
		t.Errorf("other d: %v, want %q", err, want)
	}
	o = textureOptions(t)
	if o.Reg, err = covariance.NewRegularization("trace-ridge", 0.5); err != nil {
		t.Fatal(err)
	}
	ridged, err := describe.Collect(ctx, open(t, testDir), o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = m.PredictOutput(ctx, ridged, model.PredictOptions{}); err == nil || !strings.Contains(err.Error(), "made otherwise") || !strings.Contains(err.Error(), "0.5") {
		t.Errorf("other ridge: %v, want an error naming the ridges", err)
	}

	// A colour model, and grey images to label.
	colour := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, class := range []string{"x", "y"} {
		for i := range 3 {
			imagetest.Write(t, filepath.Join(colour, class, string(rune('a'+i))+".png"), imagetest.NoiseNRGBA(rng, 8, 8))
		}
	}
	o = textureOptions(t)
	if o.Features, err = features.Parse("R,G,B"); err != nil {
		t.Fatal(err)
	}
	cm, err := model.Fit(ctx, open(t, colour), model.Options{Method: "nn", Params: map[string]any{"metric": "stein"}, Describe: o})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cm.Predict(ctx, open(t, testDir), model.PredictOptions{})
	if err == nil || !strings.Contains(err.Error(), "colour features (R,G,B)") || !strings.Contains(err.Error(), "is a grey image") {
		t.Errorf("grey images for a colour model: %v", err)
	}
}

// TestLoadPartsDamaged checks that Load refuses a model of several
// regions per image whose record does not hold together, naming what is
// wrong, and loads the undamaged one.
func TestLoadPartsDamaged(t *testing.T) {
	trainDir, _ := gratingFolders(t, 4, 1)
	m, err := model.Fit(context.Background(), open(t, trainDir), model.Options{Method: "rsr", Params: map[string]any{"sigma": 0.5, "lambda_ratio": 0.1}, Describe: partsOptions(t), Fusion: []string{"sum"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := model.Load(resave(t, dir, func(b []byte) []byte { return b })); err != nil {
		t.Fatalf("undamaged: %v", err)
	}
	for _, tc := range []struct{ old, new, want string }{
		{`"rule": "sum"`, `"rule": "mean"`, "fusion rule"},
		{`"weights": [
      1,`, `"weights": [`, "weights"},
		{`"method": "rsr"`, `"method": "nn"`, `unknown key "kernel"`},
		{`"set": 0`, `"set": 1`, "layout 1 of 1"},
	} {
		_, err := model.Load(resave(t, dir, func(b []byte) []byte {
			if !bytes.Contains(b, []byte(tc.old)) {
				t.Fatalf("no %q in %s", tc.old, b)
			}
			return bytes.Replace(b, []byte(tc.old), []byte(tc.new), 1)
		}))
		if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: %v, want an invalid model saying %q", tc.old, tc.new, err, tc.want)
		}
	}
}
