//go:build cgo

package main

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/internal/canceltest"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/mat"
)

// cchar is C's char, which a test file cannot name as C.char.
type cchar = _Ctype_char

// flat returns the matrices as the n·d·d values of an (n, d, d) array.
func flat(xs []*mat.SymDense) []float64 {
	var out []float64
	for _, x := range xs {
		d := x.SymmetricDim()
		for i := range d {
			for j := range d {
				out = append(out, x.At(i, j))
			}
		}
	}
	return out
}

// problem returns the training and test matrices of a synthetic task of
// 3×3 matrices of 4 classes (synth.Paper), and their labels as class
// names.
func problem(t *testing.T, samples int) (train, test []float64, trainLabels, testLabels []string) {
	t.Helper()
	o := synth.Paper(1, 0.1)
	o.Samples = samples
	tr, te, err := synth.Classes(o, 1)
	if err != nil {
		t.Fatal(err)
	}
	names := func(ls []int) []string {
		var out []string
		for _, l := range ls {
			out = append(out, "class-"+string(rune('a'+l)))
		}
		return out
	}
	return flat(tr.X), flat(te.X), names(tr.Labels), names(te.Labels)
}

// ptr returns the address of the first value of x, as a caller's buffer.
func ptr(x []float64) unsafe.Pointer { return unsafe.Pointer(&x[0]) }

// errorOf frees and returns the error message of a call, "" for none.
func errorOf(p *cchar) string {
	if p == nil {
		return ""
	}
	defer covpipe_free(p)
	return goString(p)
}

// mustOK fails t on a call's error.
func mustOK(t *testing.T, what string, p *cchar) {
	t.Helper()
	if msg := errorOf(p); msg != "" {
		t.Fatalf("%s: %s", what, msg)
	}
}

// text returns and frees the text that a call set.
func text(t *testing.T, p *cchar) string {
	t.Helper()
	if p == nil {
		t.Fatal("no text")
	}
	defer covpipe_free(p)
	return goString(p)
}

// cs returns s as a C string that is freed at the end of t.
func cs(t *testing.T, s string) *cchar {
	p := cString(s)
	t.Cleanup(func() { covpipe_free(p) })
	return p
}

// resultArray returns the array name of the result h, copied out as a
// caller does, and its shape.
func resultArray(t *testing.T, h uintptr, name string) ([]float64, []int64) {
	t.Helper()
	shape := make([]int64, maxDims)
	var ndim int64
	mustOK(t, "shape", covpipe_result_shape(h, cs(t, name), &shape[0], &ndim))
	n := int64(1)
	for _, s := range shape[:ndim] {
		n *= s
	}
	out := make([]float64, n+1) // never empty, for ptr
	mustOK(t, "copy", covpipe_result_copy(h, cs(t, name), ptr(out), n))
	return out[:n], shape[:ndim]
}

// resultText returns the text of the result h.
func resultText(t *testing.T, h uintptr) string {
	t.Helper()
	var p *cchar
	mustOK(t, "text", covpipe_result_text(h, &p))
	return text(t, p)
}

func release(t *testing.T, h uintptr) {
	t.Helper()
	mustOK(t, "release", covpipe_release(h))
}

// sameBits fails t unless got and want are the same float64s, bit for bit.
func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("%s[%d] = %.17g, want %.17g", what, i, got[i], want[i])
		}
	}
}

func TestDistanceMatchesLibrary(t *testing.T) {
	train, test, _, _ := problem(t, 64)
	a, b := train[:5*9], test[:7*9]
	sa, _ := spd.NewSetFromData(3, slices.Clone(a))
	sb, _ := spd.NewSetFromData(3, slices.Clone(b))
	w := spd.NewWorkspace(3)
	for _, m := range spd.Metrics() {
		t.Run(m.String(), func(t *testing.T) {
			var want []float64
			for i := range 5 {
				for j := range 7 {
					v, err := w.Distance(m, sa.View(i), sb.View(j))
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, v)
				}
			}
			for _, workers := range []int64{1, 3} {
				out := make([]float64, 5*7)
				mustOK(t, "distance", covpipe_distance(0, cs(t, m.String()), ptr(a), 5, ptr(b), 7, 3, workers, ptr(out)))
				sameBits(t, "distances", out, want)
			}
		})
	}
}

