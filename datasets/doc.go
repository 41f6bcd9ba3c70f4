// Package datasets lists labelled images for covpipe's experiments and
// for describe: FERET, Brodatz, folder-per-class trees, CSV manifests and
// texture mosaics with their label maps. A plain folder of images, without
// class folders, is a list whose labels are empty: enough to describe it,
// not to classify. Synthetic SPD data is package synth's.
package datasets
