package method

import (
	"fmt"
	"math"

	"github.com/covpipe/covpipe/experiment/classify"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// kernelKind is a kernel-based method's choice of kernel on SPD matrices,
// the key `kernel:` with the parameter `sigma`:
//
//	stein          k(X, Y) = exp(−σ S(X, Y)), the paper's Stein kernel (Eqn. 5;
//	               positive definite for the σ of Theorem 1, Eqn. 6), the default
//	log-euclidean  k(X, Y) = exp(−σ ‖log X − log Y‖²_F), the log-Euclidean
//	               Gaussian kernel (Li et al., ICCV 2013; Jayasumana et al.,
//	               CVPR 2013), positive definite for every σ > 0
type kernelKind string

const (
	steinKernel        kernelKind = "stein"
	logEuclideanKernel kernelKind = "log-euclidean"
)

// check validates the kind ("" means stein) and returns it.
func (k kernelKind) check() (kernelKind, error) {
	switch k {
	case "", steinKernel:
		return steinKernel, nil
	case logEuclideanKernel:
		return k, nil
	}
	return "", fmt.Errorf("kernel %q: want stein or log-euclidean", string(k))
}

// checkDim checks σ for d×d matrices: Theorem 1 for the Stein kernel
// (unless pseudo), σ > 0 for the log-Euclidean kernel.
func (k kernelKind) checkDim(sigma float64, d int, pseudo bool) error {
	if k == logEuclideanKernel {
		if !(sigma > 0) || math.IsInf(sigma, 0) {
			return fmt.Errorf("sigma = %v: the log-Euclidean kernel needs a finite sigma > 0", sigma)
		}
		return nil
	}
	return spd.SteinKernel{Sigma: sigma, Pseudo: pseudo}.Check(d)
}

// matrix returns the pairwise matrix over all items that the kernel maps,
// computed once per Data, and the map to kernel values with parameter σ.
func (k kernelKind) matrix(d *classify.Data, sigma float64, pseudo bool) (mat.Symmetric, func(float64) float64, error) {
	if k == logEuclideanKernel {
		m, err := d.LogEuclideanDistances()
		return m, func(x float64) float64 { return math.Exp(-sigma * x) }, err
	}
	m, err := d.SteinDivergences()
	return m, spd.SteinKernel{Sigma: sigma, Pseudo: pseudo}.FromDivergence, err
}

// prepare computes the kernel's pairwise matrix.
func (k kernelKind) prepare(d *classify.Data) error {
	_, _, err := k.matrix(d, 1, true)
	return err
}

// checkKernel checks a kernel method's σ list (required, each > 0, none
// twice) and resolves its kernel kind.
func checkKernel(sigma classify.Floats, k *kernelKind) error {
	if err := sigma.Check("sigma", true, 0, false); err != nil {
		return err
	}
	kind, err := k.check()
	*k = kind
	return err
}

// checkSigmas checks every σ of a list for d×d matrices (checkDim).
func (k kernelKind) checkSigmas(sigma classify.Floats, d int, pseudo bool) error {
	for _, s := range sigma {
		if err := k.checkDim(s, d, pseudo); err != nil {
			return err
		}
	}
	return nil
}