func TestMeanMatchesLibrary(t *testing.T) {
	train, _, _, _ := problem(t, 64)
	x := train[:6*9]
	set, _ := spd.NewSetFromData(3, slices.Clone(x))
	var views []*mat.SymDense
	for i := range set.Len() {
		views = append(views, set.View(i))
	}
	karcher, _, _ := spd.KarcherMean(context.Background(), views, nil)
	stein, _, _ := spd.SteinMean(context.Background(), views, nil)
	logE, _, _ := spd.LogEuclideanMean(context.Background(), views, nil)
	for _, tc := range []struct {
		metric string
		want   *mat.SymDense
	}{{"airm", karcher}, {"riemann", karcher}, {"stein", stein}, {"log-euclidean", logE}} {
		t.Run(tc.metric, func(t *testing.T) {
			out := make([]float64, 9)
			var info *cchar
			mustOK(t, "mean", covpipe_mean(0, cs(t, tc.metric), ptr(x), 6, 3, nil, ptr(out), &info))
			var in meanInfo
			if err := json.Unmarshal([]byte(text(t, info)), &in); err != nil || !in.Converged {
				t.Fatalf("info %+v, %v: want converged", in, err)
			}
			sameBits(t, "mean", out, flat([]*mat.SymDense{tc.want}))
		})
	}
}

func TestSteinKernelMatchesLibrary(t *testing.T) {
	train, test, _, _ := problem(t, 64)
	a, b := train[:4*9], test[:3*9]
	sa, _ := spd.NewSetFromData(3, slices.Clone(a))
	sb, _ := spd.NewSetFromData(3, slices.Clone(b))
	var want []float64
	for i := range 4 {
		for j := range 3 {
			s, err := spd.Stein(sa.View(i), sb.View(j))
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, math.Exp(-s))
		}
	}
	out := make([]float64, 12)
	mustOK(t, "kernel", covpipe_stein_kernel(0, 1, 0, ptr(a), 4, ptr(b), 3, 3, 0, ptr(out)))
	sameBits(t, "K", out, want)
}

