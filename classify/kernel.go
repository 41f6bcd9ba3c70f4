package classify

import (
	"fmt"
	"strings"

	"github.com/covpipe/covpipe/spd"
)

// Kernel is a kernel on SPD matrices of the form
//
//	k(X, Y) = exp(−σ q(X, Y)),
//
// q a pairwise Quantity made from a metric of package spd, whose name the
// kernel takes: `kernel: stein` and `kernel: log-euclidean` in a config
// are names of spd.ParseMetric, so that one table names metrics and
// kernels. Its values are Exp(σ) of q's blocks (Split.Pairs).
type Kernel struct {
	// Metric is the metric that q is made from.
	Metric spd.Metric
	// Quantity is q.
	Quantity Quantity
	// Check reports whether σ gives a kernel on d×d matrices; pseudo
	// allows a σ for which the Gram matrices may be indefinite. Its error
	// is package spd's.
	Check func(sigma float64, d int, pseudo bool) error
	// DefaultSigma is σ for d×d matrices when a method is given none; nil
	// when the kernel has no default, so that σ is required.
	DefaultSigma func(d int) float64
}

// String returns the kernel's name, its metric's canonical name.
func (k Kernel) String() string { return k.Metric.String() }

// Kernels returns the kernel table by metric: one line per kernel, each
// defined with its quantity in its own file.
func Kernels() map[spd.Metric]Kernel {
	return map[spd.Metric]Kernel{
		spd.SteinMetric:        steinKernel(),
		spd.LogEuclideanMetric: logEuclideanKernel(),
	}
}

// ParseKernel returns the kernel named name: a metric name that
// spd.ParseMetric accepts (deprecated spellings included; see
// spd.DeprecatedMetricName) of a metric in Kernels. The error names the
// kernels there are.
func ParseKernel(name string) (Kernel, error) {
	table := Kernels()
	var names []string
	for _, m := range spd.Metrics() {
		if _, ok := table[m]; ok {
			names = append(names, m.String())
		}
	}
	m, err := spd.ParseMetric(name)
	if k, ok := table[m]; err == nil && ok {
		return k, nil
	}
	return Kernel{}, fmt.Errorf("kernel %q: want %s", name, strings.Join(names, " or "))
}
