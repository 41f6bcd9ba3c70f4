// Package config is the format of covpipe's experiment files: the YAML
// that `covpipe run` reads, and the "config" that results.json records. A
// Config holds the seed, the repeats, the cross-validation folds, the
// report's figure (Plot), the quick subset (QuickConfig), the data section
// (DataConfig, with PartsConfig for items of several regions), and the
// tasks (TaskSpec) and methods (MethodSpec) of the experiment.
//
// Decode reads a file strictly: an unknown key is an error naming its
// line, its section and the keys allowed there, and files over 1 MiB or
// whose aliases expand too far are refused before they are decoded. It
// keeps each task's and each method's own mapping undecoded (TaskSpec.Node,
// MethodSpec.ParamsNode), and At and Sets find the lines and keys of the
// file for later errors.
//
// The boundary: this package knows the keys of the file but not what they
// mean. Package experiment plans a Config: it resolves the data section,
// decodes each task by its protocol and each method by its type (package
// method), checks every value, and fills in what results.json records of
// them (TaskSpec.Kind and Settings, MethodSpec.Params). Errors of both
// wrap ErrConfig. The package imports no other part of experiment.
package config