// TestErrorsAreMessages checks that bad input, misused handles and
// refused parameters come back as messages of their kind, never a crash.
func TestErrorsAreMessages(t *testing.T) {
	train, _, labels, _ := problem(t, 64)
	bad := slices.Clone(train[:2*9])
	bad[9] = -1 // matrix 1 loses positive definiteness
	out := make([]float64, 4)
	released := covpipe_cancel_new()
	release(t, released)
	fitWith := func(o fitOptions, n int64) *cchar {
		b, _ := json.Marshal(o)
		var h uintptr
		msg := covpipe_fit(0, cs(t, string(b)), ptr(train), n, 3, nil, 0, &h)
		if h != 0 {
			t.Error("a failed fit set a handle")
		}
		return msg
	}
	for _, tc := range []struct {
		name, kind, want string
		call             func() *cchar
	}{
		{"unknown metric", "v", `unknown metric "cosine"`, func() *cchar {
			return covpipe_distance(0, cs(t, "cosine"), ptr(train), 2, ptr(train), 2, 3, 0, ptr(out))
		}},
		{"matrix not SPD", "v", "B: matrix 1", func() *cchar {
			return covpipe_distance(0, cs(t, "airm"), ptr(train), 2, ptr(bad), 2, 3, 0, ptr(out))
		}},
		{"no matrices", "v", "0 matrices", func() *cchar {
			return covpipe_distance(0, cs(t, "airm"), ptr(train), 0, ptr(train), 2, 3, 0, ptr(out))
		}},
		{"NULL input", "v", "NULL pointer", func() *cchar {
			return covpipe_distance(0, cs(t, "airm"), nil, 2, ptr(train), 2, 3, 0, ptr(out))
		}},
		{"too many values", "v", "too many values", func() *cchar {
			return covpipe_distance(0, cs(t, "airm"), ptr(train), 1<<40, ptr(train), 2, 1<<20, 0, ptr(out))
		}},
		{"no mean for thompson", "v", "no mean for metric thompson", func() *cchar {
			return covpipe_mean(0, cs(t, "thompson"), ptr(train), 2, 3, nil, ptr(out), nil)
		}},
		{"unknown mean option", "v", `unknown field "tolerance"`, func() *cchar {
			return covpipe_mean(0, cs(t, "airm"), ptr(train), 2, 3, cs(t, `{"tolerance": 1}`), ptr(out), nil)
		}},
		{"sigma refused by Theorem 1", "v", "Theorem 1", func() *cchar {
			return covpipe_stein_kernel(0, 0.7, 0, ptr(train), 2, ptr(train), 2, 3, 0, ptr(out))
		}},
		{"released token", "r", "invalid", func() *cchar {
			return covpipe_distance(released, cs(t, "airm"), ptr(train), 2, ptr(train), 2, 3, 0, ptr(out))
		}},
		{"a token as a model", "v", "model: handle", func() *cchar {
			tok := covpipe_cancel_new()
			defer release(t, tok)
			return covpipe_model_save(tok, cs(t, t.TempDir()))
		}},
		{"unknown method", "v", `method "svm"`, func() *cchar {
			return fitWith(fitOptions{Method: "svm", Labels: labels}, int64(len(labels)))
		}},
		{"parameter refused", "v", "sigma", func() *cchar {
			return fitWith(fitOptions{Method: "rsr", Params: map[string]any{"sigma": 0.7}, Labels: labels}, int64(len(labels)))
		}},
		{"unknown parameter", "v", "sigmas", func() *cchar {
			return fitWith(fitOptions{Method: "rsr", Params: map[string]any{"sigmas": 1}, Labels: labels}, int64(len(labels)))
		}},
		{"labels of other matrices", "v", "1 labels for 2 matrices", func() *cchar {
			return fitWith(fitOptions{Method: "nn", Labels: labels[:1]}, 2)
		}},
		{"vectors of another length", "v", "vectors: 7 values for 2 matrices", func() *cchar {
			b, _ := json.Marshal(fitOptions{Method: "nn", Labels: labels[:2], Vectors: &store.Vectors{FeatureSpec: "I", Step: 1}})
			var h uintptr
			return covpipe_fit(0, cs(t, string(b)), ptr(train), 2, 3, ptr(train), 7, &h)
		}},
		{"vectors without what they are", "v", "without what they are", func() *cchar {
			b, _ := json.Marshal(fitOptions{Method: "nn", Labels: labels[:2]})
			var h uintptr
			return covpipe_fit(0, cs(t, string(b)), ptr(train), 2, 3, ptr(train), 8, &h)
		}},
		{"vectors for a model that reads none", "v", "reads none", func() *cchar {
			b, _ := json.Marshal(fitOptions{Method: "nn", Labels: labels})
			var h, r uintptr
			mustOK(t, "fit", covpipe_fit(0, cs(t, string(b)), ptr(train), int64(len(labels)), 3, nil, 0, &h))
			defer release(t, h)
			return covpipe_predict(0, h, ptr(train), 2, 3, ptr(train), 4, nil, &r)
		}},
		{"costs of a method without them", "v", "gives no class costs", func() *cchar {
			b, _ := json.Marshal(fitOptions{Method: "nn", Params: map[string]any{"metric": "airm"}, Labels: labels})
			var h, r uintptr
			mustOK(t, "fit", covpipe_fit(0, cs(t, string(b)), ptr(train), int64(len(labels)), 3, nil, 0, &h))
			defer release(t, h)
			return covpipe_predict(0, h, ptr(train), 2, 3, nil, 0, cs(t, `{"costs": true}`), &r)
		}},
		{"method spec of a refused parameter", "v", "sigmas", func() *cchar {
			var p *cchar
			return covpipe_method_spec(cs(t, "rsr"), cs(t, `{"sigmas": 1}`), &p)
		}},
		{"method spec of an unknown type", "v", `method type "svm"`, func() *cchar {
			var p *cchar
			return covpipe_method_spec(cs(t, "svm"), nil, &p)
		}},
		{"describe vectors of no features", "v", "vectors: features", func() *cchar {
			var h uintptr
			return covpipe_describe(0, cs(t, `["x.png"]`), cs(t, `{"vectors": {"feature_spec": "nope", "step": 1}}`), &h)
		}},
		{"negative fold position", "v", "position 1 is -2", func() *cchar {
			pos := []int64{0, -2}
			var seed uint64
			return covpipe_fold_seed(1, &pos[0], 2, &seed)
		}},
		{"missing model folder", "v", "none: no meta.json", func() *cchar {
			var h uintptr
			return covpipe_model_load(cs(t, filepath.Join(t.TempDir(), "none")), &h)
		}},
		{"missing image", "o", "none.png", func() *cchar {
			var h uintptr
			return covpipe_describe(0, cs(t, `["`+filepath.Join(t.TempDir(), "none.png")+`"]`), nil, &h)
		}},
		{"unknown describe option", "v", "featurs", func() *cchar {
			var h uintptr
			return covpipe_describe(0, cs(t, `["x.png"]`), cs(t, `{"featurs": "I"}`), &h)
		}},
		{"unknown result array", "v", `no array "Y"`, func() *cchar {
			var r uintptr
			if err := newHandle(&r, &result{arrays: map[string]array{"X": {}}}); err != nil {
				t.Fatal(err)
			}
			defer release(t, r)
			var ndim int64
			shape := make([]int64, maxDims)
			return covpipe_result_shape(r, cs(t, "Y"), &shape[0], &ndim)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := errorOf(tc.call())
			kind, text, _ := strings.Cut(msg, ":")
			if kind != tc.kind || !strings.Contains(text, tc.want) {
				t.Errorf("error %q, want kind %q and a message with %q", msg, tc.kind, tc.want)
			}
		})
	}
}

