// Package describe computes the region covariance descriptors of many
// images, streaming, for `covpipe describe` and the experiments: each image
// of a datasets.List is loaded (package imageio), its per-pixel feature
// planes computed (package features; Harandi et al., ECCV 2012, Sec. 5.1)
// and the regularised covariance of each of its regions (package
// covariance; Tuzel, Porikli and Meer, ECCV 2006, eq. 1) passed on.
//
// There is one extraction path. An Extractor, made from validated,
// typed Options, runs the images on a pool of workers and streams their
// descriptors in input order to a Sink (Extractor.Run); it also describes
// given regions of an image already in memory, such as the cells of a
// texture mosaic, with the same code (Extractor.Regions). Describe streams
// to a sink that writes an output folder; Collect to one that keeps the
// same output in memory. Read loads a folder back; Merge joins the folders
// of a sharded run; Current tells whether a folder already holds a run's
// output, for use as a cache.
//
// # Output folder
//
//	descriptors.npy  the n descriptors, float64, shape (n, d, d)
//	manifest.csv     what each descriptor describes
//	meta.json        the options, inputs and counts (Meta)
//	failures.csv     the images that failed, with Options.SkipBad only
//
// descriptors.npy is a NumPy .npy file of format version 1.0 (readable by
// numpy.load and pyRiemann): the magic "\x93NUMPY", the version bytes 1
// and 0, the header length as a little-endian uint16, then the ASCII
// header
//
//	{'descr': '<f8', 'fortran_order': False, 'shape': (n, d, d), }
//
// padded with spaces and a final '\n' so that the data starts at a
// multiple of 64 bytes, then the n·d·d little-endian float64 values in C
// order: descriptor i is the row-major d×d block i, the layout of
// spd.NewSetFromData. The header has room for an n of 21 digits, as
// numpy.save leaves, so that its length depends on d only: it is written
// first and rewritten in place with the final n.
//
// manifest.csv is a CSV file (RFC 4180) with the header
// index,path,label,region and one row per descriptor, in order: the
// descriptor's index (0..n−1), the image's path relative to its input's
// folder (datasets.Item.Rel, slash-separated), its label and the region in
// covariance.Region's string form "WxH+X+Y" (in the resized image). With
// several inputs, the paths of input k (0-based, in the order given) are
// written "k:PATH", so that the same relative path in two inputs stays
// two distinct names; Read splits the prefix off into Row.Input.
//
// failures.csv has the header path,error and one row per image that
// failed: its manifest path and the error, on one line. An image fails as
// a whole: when one of its regions fails, none of its descriptors is
// written.
//
// meta.json (Meta) records the feature set (its canonical spec,
// features.Set.String) and plane names, d, the regularisation, the resize
// and filter, the region layout and seed, whether bad images were skipped,
// covpipe's version, the inputs' folders and sizes, a hash of all their
// items, the shard and the counts: nothing that depends on the run itself
// (no times, no worker count), so that the same options on the same inputs
// give the same bytes in every file, whatever the number of workers.
//
// # Atomicity
//
// The files are written to temporary files (".NAME.tmp-*") in the folder
// and renamed into place only when the run has succeeded: a failed,
// cancelled or crashed run leaves no output and does not touch a previous
// one. meta.json is removed before, and written after, the other files
// are renamed, so that its presence marks a complete set.
//
// # Order, seeds and shards
//
// Images are taken in the order of the inputs, each list in its own order
// (datasets sorts by relative path), and written in that order whatever
// the number of workers: workers finish in any order, and a bounded
// window of results waits for its turn, so that memory stays flat in the
// number of images. The random blocks of an image (covariance.LayoutBlocks)
// come from BlockSeed(Options.Seed, Item.Rel), which depends on neither
// the order nor the shard.
//
// A run of n images can be split into N shards (Shard, `--shard I/N`):
// shard I takes the contiguous images [I·n/N, (I+1)·n/N). Merge joins the
// N output folders into the output of the unsharded run, byte for byte.
package describe
