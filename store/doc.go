// Package store is covpipe's on-disk format: the descriptor folders that
// describe.Describe writes and every other reader takes (covpipe merge,
// learn, encode and the experiment cache), the .npy arrays that learn and
// encode write, and the output sets beneath every folder covpipe writes:
// one writer per folder, committed whole by a journal (Folder), checked
// whole by every reader (OpenSet, ReadFile, Read).
//
// # Descriptor folder
//
//	descriptors.npy  the n descriptors, float64, shape (n, d, d)
//	vectors.npy      with Meta.Vectors only: a vector per descriptor,
//	                 float64, shape (n, len)
//	manifest.csv     what each descriptor describes
//	failures.csv     the images that failed, with Meta.SkipBad only
//	meta.json        the options, inputs, counts and the other files'
//	                 sizes and SHA-256 (Meta): the set's marker
//
// Create (or NewWriter on a Folder) and Writer write one, Read reads it
// back, ReadMeta reads its meta.json alone, ReadMatrices its descriptors
// (or a bare .npy stack), and Merge joins the folders of the shards of
// one run, checking that every descriptor is finite, symmetric and
// positive definite.
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
// # Output sets
//
// Every folder covpipe writes is one output set: its files and the marker
// meta.json that records them, a JSON object with the set's "format" and,
// in "files", each file's name, size and SHA-256 (File), in order:
//
//	covpipe-descriptors/2  describe, merge, the experiment cache: Meta
//	covpipe-dictionary/1   learn: dictionary.npy, learn.json
//	covpipe-codes/1        encode: codes.npy, manifest.csv, encode.json
//	covpipe-run/1          run and report: results.json, the figures, summary.md
//	covpipe-model/2        fit (package model): model.json, descriptors.npy, vectors.npy, state-NAME.npy
//	covpipe-predictions/1  predict into a folder: predictions.csv
//	covpipe-evaluation/1   evaluate (package evaluate): evaluation.json, predictions.csv, confusion.csv, the figures
//
// The generic marker holds "format", "covpipe_version" and "files"
// (Folder.Commit); a descriptor folder's is its Meta, with the same
// three fields among the others. A Folder writes a set so that after a
// crash at any moment (kill -9, a full disk, power loss) the folder holds
// either the whole previous set or the whole new one, by a roll-forward
// journal:
//
//  1. each file is written to a temporary file in the folder,
//     ".NAME.tmp-DIGITS", and synced;
//  2. the new marker is written to ".meta.json.pending" (through a
//     temporary file renamed into place) and the folder synced: the
//     commit point;
//  3. the files are renamed into place, the files of the previous set
//     that the new one does not hold removed, the pending marker renamed
//     to meta.json and the folder synced.
//
// A folder with a pending marker is rolled forward: each file it records
// is found, under its name or as one of its temporary files, by size and
// SHA-256, and step 3 is done again (a pending marker whose files are
// not all there, which the journal never leaves, is removed). Temporary
// files without a pending marker are rolled back: removed, leaving the
// previous set untouched. Writers do both, under the lock, before they
// write (CreateFolder), and so do readers that can take the lock; a
// reader that cannot (another process is writing the folder, or it is
// read-only) reads the pending set where its files are. Readers check
// every file against its record: a file that is not the one recorded
// (files of different runs mixed by hand, or replaced since) is refused
// as torn (ErrTorn), naming the folder and the command to rerun
// (ReadMeta, and so describe.Current, checks the sizes; Read,
// ReadMatrices, ReadFile, Merge and Set's readers the SHA-256 of the
// bytes they read). A program that reads the folder without this package
// sees the set meta.json records whenever the folder holds no pending
// marker; while one is there, the files renamed so far belong to the new
// set and the others to the old one, so such a program should refuse the
// folder then (and check each file's size and SHA-256, as the NumPy
// snippet of docs/cli.md, "Descriptor folders", does) until a covpipe
// completes the commit. A reader that finds files changed under it while
// a writer commits reads again. Descriptor folders of the format before
// the marker (covpipe-descriptors/1) are refused, asking to rerun
// describe.
//
// Every writer takes the folder's lock first (CreateFolder): an
// advisory flock(2) (LOCK_EX|LOCK_NB) on ".covpipe.lock" in the folder,
// which holds the writer's process id and is removed when the writer is
// done; the kernel releases the lock of a process that dies, kill -9
// included. A second writer into the folder fails at once with "DIR is
// being written by another covpipe (pid N)" (ErrLocked), before it
// computes anything; a run that needs a cache entry another process is
// writing waits for it (WaitFolder) and then reads it. The lock is
// advisory: other programs can still write the folder. On systems
// without flock (Windows, Plan 9, Solaris, WebAssembly) it is not
// enforced, so two writers into one folder are not kept apart there; the
// journal still keeps a single writer's folder whole. A writer also
// checks that it can create files in the folder, and refuses a folder
// that holds a set of another kind (a run's output into a descriptor
// folder, say) and a meta.json that is not a file or not covpipe's
// marker, so that a bad output folder is found before the compute.
//
// Folders being written are recorded in a process-wide registry, the one
// piece of global state of covpipe's packages: RemoveTempFiles removes
// the temporary files of those short of their commit point, for a
// process that must exit at once (covpipe's second interrupt); a folder
// past its commit point is left to the journal.
//
// # Two layers
//
// The package holds two layers, in files of their own. The output-set
// layer (folder.go, journal.go, lock*.go, set.go, files.go, temps.go)
// knows nothing of descriptors: Folder writes any set of named files and
// commits them whole, Set reads any set back checked, with the formats'
// names and the errors ErrInvalid, ErrTorn, ErrLocked and ErrNoSet. The
// descriptor format (meta.go, writer.go, read.go, csv.go, matrices.go,
// merge.go, shard.go, validate.go) and the .npy arrays (npy.go) are
// written through a Folder and read through the set layer's records
// only: Meta is the descriptor set's marker, Writer and Merge write
// their files with Folder.WriteFile, Folder.WriteNPY and
// Folder.CommitMarker, and Read checks them against Meta's records. The
// other formats (a model, a dictionary, a run) are packages of their own
// over the set layer (model, dictionary, experiment).
//
// # Shards
//
// A run of n images can be split into N shards (Shard, `--shard I/N`):
// shard I takes the contiguous images [I·n/N, (I+1)·n/N). Merge joins the
// N folders into the folder of the unsharded run, byte for byte.
package store