// spread returns n well-conditioned d×d SPD matrices, flat.
func spread(n, d int) []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n*d*d)
	for k := range n {
		m := x[k*d*d : (k+1)*d*d]
		for i := range d {
			for j := range i {
				v := 0.1 * r.NormFloat64()
				m[i*d+j], m[j*d+i] = v, v
			}
			m[i*d+i] = float64(d)
		}
	}
	return x
}

// TestCancel checks that a call whose token is cancelled, before it or
// while it runs, returns a cancellation.
func TestCancel(t *testing.T) {
	// 300 matrices of 16×16: 90,000 AIRM distances, which take far longer
	// than canceltest.Delay.
	n, d := 300, 16
	x := spread(n, d)
	out := make([]float64, n*n)
	for _, tc := range []struct {
		name  string
		delay time.Duration
	}{{"before the call", 0}, {"while it runs", canceltest.Delay}} {
		t.Run(tc.name, func(t *testing.T) {
			tok := covpipe_cancel_new()
			defer release(t, tok)
			if tc.delay == 0 {
				mustOK(t, "cancel", covpipe_cancel(tok))
			} else {
				timer := time.AfterFunc(tc.delay, func() { covpipe_free(covpipe_cancel(tok)) })
				defer timer.Stop()
			}
			msg := errorOf(covpipe_distance(tok, cs(t, "airm"), ptr(x), int64(n), ptr(x), int64(n), int64(d), 2, ptr(out)))
			if !strings.HasPrefix(msg, "c:") {
				t.Errorf("error %q, want a cancellation (c:)", msg)
			}
		})
	}
	t.Run("a fit, before the call", func(t *testing.T) {
		tok := covpipe_cancel_new()
		defer release(t, tok)
		mustOK(t, "cancel", covpipe_cancel(tok))
		labels := make([]string, n)
		for i := range labels {
			labels[i] = string(rune('a' + i%3))
		}
		b, _ := json.Marshal(fitOptions{Method: "nn", Labels: labels})
		var h uintptr
		msg := errorOf(covpipe_fit(tok, cs(t, string(b)), ptr(x), int64(n), int64(d), nil, 0, &h))
		if !strings.HasPrefix(msg, "c:") || h != 0 {
			t.Errorf("error %q (handle %d), want a cancellation (c:)", msg, h)
		}
	})
}

// TestFoldSeed checks covpipe_fold_seed against experiment.FoldSeed, the
// seed of a run's folds, and that it depends on the positions.
func TestFoldSeed(t *testing.T) {
	for _, train := range [][]int{{}, {0}, {3, 1, 2}, {0, 1, 2, 3, 4, 5, 6}} {
		pos := make([]int64, len(train)+1) // room for &pos[0] when empty
		for i, p := range train {
			pos[i] = int64(p)
		}
		var got uint64
		mustOK(t, "fold seed", covpipe_fold_seed(7, &pos[0], int64(len(train)), &got))
		if want := experiment.FoldSeed(7, train); got != want {
			t.Errorf("positions %v: seed %d, want %d", train, got, want)
		}
	}
	a, b := []int64{0, 1}, []int64{0, 2}
	var sa, sb uint64
	mustOK(t, "fold seed", covpipe_fold_seed(7, &a[0], 2, &sa))
	mustOK(t, "fold seed", covpipe_fold_seed(7, &b[0], 2, &sb))
	if sa == sb {
		t.Errorf("positions %v and %v give the same seed %d", a, b, sa)
	}
}
