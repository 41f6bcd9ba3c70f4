package classify

import "github.com/covpipe/covpipe/spd"

// LogEuclideanSq is the squared log-Euclidean distance
// ‖log X_i − log X_j‖²_F (Arsigny et al. 2007; the metric
// spd.LogEuclideanMetric squared), the exponent of the log-Euclidean
// Gaussian kernel exp(−σ ‖log X − log Y‖²_F) (spd.LogEuclideanKernel).
// Its blocks are computed when asked for, each by one matrix product of
// the items' log-vectors, which the Data computes once per item, when a
// block first reads the item (d(d+1)/2 values each).
type LogEuclideanSq struct{}

func (LogEuclideanSq) String() string { return "squared log-Euclidean distance" }

// NewPairs returns the squared distances to train.
func (q LogEuclideanSq) NewPairs(d *Data, train []int) (Pairs, error) {
	return logPairs(d, train, vectorPairs{name: q.String(), distance: true})
}

// LogCosine is the cosine v_iᵀv_j / (‖v_i‖‖v_j‖) of the isometric
// log-vectors v_i = vec(log X_i) (spd.LogVecTo: upper triangle,
// off-diagonals times √2): the linear Gram matrix of logE-SR. The unit
// normalisation is the one Wright et al.'s SRC applies to dictionary
// atoms and queries; it also gives k(x, x) = 1 as for the Stein kernel.
// Its blocks are computed as LogEuclideanSq's are.
type LogCosine struct{}

func (LogCosine) String() string { return "log-Euclidean cosine" }

// NewPairs returns the cosines to train.
func (q LogCosine) NewPairs(d *Data, train []int) (Pairs, error) {
	return logPairs(d, train, vectorPairs{name: q.String(), unit: true})
}

// logPairs returns p over d's log-vectors, with the products of train's
// that d keeps.
func logPairs(d *Data, train []int, p vectorPairs) (Pairs, error) {
	lv, err := d.logVecs()
	if err != nil {
		return nil, err
	}
	if p.gram, err = gramOf(d, p.unit, train); err != nil {
		return nil, err
	}
	p.lv, p.workers = lv, d.Workers
	return &p, nil
}

// logEuclideanKernel is the log-Euclidean Gaussian kernel
// k(X, Y) = exp(−σ ‖log X − log Y‖²_F) (Li et al., ICCV 2013; Jayasumana
// et al., CVPR 2013), positive definite for every σ > 0
// (spd.LogEuclideanKernel).
func logEuclideanKernel() Kernel {
	return Kernel{Metric: spd.LogEuclideanMetric, Quantity: LogEuclideanSq{}, Check: func(sigma float64, d int, _ bool) error {
		return spd.LogEuclideanKernel{Sigma: sigma}.Check(d)
	}}
}

// logVecsKey keys a Data's log-vectors.
type logVecsKey struct{}

// logVecs returns the items' log-vectors, each computed on the Data's
// workers when a block first reads it (itemVectors.ensure).
func (d *Data) logVecs() (*itemVectors, error) {
	return dataState(d, logVecsKey{}, func() (*itemVectors, error) {
		n := d.Set.Len()
		return &itemVectors{n: n, m: spd.VecLen(d.Set.Dim()), rows: make([][]float64, n), sq: make([]float64, n), inv: make([]float64, n),
			data: d}, nil
	})
}
