package method

import (
	"fmt"
	"math"

	"github.com/covpipe/covpipe/experiment/classify"
	"github.com/covpipe/covpipe/spd"
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

// quantity returns the pairwise quantity that the kernel maps.
func (k kernelKind) quantity() classify.Quantity {
	if k == logEuclideanKernel {
		return classify.LogEuclideanSq
	}
	return classify.Stein
}

// pairs returns the kernel's pairwise quantity between d's items and the
// split's training set (Split.Pairs), and the map to kernel values with
// parameter σ: exp(−σ P) for both kinds (spd.SteinKernel.FromDivergence
// for the Stein kernel), after checking σ for d's matrices.
func (k kernelKind) pairs(s *classify.Split, d *classify.Data, sigma float64, pseudo bool) (classify.Pairs, classify.Map, error) {
	if err := k.checkDim(sigma, d.Set.Dim(), pseudo); err != nil {
		return nil, classify.Identity, err
	}
	p, err := s.Pairs(d, k.quantity())
	return p, classify.Exp(sigma), err
}

// prepare computes ahead the kernel's pairwise quantity on the split.
func (k kernelKind) prepare(s *classify.Split) error { return classify.PrepareSplit(s, k.quantity()) }

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
