package rsr

import (
	"fmt"

	"github.com/covpipe/covpipe/spd"
)

// SteinClassifier is the paper's RSR classifier: SRC over labelled SPD
// training matrices in the RKHS of the Stein kernel (Sections 3–3.1), with
// k(X, X) = 1.
type SteinClassifier struct {
	*Classifier
	train  *spd.Set
	kernel spd.SteinKernel
	gram   *spd.GramOptions
}

// NewSteinClassifier computes the training Gram matrix 𝕂(𝔻, 𝔻) of the
// Stein kernel k (σ checked against Theorem 1 unless k.Pseudo) and returns
// the classifier. gram, which may be nil, sets the parallelism of this and
// later Gram computations. It returns the errors of spd.SteinKernel.GramSym
// and NewClassifier.
func NewSteinClassifier(train *spd.Set, labels []int, k spd.SteinKernel, opts ClassifierOptions, gram *spd.GramOptions) (*SteinClassifier, error) {
	K, err := k.GramSym(train, gram)
	if err != nil {
		return nil, fmt.Errorf("training Gram matrix: %w", err)
	}
	c, err := NewClassifier(K, labels, opts)
	if err != nil {
		return nil, err
	}
	return &SteinClassifier{Classifier: c, train: train, kernel: k, gram: gram}, nil
}

// Predict classifies every matrix of queries: it computes their kernel
// vectors against the training set, codes them by the kernel Lasso and
// scores the classes.
func (s *SteinClassifier) Predict(queries *spd.Set) ([]Decision, error) {
	kx, err := s.kernel.Gram(queries, s.train, s.gram)
	if err != nil {
		return nil, fmt.Errorf("query kernel vectors: %w", err)
	}
	kxx := make([]float64, queries.Len())
	for i := range kxx {
		kxx[i] = 1 // exp(−σ S(X, X)) with S(X, X) = 0
	}
	workers := 0
	if s.gram != nil {
		workers = s.gram.Workers
	}
	return s.ClassifyBatch(kx, kxx, workers)
}
