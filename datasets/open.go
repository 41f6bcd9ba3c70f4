package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Open opens the list that spec names. A spec is KIND:PATH or a plain
// PATH:
//
//	feret:DIR    FERET(DIR)
//	brodatz:DIR  Brodatz(DIR)
//	folders:DIR  Folders(DIR, nil): label = first-level folder name
//	mars:DIR     Folders(DIR, MARSMeta): folders with MARS name metadata
//	csv:FILE     CSV(FILE)
//	DIR          a plain folder is folders:DIR
//	FILE.csv     a plain file ending in .csv (any case) is csv:FILE
//	IMAGE        a plain image file (IsImageName) is File(IMAGE)
//
// The kind is explicit because naming schemes cannot be told apart
// reliably from a folder's contents. A prefix that is not one of these
// kinds is part of a plain path. Open returns the source's errors, and an
// error (ErrConfig) for an empty spec or path, or a plain path that is
// neither a folder, a .csv file nor an image file.
func Open(spec string) (*List, error) { return OpenExcept(spec, "") }

// OpenExcept is Open listing a folder-per-class tree (folders:, mars: or
// a plain folder) without the folder except, when it lies inside it: a
// command's output folder inside its input, which would otherwise be
// counted as an input folder (and differently once it holds the output).
// An except that does not exist excludes nothing.
func OpenExcept(spec, except string) (*List, error) {
	if kind, path, ok := strings.Cut(spec, ":"); ok {
		open, known := openers[kind]
		if known {
			if path == "" {
				return nil, fmt.Errorf("%w: open %q: empty path after %q", ErrConfig, spec, kind+":")
			}
			return open(path, except)
		}
	}
	if spec == "" {
		return nil, fmt.Errorf("%w: open: empty spec (want a folder, a .csv file or KIND:PATH with KIND feret, brodatz, folders, mars or csv)", ErrConfig)
	}
	st, err := os.Stat(spec)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	switch {
	case st.IsDir():
		return folders(spec, nil, except)
	case strings.EqualFold(filepath.Ext(spec), ".csv"):
		return CSV(spec)
	case IsImageName(spec):
		return File(spec)
	}
	return nil, fmt.Errorf("%w: open %s: not a folder, an image file or a .csv manifest (or use KIND:PATH with KIND feret, brodatz, folders, mars or csv)", ErrConfig, spec)
}

// File returns the list of the one image file at path, without a label:
// its Root is the file's folder and its Rel the file's name, so that
// several files, each opened by File, name their images by file name.
// It returns an error for a path that is missing or not a regular file
// (a symbolic link is followed), and ErrConfig for a name without an
// image extension (IsImageName).
func File(path string) (*List, error) {
	path = filepath.Clean(path)
	if !IsImageName(path) {
		return nil, fmt.Errorf("%w: image file %s: not an image name (want one of the extensions png, jpg, jpeg, gif, bmp, tif, tiff, pgm, ppm, pnm, pam)", ErrConfig, path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("image file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("image file %s: not a regular file", path)
	}
	name := filepath.Base(path)
	return &List{Root: filepath.Dir(path), Items: []Item{{Path: path, Rel: name}}}, nil
}

// openers maps Open's kinds to their sources. It is never modified.
var openers = map[string]func(path, except string) (*List, error){
	"feret":   func(dir, _ string) (*List, error) { return FERET(dir) },
	"brodatz": func(dir, _ string) (*List, error) { return Brodatz(dir) },
	"folders": func(dir, except string) (*List, error) { return folders(dir, nil, except) },
	"mars":    func(dir, except string) (*List, error) { return folders(dir, MARSMeta, except) },
	"csv":     func(file, _ string) (*List, error) { return CSV(file) },
}
