// Package classify holds what an experiment's classification methods see
// and the contract between them and the engine: a Split of labelled Data
// into training and test items, the Method interface and the Spec by which
// a method declares everything optional it needs or offers (contract.go),
// its Outcome, and cross-validated choice among a method's parameter
// candidates (Select). Data computes the pairwise quantities that methods
// share (Stein divergences, log-Euclidean distances) in the blocks that
// splits need, once (Pairs); quantities and the kernels made of them are
// pluggable (Quantity, Kernels), one file each.
//
// The experiment engine (package experiment) builds the splits of each
// protocol; the methods (package method) classify them.
package classify
