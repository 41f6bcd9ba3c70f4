package spd

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/shareddata"
	"gonum.org/v1/gonum/mat"
)

// feretTrain holds FERET-32's training descriptors, extracted once per
// test binary.
var feretTrain struct {
	once sync.Once
	xs   []*mat.SymDense
	err  error
}

// feretDescriptors returns the 600 descriptors of FERET-32's training
// poses ba, bj and bk as configs/feret.yaml makes them (the face features
// with zero-padded Gabor planes, the trace ridge 1e-4: 43×43), or nil
// when the dataset is absent (shareddata.Root).
func feretDescriptors(tb testing.TB) []*mat.SymDense {
	tb.Helper()
	root, ok := shareddata.Root()
	dir := filepath.Join(root, "feret-b-32")
	if st, err := os.Stat(dir); !ok || err != nil || !st.IsDir() {
		return nil
	}
	feretTrain.once.Do(func() {
		feretTrain.xs, feretTrain.err = describeFERET(dir)
	})
	if feretTrain.err != nil {
		tb.Fatal(feretTrain.err)
	}
	return feretTrain.xs
}

func describeFERET(dir string) ([]*mat.SymDense, error) {
	l, err := datasets.Open("feret:" + dir)
	if err != nil {
		return nil, err
	}
	fs, err := features.Parse("face")
	if err != nil {
		return nil, err
	}
	reg, err := covariance.NewRegularization("trace-ridge", 1e-4)
	if err != nil {
		return nil, err
	}
	train := l.Filter(datasets.MetaIs("pose", "ba", "bj", "bk"))
	out, err := describe.Collect(context.Background(), []*datasets.List{train}, describe.Options{Features: fs, Reg: reg})
	if err != nil {
		return nil, err
	}
	d := out.Meta.Dim
	xs := make([]*mat.SymDense, len(out.Rows))
	for i := range xs {
		xs[i] = mat.NewSymDense(d, out.Data[i*d*d:(i+1)*d*d])
	}
	return xs, nil
}

// meanBenchData returns FERET-32's 600 training descriptors when the
// shared datasets are present, else 600 random 43×43 SPD matrices with
// eigenvalues log-uniform over [e^−5, e^5] (condition up to 2e4), and
// which it is.
func meanBenchData(b *testing.B) ([]*mat.SymDense, string) {
	if xs := feretDescriptors(b); xs != nil {
		return xs, "feret-b-32"
	}
	r := newRand(90)
	xs := make([]*mat.SymDense, 600)
	for i := range xs {
		xs[i] = randSPD(r, 43, 5)
	}
	return xs, "synthetic"
}
