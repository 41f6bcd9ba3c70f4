// Package store is covpipe's on-disk format: the descriptor folders that
// describe.Describe writes and every other reader takes (covpipe merge,
// learn, encode and the experiment cache), the .npy arrays that learn and
// encode write, and the atomic, checksummed folder writer beneath them.
//
// # Descriptor folder
//
//	descriptors.npy  the n descriptors, float64, shape (n, d, d)
//	vectors.npy      with Meta.Vectors only: a vector per descriptor,
//	                 float64, shape (n, len)
//	manifest.csv     what each descriptor describes
//	failures.csv     the images that failed, with Meta.SkipBad only
//	meta.json        the options, inputs, counts and the other files'
//	                 sizes and SHA-256 (Meta), written last
//
// Create and Writer write one, Read reads it back, ReadMeta reads its
// meta.json alone, ReadMatrices its descriptors (or a bare .npy stack),
// and Merge joins the folders of the shards of one run.
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
// first and rewritten in place with the final n (NPYWriter).
// vectors.npy is the same with shape (n, len): row i is the vector of
// the image of descriptor i (Meta.Vectors says which features and step
// made it), one per image since vectors need the whole-image layout.
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
// written. A run where every image fails is an error and writes nothing
// (for a shard, Merge makes that check).
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
// the vectors' spec, covpipe's version, the inputs' folders and sizes, a
// hash of all their items and the entries their listing skipped
// (non-image files, class folders without images), the shard, the counts,
// and the size and SHA-256 of each other file: nothing that depends on
// the run itself (no times, no worker count), so that the same options on
// the same inputs give the same bytes in every file, whatever the number
// of workers.
//
// # Atomicity
//
// A Folder writes any set of named files so that readers see all of them
// or know that they do not; a descriptor folder is one such set, with
// meta.json as its marker. The files are written to temporary files
// (".NAME.tmp-DIGITS") in the folder and renamed into place only when the
// writer commits: a failed or cancelled run leaves no output and does not
// touch a previous one. A writer killed outright leaves its temporary
// files, which the next writer of the folder removes (those of the set's
// names only).
//
// Renaming several files is not atomic, so the marker is the commit
// record: it is removed before, and written after, the other files are
// renamed, and it records each one's size and SHA-256 (File). Every
// reader checks them: ReadMeta (and so describe.Current) the sizes, Read,
// ReadMatrices and Merge the checksums of the bytes they read. A folder
// whose files do not match, such as a new descriptors.npy beside an old
// manifest.csv, is refused as torn (ErrTorn), naming the folder and asking
// to rerun describe. Folders of the format before the marker
// (covpipe-descriptors/1) are refused likewise.
//
// # Shards
//
// A run of n images can be split into N shards (Shard, `--shard I/N`):
// shard I takes the contiguous images [I·n/N, (I+1)·n/N). Merge joins the
// N folders into the folder of the unsharded run, byte for byte.
package store
