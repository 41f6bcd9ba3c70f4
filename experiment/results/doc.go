// Package results is the model of what an experiment run measured, the
// content of its results.json: Results (the run's name, seed, repeats,
// timings and its config.Config as run) and a Result per method and task,
// whose Kind says what it measures (accuracies over repeated splits,
// energy curves of learned dictionaries, or the rejection of unknown
// classes, OpenSet), with the summaries it is made of (Stat, Curves,
// Spread, Percent, ItemScores) and the pure functions that build them
// from per-repeat values (MeanStd, MeanStdColumns, NewStat, NewSpread,
// Percents, NewItemScores).
//
// Results.Encode gives the bytes of results.json (indented, each array of
// numbers on one line); Read and Decode read them back, earlier layouts
// included, and refuse JSON that is not covpipe's.
//
// The package holds values and their encoding only: package experiment
// runs the protocols that make them and package experiment/report renders
// them. It imports neither, so that reading, comparing and reporting a
// run's results need only this package and package experiment/config.
package results
