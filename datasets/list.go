package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrFormat reports a malformed input: a file name that does not follow a
// dataset's naming scheme, a bad manifest row, a malformed label map.
var ErrFormat = errors.New("datasets: malformed input")

// ErrEmpty reports a source that holds no items.
var ErrEmpty = errors.New("datasets: no items")

// Item is one labelled image of a List.
type Item struct {
	// Path is the file's path: the list's Root joined with Rel, or the
	// absolute path a manifest gave. It opens the file from the current
	// directory when Root does.
	Path string
	// Rel is the path relative to the list's Root, slash-separated, as
	// written in manifests; for a file outside Root it is the absolute
	// path (slash-separated).
	Rel string
	// Label is the class label: a FERET subject id ("00001"), a Brodatz
	// name ("D12"), a folder name (a person id "0003"), a manifest's label;
	// empty for an image of a plain folder without class folders (see
	// Folders).
	Label string
	// Meta holds per-item metadata such as {"pose": "ba"} or
	// {"camera": "1", "tracklet": "0002", "frame": "034"}; nil when there
	// is none. Lists made by Filter share Meta maps with their source.
	Meta map[string]string
}

// List is a list of labelled images, sorted by Item.Rel (byte order) so
// that the same files always give the same list.
type List struct {
	// Root is the folder that Item.Rel is relative to.
	Root  string
	Items []Item
}

// Len returns the number of items.
func (l *List) Len() int { return len(l.Items) }

// Labels returns the distinct labels of the items, sorted.
func (l *List) Labels() []string {
	seen := make(map[string]bool)
	var out []string
	for _, it := range l.Items {
		if !seen[it.Label] {
			seen[it.Label] = true
			out = append(out, it.Label)
		}
	}
	slices.Sort(out)
	return out
}

// Filter returns a new list, with the same Root, of the items for which
// keep returns true, in their order.
func (l *List) Filter(keep func(Item) bool) *List {
	out := &List{Root: l.Root}
	for _, it := range l.Items {
		if keep(it) {
			out.Items = append(out.Items, it)
		}
	}
	return out
}

// MetaIs returns a filter for List.Filter that keeps items whose Meta[key]
// is one of values.
func MetaIs(key string, values ...string) func(Item) bool {
	return func(it Item) bool {
		v, ok := it.Meta[key]
		return ok && slices.Contains(values, v)
	}
}

// imageExts are the file extensions, lower case, that the list sources
// take for images: the formats imageio decodes.
var imageExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".bmp": true,
	".tif": true, ".tiff": true, ".pgm": true, ".ppm": true, ".pnm": true,
	".pam": true,
}

// IsImageName reports whether a file name has an image extension (png,
// jpg, jpeg, gif, bmp, tif, tiff, pgm, ppm, pnm, pam; case-insensitive),
// the files that the list sources take.
func IsImageName(name string) bool {
	return imageExts[strings.ToLower(filepath.Ext(name))]
}

// isHidden reports whether a file or folder name is hidden (starts with a
// dot), as editors' and OS metadata files (.DS_Store, ._x.jpg) are.
func isHidden(name string) bool { return strings.HasPrefix(name, ".") }

// sortItems sorts items by Rel.
func sortItems(items []Item) {
	slices.SortFunc(items, func(a, b Item) int { return strings.Compare(a.Rel, b.Rel) })
}

// flatImages returns the names of the non-hidden image files directly in
// dir, sorted. Subfolders, hidden files and other files are skipped.
func flatImages(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || isHidden(e.Name()) || !IsImageName(e.Name()) {
			continue
		}
		if !isFile(filepath.Join(dir, e.Name()), e) {
			continue
		}
		names = append(names, e.Name())
	}
	return names, nil
}

// isFile reports whether the entry is a regular file or a symbolic link
// to one.
func isFile(path string, e fs.DirEntry) bool {
	if e.Type().IsRegular() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// checkDir returns a clear error when dir is not an existing folder.
func checkDir(kind, dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: %s is not a folder", kind, dir)
	}
	return nil
}
