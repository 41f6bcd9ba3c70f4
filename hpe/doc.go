// Package hpe is the Histogram Plus Epitome signature of Bazzani,
// Cristani, Perina, Farenzena and Murino, "Multiple-shot person
// re-identification by HPE signature", ICPR 2010: an identity seen in one
// image or many is described by the HSV histograms of its torso and legs
// accumulated over all its images (the body parts of the SDALF partition,
// sdalf.FindAxes, the head left out), by the generic epitome of its
// images' patches (Jojic, Frey and Kannan, ICCV 2003; FitEpitome) and by
// local epitomes, its recurrent heterogeneous windows (Locals). Two
// signatures compare by a weighted sum of the histograms' and the
// epitomes' distances (Distance).
//
// It is one of the re-identification baselines of Harandi et al., ECCV
// 2012 (Section 5.1, Fig. 6); the colour pieces it shares with SDALF are
// in package appearance.
//
// The ICPR paper's text was not at hand when this package was written,
// so its epitome sizes and distance weights could not be copied: the
// choices below are covpipe's, each documented where it is made, and
// every one is an option:
//
//   - the epitome is the full mean-and-variance model of Jojic et al.,
//     learnt by EM on RGB patches with a uniform prior over positions on
//     a torus; a single epitome of 8×8 pixels with 4×4 patches taken every
//     2 pixels, 10 EM iterations (DefaultEpitomeSize, DefaultPatch,
//     DefaultStride, DefaultIterations), sized for the 16×32 images of the
//     re-identification protocol at sampling step 2;
//   - epitomes are compared through their usage-weighted colour
//     histograms (GenericDistance), since an epitome is defined only up
//     to a shift on its torus;
//   - the local epitomes are DefaultLocal = 4 patch-sized windows of the
//     generic epitome, those with the most patches mapped to them times
//     their heterogeneity (recurrent motifs that are not plain colour),
//     compared by nearest root-mean-square colour difference both ways
//     (LocalDistance);
//   - the three distances are weighted equally (DefaultWeights);
//   - the foreground is a per-image mask (appearance.MaskOptions) in place
//     of STEL, as in package sdalf.
package hpe
