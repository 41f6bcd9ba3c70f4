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
//	failures.csv     the images that failed, with Options.SkipBad only
//	meta.json        the options, inputs, counts and the other files'
//	                 sizes and SHA-256 (Meta), written last
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
// written. A run where every image fails is an error, with SkipBad too,
// and writes nothing (for a shard, Merge makes that check).
//
// Paths, labels and error messages are escaped so that both CSV files are
// valid UTF-8 whatever the file names: a backslash is written \\ and each
// byte that is not part of valid UTF-8 (of a Latin-1 name, say) is
// written \xNN, two lower-case hex digits; everything else is written as
// it is. Read undoes it, giving back the names' original bytes. In
// Python,
//
//	re.sub(rb"\\(\\|x[0-9a-f]{2})", lambda m: b"\\" if m[1] == b"\\" else bytes.fromhex(m[1][1:].decode()), s.encode())
//
// gives the bytes of an escaped field s (os.fsdecode makes them a str).
//
// meta.json (Meta) records the feature set (its canonical spec,
// features.Set.String) and plane names, d, the regularisation, the resize
// and filter, the region layout and seed, whether bad images were skipped,
// covpipe's version, the inputs' folders and sizes, a hash of all their
// items and the entries their listing skipped (non-image files, class
// folders without images), the shard, the counts, and the size and
// SHA-256 of each other file: nothing that depends on the run itself (no
// times, no worker count), so that the same options on the same inputs
// give the same bytes in every file, whatever the number of workers.
//
// # Atomicity
//
// The files are written to temporary files (".NAME.tmp-DIGITS") in the
// folder and renamed into place only when the run has succeeded: a failed
// or cancelled run leaves no output and does not touch a previous one. A
// run killed outright leaves its temporary files, which the next Describe
// or Merge into the folder removes (those of the four names above only).
//
// Renaming several files is not atomic, so meta.json is the commit
// marker: it is removed before, and written after, the other files are
// renamed, and it records each one's size and SHA-256 (Meta.Files).
// Every reader checks them: ReadMeta (and so Current) the sizes, Read,
// ReadMatrices and Merge the checksums of the bytes they read. A folder
// whose files do not match, such as a new descriptors.npy beside an old
// manifest.csv, is refused as torn (ErrTorn), asking to rerun describe.
// Folders of the format before the marker (covpipe-descriptors/1) are
// refused likewise.
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
// A run of n images can be split into N shards (Shard, `--shard I/N`):
// shard I takes the contiguous images [I·n/N, (I+1)·n/N). Merge joins the
// N output folders into the output of the unsharded run, byte for byte.
package describe
