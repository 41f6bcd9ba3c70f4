// Package model is a trained recogniser of images by their region
// covariance descriptors: one of covpipe's methods fitted on labelled
// images (or descriptors), its parameters chosen by cross-validation as
// covpipe run chooses them, saved to a folder and loaded back, that
// labels new images, scores its answers and rejects those of classes it
// was not trained on.
//
// Fit extracts the descriptors of labelled images (package describe),
// with the per-image vectors of a method that reads them, and fits a
// method of package method on them through the estimator contract of
// package classify: lists of parameter candidates are chosen among by
// stratified cross-validation inside the training set (classify.Choose),
// exactly as a run chooses them, and the method is then fitted on the
// whole training set. Every method type fits, and a best model
// (Options.Candidates) chooses among methods as a config's best method
// does (classify.Best). Predict extracts the descriptors of new images
// with the options the model was fitted with and answers for each, bit
// for bit as covpipe run answers for a test item of the same method on the
// same training set and folds. Save writes a model as one output set of
// package store; Load reads it back, checked: it refuses a folder whose
// files link outside it and one written by a newer covpipe. A nil or zero
// Model (not made by Fit, FitOutput or Load) returns an error from every
// method that saves or answers, and zero values from its accessors.
//
// # What a model holds
//
// The fitted method's saved state (classify.State: a record in
// model.json, arrays as state-NAME.npy) and what it answers with: the
// training descriptors (descriptors.npy; the atoms of dictionaries
// learned per class by Algorithm 1, which FitOutput takes as labelled
// descriptors, as covpipe fit takes the folders of covpipe learn
// --class), their labels and, for the methods that read them, the
// training images' vectors (vectors.npy). What the state holds is the
// method's:
//
//   - rsr (the paper's RSR, Sections 3–3.1) and logE-SR: the chosen σ and
//     λ or λ ratio, and the training kernel matrix 𝕂(𝔻, 𝔻), so that
//     loading does not compute it again; pca-src and gsr the same, their
//     PCA fitted again on the training vectors;
//   - stein-svm: the one-vs-one machines with their Platt sigmoids;
//   - rlpp and tsc: the chosen candidate, whose fit on the training
//     descriptors (a deterministic eigenproblem, the coder's atoms) is
//     made again;
//   - sdalf and hpe: nothing but the training images' vectors, whose
//     signatures depend on each image alone;
//   - nn: nothing but the training descriptors and the metric;
//   - a best model: the chosen candidate's state and name;
//   - a model of several regions per image: the fusion's rule and
//     weights and each region's state;
//
// with the class names, the parameters as resolved and as chosen, the
// extraction options of the training descriptors (features, resize,
// regions, covariance estimator, ridge, normalisation: store.Meta), and
// covpipe's version.
//
// # Several regions per image
//
// With Options.Fusion, each image is one item of its regions (a layout
// of several, such as whole+grid:3x3:16), as covpipe run's data.parts
// makes it, and the method is fused region by region (classify.Fused):
// the fusion rule among Options.Fusion is chosen by cross-validation on
// the training images (classify.ChooseFusion), the method is fitted on
// each region of every training image, choosing its own parameters, and
// an answer fuses the regions' class costs by the rule (classify.Fuse:
// the residuals ε_c of Eqn. 9 for SRC methods, 1 − p_c for stein-svm, the
// distance to the class's nearest member for nn), ranked as
// classify.RankCosts ranks them, so that its score is d₂/(d₁ + d₂) of the
// two cheapest classes' fused costs and its SCI is NaN. It answers for
// each test image exactly as covpipe run's data.parts answers for a test
// item on the same training set and folds. Parts describes the fusion.
//
// # Scores
//
// Each answer (Prediction) carries the predicted class, the class ranked
// second, their scores in [0, 1] and, for SRC methods, the sparsity
// concentration index of the code (classify.ItemScore):
//
//   - SRC methods (rsr, logE-SR): the class's share of the query's energy
//     that the classes explain, p_i = (k(X,X) − ε_i)₊ / Σ_j (k(X,X) − ε_j)₊
//     for the class residuals ε_i of Eqn. 9 (rsr.Classifier.Shares), and
//     SCI(v) = (k·max_i ‖δ_i(v)‖₁/‖v‖₁ − 1)/(k − 1) (Wright et al., "Robust
//     face recognition via sparse representation", TPAMI 31, 2009, Sec.
//     2.4, Definition 1);
//   - stein-svm: class probabilities, Platt's sigmoids 1/(1 + exp(A f +
//     B)) of the machines' decision values (Platt 1999, fitted by
//     internal cross-validation with the Newton method of Lin, Lin and
//     Weng 2007) coupled by method 2 of Wu, Lin and Weng (JMLR 5, 2004),
//     as libsvm's -b 1 computes them; the label is the one-vs-one vote,
//     as covpipe run's stein-svm decides, so its probability can fall
//     below the second class's when votes and probabilities disagree;
//   - nn: d₂/(d₁ + d₂) for the nearest class and d₁/(d₁ + d₂) for the
//     second, d₁ ≤ d₂ the distances of the two nearest classes' nearest
//     members (a form of Lowe's distance-ratio test, IJCV 2004).
//
// # Probabilities
//
// With PredictOptions.Probabilities, each answer also carries its
// probability of every class (Prediction.Probabilities, in the order of
// Model.Classes), made of the quantities the method ranks the classes by
// (classify.Outcome.Probabilities says what they are per method): the
// energy shares of the SRC methods and stein-svm's calibrated
// probabilities, which are their scores; the softmax of −d² over the
// classes' distances to the item for mdm, nn, rlpp and tsc; the mean of
// the regions' for a model of several regions per image. A model whose
// method gives none (sdalf, hpe, nn with the AIRM metric; for a best
// model, the chosen candidate's: Model.Probabilities) refuses them.
//
// With PredictOptions.Costs, each answer carries the cost of every class
// instead (Prediction.Costs, lower meaning more likely; what
// classify.Outcome.Costs holds): the class residuals ε_c of Eqn. 9 for
// rsr and logE-SR, 1 − p_c of the calibrated probabilities for
// stein-svm, the distance to the class's mean (mdm; √S for its stein
// metric) or nearest member (nn with a metric but AIRM; S itself for
// stein). Other methods, and models of several
// regions per image, whose fused answer may be a vote of the regions',
// refuse them (Model.Costs).
//
// # Rejection
//
// An answer is rejected (Prediction.Rejected) when its confidence is
// below PredictOptions.Reject, a threshold in [0, 1]: the SCI for SRC
// methods, as Wright et al. reject invalid test images, the score
// otherwise, both in [0, 1]. covpipe run's
// open-set protocol measures, for a config's methods, the ROC of this
// rejection and the threshold at a chosen false accept rate
// (configs/feret-open-set.yaml).
package model
