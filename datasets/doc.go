// Package datasets provides labelled data for covpipe's experiments:
// synthetic SPD matrices for the paper's synthetic protocol, and lists of
// labelled images (FERET, Brodatz, folder-per-class trees, CSV manifests,
// texture mosaics). A plain folder of images, without class folders, is a
// list whose labels are empty: enough to describe it, not to classify.
package datasets
