// Package synth draws the synthetic SPD data of the paper's experiments
// (Harandi et al., ECCV 2012): labelled classes on Sym+^d for the
// synthetic classification protocol (Sec. 5.1.1, Table 1: Classes, from
// a Model), and mixtures of source points for the dictionary-learning
// experiment (Sec. 5.2.1, Fig. 7: Mixture). Everything depends on the
// seed only; the paper leaves some parameters open, and each function
// says which values are ours.
package synth
