package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/foldertest"
)

// estimatorYAML is a run over the dataset "two" with extra data keys.
const estimatorYAML = `
name: est
seed: 1
repeats: 1
data:
  dataset: two
  features: I,Ix,Iy
%stasks:
  - name: t
    split: {train_per_class: 1}
methods:
  - {name: nn-stein, type: nn, metric: stein}
`

// TestDataEstimator checks data.estimator and data.normalize: parsed once
// into typed values, strict errors naming the key, recorded in the config
// as run only when given.
func TestDataEstimator(t *testing.T) {
	for _, tc := range []struct {
		extra string
		est   covariance.Estimator
		norm  covariance.Normalization
		json  string // the data section as results.json records it
		err   string
	}{
		{"", covariance.SCM, covariance.NormNone, `{"dataset":"two","features":"I,Ix,Iy","ridge":[0.0001],"ridge_kind":"trace-ridge"}`, ""},
		{"  estimator: lwf\n  normalize: det\n", covariance.LedoitWolf, covariance.NormDet, `{"dataset":"two","features":"I,Ix,Iy","ridge":[0.0001],"ridge_kind":"trace-ridge","estimator":"lwf","normalize":"det"}`, ""},
		{"  estimator: oas\n  ridge: 0\n", covariance.OAS, covariance.NormNone, `{"dataset":"two","features":"I,Ix,Iy","ridge":[0],"ridge_kind":"trace-ridge","estimator":"oas"}`, ""},
		{"  estimator: scm\n  normalize: none\n", covariance.SCM, covariance.NormNone, `{"dataset":"two","features":"I,Ix,Iy","ridge":[0.0001],"ridge_kind":"trace-ridge","estimator":"scm","normalize":"none"}`, ""},
		{"  estimator: ledoit-wolf\n", 0, 0, "", `line 6: estimator "ledoit-wolf": want scm, lwf or oas`},
		{"  normalize: determinant\n", 0, 0, "", `line 6: normalize "determinant": want none, trace, det or corr`},
		{"  estimater: lwf\n", 0, 0, "", `unknown key "estimater" in data`},
	} {
		p, err := Parse(fmt.Appendf(nil, estimatorYAML, tc.extra))
		if failed(t, fmt.Sprintf("%q", tc.extra), err, tc.err) {
			continue
		}
		if p.data.estimator != tc.est || p.data.normalize != tc.norm {
			t.Errorf("%q: estimator %v, normalisation %v", tc.extra, p.data.estimator, p.data.normalize)
		}
		if b, err := json.Marshal(p.Config.Data); err != nil || string(b) != tc.json {
			t.Errorf("%q: recorded as %s, want %s", tc.extra, b, tc.json)
		}
	}
}

// TestEstimatorCache checks that a run with an estimator and a
// normalisation extracts the descriptors describe writes with the same
// options, in a cache entry of its own beside the default one's.
func TestEstimatorCache(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeNoisePNGs(t, root, "two/cats/a.png", "two/cats/b.png", "two/dogs/a.png", "two/dogs/b.png")
	dirs := runCached(t, root, cache, "", "  estimator: oas\n  normalize: trace\n")
	if len(dirs) != 2 {
		t.Fatalf("cache folders %v, want one per estimator", dirs)
	}
	plain := describeDataset(t, root, "two", "I,Ix,Iy", describe.Options{Estimator: covariance.OAS, Normalize: covariance.NormTrace})
	same := 0
	for _, dir := range dirs {
		if foldertest.Same(t, plain, dir) == "" {
			same++
		}
	}
	if same != 1 {
		t.Errorf("%d of the cache folders %v are describe's with oas and trace, want 1", same, dirs)
	}
}

// runCached runs estimatorYAML with each of the extra data keys on the
// data root with the descriptor cache, and returns the cache's entries.
func runCached(t *testing.T, root, cache string, extras ...string) []string {
	t.Helper()
	for _, extra := range extras {
		p, err := Parse(fmt.Appendf(nil, estimatorYAML, extra))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), p, Options{DataRoot: root, CacheDir: cache}); err != nil {
			t.Fatal(err)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(cache, "descriptors", "*"))
	return dirs
}

// describeDataset runs describe on the dataset spec of root with the
// features of spec and the other options of o, into a new folder, and
// returns the folder: what a run's descriptor cache must hold.
func describeDataset(t *testing.T, root, dataset, spec string, o describe.Options) string {
	t.Helper()
	list, err := openDataset(root, dataset)
	if err != nil {
		t.Fatal(err)
	}
	if o.Features, err = features.Parse(spec); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "plain")
	if _, err := describe.Describe(context.Background(), []*datasets.List{list}, dir, o); err != nil {
		t.Fatal(err)
	}
	return dir
}

// failed reports whether case name wants an error (want, a part of its
// text), failing t unless err has it; a case that wants none fails t
// fatally on err.
func failed(t *testing.T, name string, err error, want string) bool {
	t.Helper()
	if want != "" {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
		return true
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return false
}
