// Package experiment runs the protocols of Harandi, Sanderson, Hartley and
// Lovell, "Sparse Coding and Dictionary Learning for Symmetric Positive
// Definite Matrices: A Kernel Approach", ECCV 2012 (Section 5), from YAML
// experiment files, and reports what they measure.
//
// Load (or Parse) reads a file strictly (its format, config.Config, is
// package experiment/config) and resolves every setting once into a
// Plan: the data section becomes a features.Set, covariance
// regularisations and a region layout; each task is decoded by its
// protocol and each method by its type. Each method's Spec
// (classify.Spec) is read once and checked against every task the method
// runs on: parameters that depend on the matrix size (the Stein kernel's
// σ, Theorem 1) against the task's d, and the method's requests (a
// dictionary split, feature vectors, an energy tracer) against what the
// task offers, so that a method that cannot run on a task fails to load.
// Plan.Warnings lists what the file should change although it loads
// (deprecated spellings, a degenerate kernel σ). Files over 1 MiB and
// YAML aliases expanding beyond 10,000 nodes are refused before they are
// decoded. Before it allocates anything, Run refuses a plan whose
// settings would make it hold more than Options.MaxMemory
// (Plan.CheckMemory: repeats, synthetic samples, regions per image, ...)
// and relative dataset paths that leave the data root. Run then draws
// each repeat's split from seeds derived from the experiment seed and the
// task and repeat indices only, runs the methods (package method) on it,
// and returns a results.Results with accuracies, per-class accuracies,
// confusion matrices, CMC curves, the parameters cross-validation chose
// and stage timings, or, for energy-curve tasks, the representation
// energy of learned dictionaries (a results.Result's Kind says which).
// Package experiment/results holds that model, results.json's encoding
// (Results.Encode) and its reading (results.Read); package
// experiment/report renders the tables, summary.md and figures, and
// writes them with results.json as the run's output set. Neither imports
// this package, so that reading and reporting a run need nothing of the
// engine.
//
// A run is a list of units, each a method on one repeat of a task that
// draws splits, or a whole energy-curve or open-set task; each unit draws
// its split and chooses its parameters by itself. RunPartial runs the
// units of one shard (Options.Shard: every N-th unit) and returns their
// records (Partial, with the experiment file and flags as Source); Merge
// joins the Partials of every shard into the results.Results that Run
// gives, which is itself RunPartial over all units then the same
// aggregation: the same numbers, apart from timings.
//
// Protocols (task kinds) are one file each, protocol_*.go, registered in
// the table of protocols.go: synthetic SPD classes (Table 1), fixed
// metadata selectors (FERET, Table 2), random per-class splits and camera
// splits of a dataset (re-identification, Fig. 6), texture mosaics
// (Fig. 4), dictionary-learning splits (Table 3), energy curves (Fig. 7)
// and averages and bests of earlier tasks. Image descriptors come from
// package describe, cached on disk under a hash of what determines them.
package experiment
