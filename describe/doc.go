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
// to a sink that writes a folder in package store's format (see its
// documentation for the files, their escaping and the journal that
// commits a folder all or nothing, and the lock that keeps one writer per
// folder), Extractor.Into to a folder the caller has already taken;
// Collect to a sink that keeps the same output in memory. Current tells whether a folder already holds a run's
// output, for use as a cache; store.Read reads it back and store.Merge
// joins the folders of a sharded run.
//
// # Memory
//
// Before an image is decoded, its size is read from its file's header and
// its memory estimated as 8 bytes (a float64) per pixel per plane: the
// image planes (grey, or grey and R, G, B) at the stored size and, at the
// size the features are computed at (the resize target, else the stored
// size), the image planes again when resized and the d feature planes
// (and those of Options.Vectors). An 8192×8192 image with the 5 texture
// features takes 3 GiB. The images in progress are bounded by
// Options.MaxMemory (`--max-memory`; default DefaultMaxMemory, 4 GiB): an
// image whose estimate alone exceeds it fails (ErrMemory) naming its
// size, planes and the limit; the others wait until the images in
// progress leave room, so the output does not depend on the number of
// workers.
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
// A run of n images can be split into N shards (Options.Shard,
// `--shard I/N`): shard I takes the contiguous images
// [I·n/N, (I+1)·n/N). store.Merge joins the N folders into the folder of
// the unsharded run, byte for byte.
//
// A run fails, writing nothing, on the first image (in input order) that
// fails, unless Options.SkipBad lists the failures instead (failures.csv);
// a run where every image fails is an error all the same.
package describe
