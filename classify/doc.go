// Package classify is the estimator contract of covpipe's methods and
// what they see. A Method fits on the training items of a Train and
// returns a Fitted, which predicts the items of a Query, saves its State
// and is restored by its method's Load (contract.go); a method declares
// everything optional it needs or offers in its Spec. Data holds labelled
// SPD items and computes the pairwise quantities that methods share
// (Stein divergences, log-Euclidean distances) in the blocks that fits
// and predictions need, once (Pairs); quantities and the kernels made of
// them are pluggable (Quantity, Kernels), one file each. Choose chooses
// among a method's parameter candidates by cross-validation inside the
// training items, Fused fits a method region by region on items of
// several regions and fuses their class costs, and Best chooses among
// methods: both are methods of the contract themselves.
//
// Run is the transductive helper of an experiment: Fit on a Split's
// training items, then Predict on its test items. The experiment engine
// (package experiment) builds the splits of each protocol, models
// (package model) keep fitted methods on disk, and the methods (package
// method) implement the contract.
package classify
