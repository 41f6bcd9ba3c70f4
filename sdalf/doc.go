// Package sdalf is the symmetry-driven accumulation of local features of
// Farenzena, Bazzani, Perina, Murino and Cristani, "Person
// re-identification by symmetry-driven accumulation of local features",
// CVPR 2010: a pedestrian image is cut by two horizontal asymmetry axes
// into head, torso and legs (the head is dropped), each of torso and legs
// gets a vertical symmetry axis (FindAxes, Sec. 3.1), and the image is
// described by colour histograms weighted about the symmetry axes and by
// maximally stable colour regions (Describe, Sec. 3.2). Two signatures
// compare by a weighted sum of the features' distances, and an identity
// seen in several images by the smallest distance over pairs (Distance,
// MultiShot, Sec. 4).
//
// It is one of the re-identification baselines of Harandi et al., ECCV
// 2012 (Section 5.1, Fig. 6). The colour pieces it shares with the other
// baseline (HSV, foreground masks, weighted histograms, the Bhattacharyya
// distance) are in package appearance.
//
// Departures from the paper, each documented where it is made: the
// foreground comes from a per-image border model (appearance.MaskOptions)
// instead of STEL; chromatic distances are taken in the HSV cone; the
// recurrent high-structured patches (RHSP) are not built, so the feature
// weights are those the paper uses without them.
package sdalf
