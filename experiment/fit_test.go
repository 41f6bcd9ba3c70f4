package experiment

import (
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
)

// TestMethodEntryAndDescribeOptions checks what covpipe fit --config
// takes from an experiment file: a method's type and parameters by name
// (an error listing the file's methods for another name), and the data
// section's extraction options, one per ridge candidate (an error
// without a data section).
func TestMethodEntryAndDescribeOptions(t *testing.T) {
	const data = "name: f\nseed: 1\nrepeats: 1\ndata: {dataset: \"folders:x\", features: \"I,Ix,Iy\", ridge: RIDGE, ridge_kind: diag-ridge, estimator: oas, normalize: trace}\n" +
		"tasks:\n  - {name: t, split: {train_per_class: 1}}\nmethods:\n  - {name: fast, type: rsr, sigma: 0.5, lambda_ratio: [0.1, 0.2]}\n  - {name: nn-airm, type: nn, metric: airm}\n"
	p, err := Parse([]byte(strings.Replace(data, "RIDGE", "[0.01, 0.1]", 1)))
	if err != nil {
		t.Fatal(err)
	}
	typ, node, err := p.MethodEntry("fast")
	if err != nil || typ != "rsr" {
		t.Fatalf("MethodEntry(fast) = %q, %v", typ, err)
	}
	var params map[string]any
	if err := node.Decode(&params); err != nil || len(params) != 2 || params["sigma"] != 0.5 {
		t.Errorf("fast's parameters %v, %v: want sigma and lambda_ratio, without name and type", params, err)
	}
	if _, _, err := p.MethodEntry("rsr"); err == nil || !strings.Contains(err.Error(), `f has no method "rsr" (it has [fast nn-airm])`) {
		t.Errorf("MethodEntry(rsr): %v", err)
	}
	opts, err := p.DescribeOptions()
	if err != nil || len(opts) != 2 {
		t.Fatalf("DescribeOptions: %d, %v", len(opts), err)
	}
	for i, eps := range []float64{0.01, 0.1} {
		o := opts[i]
		if o.Reg != (covariance.Regularization{Kind: covariance.DiagRidge, Eps: eps}) || o.Features.Dim() != 3 || o.Estimator != covariance.OAS || o.Normalize != covariance.NormTrace {
			t.Errorf("ridge candidate %d: %+v", i, o)
		}
	}
	synthetic, err := Parse([]byte("name: s\nseed: 1\nrepeats: 1\ntasks:\n  - {name: t, synthetic: {classes: 2, dim: 3, samples: 20, train: 0.5, spread: 1, variance: 0.1}}\nmethods:\n  - {name: nn, type: nn, metric: airm}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synthetic.DescribeOptions(); err == nil || !strings.Contains(err.Error(), "s has no data section") {
		t.Errorf("DescribeOptions without data: %v", err)
	}
}
