package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/internal/plural"
)

// ErrFormat reports a malformed input: a file name that does not follow a
// dataset's naming scheme, a bad manifest row, a malformed label map.
var ErrFormat = errors.New("datasets: malformed input")

// ErrEmpty reports a source that holds no items.
var ErrEmpty = errors.New("datasets: no items")

// ErrConfig reports invalid options: of a mosaic, of region labels, or an
// empty or unusable dataset spec.
var ErrConfig = errors.New("datasets: invalid configuration")

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

// List is a list of labelled images. A folder's listing is sorted by
// Item.Rel (byte order), so that the same files always give the same
// list; a manifest's (CSV) keeps the order of its rows.
type List struct {
	// Root is the folder that Item.Rel is relative to.
	Root  string
	Items []Item
	// Skipped counts what a folder listing passed over; zero for lists
	// from a manifest.
	Skipped Skipped
}

// Skipped counts the entries of a listed folder that are not items.
// Hidden files and folders (names starting with a dot) are not counted.
type Skipped struct {
	// NonImages is the number of files without an image extension, and
	// of other entries that are not taken as images: subfolders of the
	// flat FERET and Brodatz folders, links to folders, devices.
	NonImages int `json:"non_images"`
	// EmptyFolders is the number of first-level folders of a Folders tree
	// that hold no image at any depth (empty class folders).
	EmptyFolders int `json:"empty_folders"`
}

// String returns a note such as "3 non-image files, 1 empty class folder",
// or "" when nothing was skipped.
func (s Skipped) String() string {
	var parts []string
	if s.NonImages > 0 {
		parts = append(parts, plural.Of(s.NonImages, "non-image file"))
	}
	if s.EmptyFolders > 0 {
		parts = append(parts, plural.Of(s.EmptyFolders, "empty class folder"))
	}
	return strings.Join(parts, ", ")
}

// Add returns the sum of s and t.
func (s Skipped) Add(t Skipped) Skipped {
	return Skipped{NonImages: s.NonImages + t.NonImages, EmptyFolders: s.EmptyFolders + t.EmptyFolders}
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

// Filter returns a new list, with the same Root and Skipped, of the items
// for which keep returns true, in their order.
func (l *List) Filter(keep func(Item) bool) *List {
	out := &List{Root: l.Root, Skipped: l.Skipped}
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
// dir (see isImage), sorted, and the number of other non-hidden entries
// (subfolders and other files). Hidden entries are skipped uncounted.
func flatImages(dir string) ([]string, int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, err
	}
	var names []string
	skipped := 0
	for _, e := range entries {
		if isHidden(e.Name()) {
			continue
		}
		if !isImage(filepath.Join(dir, e.Name()), e) {
			skipped++
			continue
		}
		names = append(names, e.Name())
	}
	return names, skipped, nil
}

// isImage reports whether the entry at path is taken as an image: it has
// an image name (IsImageName) and is a regular file, a symbolic link to
// one, or a symbolic link that cannot be followed (broken, a loop, or
// unreadable), so that loading it fails naming it instead of it being
// dropped unseen.
func isImage(path string, e fs.DirEntry) bool {
	if !IsImageName(e.Name()) {
		return false
	}
	if e.Type().IsRegular() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(path)
	return err != nil || st.Mode().IsRegular()
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
