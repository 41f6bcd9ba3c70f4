package rsr

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/spd"
)

// SteinClassifier is the paper's RSR classifier: SRC over labelled SPD
// training matrices in the RKHS of the Stein kernel (Sections 3–3.1), with
// k(X, X) = 1. FitStein makes one; it is immutable and safe for concurrent
// use.
type SteinClassifier struct {
	c      *Classifier
	train  *spd.Set
	kernel spd.SteinKernel
}

// FitStein computes the training Gram matrix 𝕂(𝔻, 𝔻) of the Stein kernel
// k (Eqns. 5 and 8; σ checked against Theorem 1 unless k.Pseudo) and
// returns the classifier of the training matrices with these labels
// (FitClassifier). opts.Lasso.Workers bounds the goroutines of this and
// later Gram computations and of the codes. It returns the errors of
// spd.SteinKernel.GramSym, an error wrapping ctx.Err() among them once ctx
// is cancelled, and those of FitClassifier.
func FitStein(ctx context.Context, train *spd.Set, labels []int, k spd.SteinKernel, opts ClassifierOptions) (*SteinClassifier, error) {
	K, err := k.GramSym(ctx, train, &spd.GramOptions{Workers: opts.Lasso.Workers})
	if err != nil {
		return nil, fmt.Errorf("training Gram matrix: %w", err)
	}
	c, err := FitClassifier(K, labels, opts)
	if err != nil {
		return nil, err
	}
	return &SteinClassifier{c: c, train: train, kernel: k}, nil
}

// Predict classifies every matrix of queries: it computes their kernel
// vectors 𝒦(X, 𝔻) against the training set, codes them by the kernel
// Lasso and scores the classes (Classifier.PredictBatch). Once ctx is
// cancelled it returns an error wrapping ctx.Err() and no decisions. A nil
// or zero-value SteinClassifier is an error wrapping ErrInput.
func (s *SteinClassifier) Predict(ctx context.Context, queries *spd.Set) ([]Decision, error) {
	if s == nil || s.c == nil {
		return nil, fmt.Errorf("%w: zero-value SteinClassifier: make one with FitStein", ErrInput)
	}
	kx, err := s.kernel.Gram(ctx, queries, s.train, &spd.GramOptions{Workers: s.c.lasso.opts.Workers})
	if err != nil {
		return nil, fmt.Errorf("query kernel vectors: %w", err)
	}
	kxx := make([]float64, queries.Len())
	for i := range kxx {
		kxx[i] = 1 // exp(−σ S(X, X)) with S(X, X) = 0
	}
	return s.c.PredictBatch(ctx, kx, kxx)
}

// Classifier returns the classifier in kernel form, over the training
// Gram matrix.
func (s *SteinClassifier) Classifier() *Classifier { return s.c }

// Labels returns the distinct class labels in ascending order: the order of
// Decision.Scores.
func (s *SteinClassifier) Labels() []int { return s.c.Labels() }

// Rank returns the class labels of d ordered from best to worst score; see
// Classifier.Rank.
func (s *SteinClassifier) Rank(d Decision) []int { return s.c.Rank(d) }
