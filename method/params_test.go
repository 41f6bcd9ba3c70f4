package method

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/param"
	"github.com/covpipe/covpipe/spd"
)

// TestParameters checks every type's declarations against the keys its
// constructor decodes: the keys strict decoding lists as allowed are the
// declared ones, in order, so that the struct of Type.Params is the one
// New decodes.
func TestParameters(t *testing.T) {
	allowed := regexp.MustCompile(`\(allowed: (.*)\)`)
	for _, typ := range Names() {
		var keys []string
		for _, d := range Types()[typ].Parameters() {
			keys = append(keys, d.Key)
		}
		if len(keys) == 0 {
			t.Errorf("%s declares no parameters", typ)
			continue
		}
		_, err := buildMethod(t, typ, "{no_such_key: 1}")
		m := allowed.FindStringSubmatch(errString(err))
		if m == nil || m[1] != strings.Join(keys, ", ") {
			t.Errorf("%s: unknown key refused with %v; want the declared keys %v", typ, err, keys)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestMissingAtOnce checks that a method type reports every required
// parameter it is not given in one error, by key.
func TestMissingAtOnce(t *testing.T) {
	for _, tc := range []struct {
		typ, params string
		want        [][]string
	}{
		{"stein-svm", "{kernel: log-euclidean}", [][]string{{"sigma"}, {"c"}}},
		{"stein-svm", "{}", [][]string{{"c"}}},
		{"rsr", "{kernel: log-euclidean}", [][]string{{"sigma"}}},
		{"rlpp", "{kernel: log-euclidean}", [][]string{{"sigma"}}},
		{"tsc", "{}", [][]string{{"lambda"}}},
		{"codes", "{}", [][]string{{"dictionary"}, {"sigma"}, {"lambda", "lambda_ratio"}}},
		{"codes", "{sigma: 1}", [][]string{{"dictionary"}, {"lambda", "lambda_ratio"}}},
	} {
		_, err := buildMethod(t, tc.typ, tc.params)
		var missing *param.MissingError
		if !errors.As(err, &missing) || !reflect.DeepEqual(missing.Keys, tc.want) {
			t.Errorf("%s %s: %v, want missing %v", tc.typ, tc.params, err, tc.want)
		}
	}
	// Without any parameter, a type either builds or says only what is
	// missing.
	for _, typ := range Names() {
		_, err := buildMethod(t, typ, "{}")
		var missing *param.MissingError
		if err != nil && !errors.As(err, &missing) {
			t.Errorf("%s {}: %v, want nil or the missing keys", typ, err)
		}
	}
}

// TestDefaultSigma checks the σ that a kernel method takes when given
// none: (d−1)/2, here 1 for 3×3 and 2 for 5×5 matrices, which Theorem 1
// accepts, recorded as chosen; and that a given σ is kept.
func TestDefaultSigma(t *testing.T) {
	for _, tc := range []struct {
		typ, params string
	}{
		{"rsr", "{lambda_ratio: 0.1}"},
		{"stein-svm", "{c: 10}"},
		{"rlpp", "{}"},
	} {
		for _, c := range []struct {
			d    int
			want float64
		}{{3, 1}, {5, 2}} {
			data, train, _ := syntheticData(t, 3, c.d, 60, 0.2, 5)
			m := newMethod(t, tc.typ, tc.params)
			spec := m.Spec()
			if spec.Candidates != 1 || spec.CheckDim(c.d) != nil {
				t.Errorf("%s %s: %d candidates, CheckDim(%d) %v", tc.typ, tc.params, spec.Candidates, c.d, spec.CheckDim(c.d))
			}
			split := &classify.Split{Data: data, Train: train, Workers: 2, Folds: 3, Seed: 1}
			f, err := m.Fit(context.Background(), split.Fitting())
			if err != nil {
				t.Fatalf("%s %s on %d×%d: %v", tc.typ, tc.params, c.d, c.d, err)
			}
			sigma := f.Chosen()["sigma"]
			if sigma != c.want || spd.DefaultSigma(c.d) != c.want {
				t.Errorf("%s %s on %d×%d: chosen sigma %v, default %v, want %v", tc.typ, tc.params, c.d, c.d, sigma, spd.DefaultSigma(c.d), c.want)
			}
			if err := (spd.SteinKernel{Sigma: sigma}).Check(c.d); err != nil {
				t.Errorf("%s: default sigma %v on %d×%d: %v", tc.typ, sigma, c.d, c.d, err)
			}
		}
	}
	data, train, _ := syntheticData(t, 3, 5, 60, 0.2, 5)
	f, err := newMethod(t, "rsr", "{sigma: 0.5, lambda: 0.1}").Fit(context.Background(), (&classify.Split{Data: data, Train: train, Workers: 2}).Fitting())
	if err != nil || f.Chosen()["sigma"] != 0.5 {
		t.Errorf("given sigma 0.5: chosen %v, %v", f.Chosen(), err)
	}
}

// TestDefaults checks the other defaults of parameters not given, as the
// resolved parameters record them, and that giving a key overrides them.
func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		typ, params string
		want        string // in the JSON of Spec().Params
	}{
		{"rsr", "{}", `"lambda_ratio":[0.1]`},
		{"logE-SR", "{}", `"lambda_ratio":[0.1]`},
		{"pca-src", "{}", `"lambda_ratio":[0.1]`},
		{"gsr", "{}", `"lambda_ratio":[0.1]`},
		{"rsr", "{lambda: 0.01}", `"lambda":[0.01]`},
		{"rsr", "{lambda_ratio: 0.2}", `"lambda_ratio":[0.2]`},
		{"nn", "{}", `"metric":"stein"`},
		{"nn", "{metric: airm}", `"metric":"airm"`},
	} {
		b, err := json.Marshal(newMethod(t, tc.typ, tc.params).Spec().Params)
		if err != nil || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s %s: params %s, %v; want %s", tc.typ, tc.params, b, err, tc.want)
		}
		if tc.params == "{}" && strings.Contains(string(b), `"lambda":`) {
			t.Errorf("%s {}: params %s give lambda beside the default ratio", tc.typ, b)
		}
	}
	if DefaultLambdaRatio != 0.1 {
		t.Errorf("DefaultLambdaRatio = %v; the declarations say 0.1", DefaultLambdaRatio)
	}
}
