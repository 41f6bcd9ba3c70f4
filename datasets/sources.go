package datasets

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FERET lists the face images directly in dir, named SSSSSxx.ext (see
// ParseFERETName): the label is the 5-digit subject id and Meta["pose"]
// the pose code. The paper's face protocol (Sec. 5.1, "Face Recognition")
// trains on poses ba, bj, bk and tests on bd, be, bf, bg separately:
//
//	train := l.Filter(Pose("ba", "bj", "bk"))
//
// Subfolders, hidden files and non-image files are skipped (and counted
// in List.Skipped, but for hidden ones); image-named links that cannot be
// followed are listed, to fail when loaded. It returns an
// error naming the file for an image whose name does not follow the scheme
// (ErrFormat) or a subject and pose found twice, an error for a missing or
// unreadable folder, and ErrEmpty when there are no images.
func FERET(dir string) (*List, error) {
	return flatList("FERET", dir, "SSSSSxx.ext (such as 00001ba.png)",
		func(name string) (Item, string, error) {
			subject, pose, err := ParseFERETName(name)
			return Item{Label: subject, Meta: map[string]string{"pose": pose}}, subject + pose, err
		},
		func(it Item, prev, _ string) string {
			return fmt.Sprintf("subject %s pose %s also in %s", it.Label, it.Meta["pose"], prev)
		})
}

// Pose returns a filter for List.Filter that keeps FERET items with one of
// the pose codes.
func Pose(codes ...string) func(Item) bool { return MetaIs("pose", codes...) }

// Brodatz lists the texture album images directly in dir, named D<n>.ext
// (see ParseBrodatzName), labelled "D<n>" (one image per class). The
// standard album has 111 images, D1..D112 without D14. Subfolders, hidden
// files and non-image files are skipped (and counted in List.Skipped, but
// for hidden ones); image-named links that cannot be followed are listed,
// to fail when loaded. It returns an error naming the
// file for an image whose name does not follow the scheme (ErrFormat) or a
// plate found twice, an error for a missing or unreadable folder, and
// ErrEmpty when there are no images.
func Brodatz(dir string) (*List, error) {
	return flatList("Brodatz", dir, "D<n>.ext (such as D12.gif)",
		func(name string) (Item, string, error) {
			label, _, err := ParseBrodatzName(name)
			return Item{Label: label}, label, err
		},
		func(it Item, prev, name string) string {
			return fmt.Sprintf("%s is both %s and %s", it.Label, prev, name)
		})
}

// flatList lists the images directly in dir (see flatImages) of a dataset
// of the given kind whose file names carry the labels. item parses a file
// name into its item's Label and Meta and a key that no two files may
// share; dup describes a file whose key an earlier file prev already had.
// scheme names the file name scheme in the error for an empty folder.
func flatList(kind, dir, scheme string, item func(name string) (Item, string, error), dup func(it Item, prev, name string) string) (*List, error) {
	dir = filepath.Clean(dir)
	if err := checkDir(kind, dir); err != nil {
		return nil, err
	}
	names, skipped, err := flatImages(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	l := &List{Root: dir, Skipped: Skipped{NonImages: skipped}}
	seen := make(map[string]string)
	for _, name := range names {
		it, key, err := item(name)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", kind, filepath.Join(dir, name), err)
		}
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("%w: %s %s: %s", ErrFormat, kind, dir, dup(it, prev, name))
		}
		seen[key] = name
		it.Path, it.Rel = filepath.Join(dir, name), name
		l.Items = append(l.Items, it)
	}
	if len(l.Items) == 0 {
		return nil, fmt.Errorf("%w: %s: no images named %s in %s", ErrEmpty, kind, scheme, dir)
	}
	sortItems(l.Items)
	return l, nil
}

// Folders lists a folder of images: either a folder-per-class tree, where
// every image file at any depth below a first-level folder of dir is an
// item labelled with that folder's name, as in
// mini-mars/<pid>/<pid>C1T0001F001.jpg, or a plain folder, whose images
// lie directly in dir, each an item with an empty label (the most basic
// batch job: describing a folder of photos). Only image files (see
// IsImageName) are taken; hidden files and folders (names starting with a
// dot) are skipped. When parse is not nil, it gives each item's Meta from
// its base name (MARSMeta for MARS-named crops); names it does not match
// get no Meta.
//
// A folder that holds both images directly and images in first-level
// folders is ambiguous (the loose images would have no class among
// classes), so it is an error (ErrFormat) naming one loose image and one
// class folder. It also returns an error naming the path for a missing or
// unreadable folder, and ErrEmpty when there are no images. Symbolic links
// to files are taken, and so are links with an image name that cannot be
// followed (broken links, loops), so that loading them fails naming them;
// links to folders are not followed, except dir itself. List.Skipped
// counts the other non-hidden files and the first-level folders without
// images.
func Folders(dir string, parse MetaParser) (*List, error) { return folders(dir, parse, "") }

// folders is Folders without the folder except (none when "" or
// missing), as OpenExcept lists.
func folders(dir string, parse MetaParser, except string) (*List, error) {
	dir = filepath.Clean(dir)
	if err := checkDir("folders", dir); err != nil {
		return nil, err
	}
	var excluded os.FileInfo
	if except != "" {
		excluded, _ = os.Stat(except)
	}
	l := &List{Root: dir}
	// The first-level folders, and whether they hold an image.
	classes := make(map[string]bool)
	// The trailing separator makes WalkDir enter dir when it is a symbolic
	// link to a folder; links below it are not followed.
	root := dir + string(filepath.Separator)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		if isHidden(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() && excluded != nil {
			if st, err := os.Stat(path); err == nil && os.SameFile(st, excluded) {
				return filepath.SkipDir
			}
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		class, _, nested := strings.Cut(rel, "/")
		if d.IsDir() {
			if !nested {
				classes[class] = false
			}
			return nil
		}
		if !isImage(path, d) {
			l.Skipped.NonImages++
			return nil
		}
		if nested {
			classes[class] = true
		} else {
			class = "" // a loose image, directly in dir
		}
		it := Item{Path: path, Rel: rel, Label: class}
		if parse != nil {
			if meta, ok := parse(d.Name()); ok {
				it.Meta = meta
			}
		}
		l.Items = append(l.Items, it)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("folders: %w", err)
	}
	for _, full := range classes {
		if !full {
			l.Skipped.EmptyFolders++
		}
	}
	if len(l.Items) == 0 {
		return nil, fmt.Errorf("%w: folders: no images in %s or in its class folders (%s/<label>/...)", ErrEmpty, dir, dir)
	}
	sortItems(l.Items)
	var loose, class *Item
	for i := range l.Items {
		it := &l.Items[i]
		switch {
		case it.Label == "" && loose == nil:
			loose = it
		case it.Label != "" && class == nil:
			class = it
		}
	}
	if loose != nil && class != nil {
		return nil, fmt.Errorf("%w: folders %s: image %s lies directly in the folder, but class folder %s holds images too: "+
			"labels come from first-level folder names (%s/<label>/...) and only a plain folder of images (no class folders) gets empty labels; "+
			"move the loose images into class folders or into a folder of their own",
			ErrFormat, dir, loose.Path, filepath.Join(dir, class.Label), dir)
	}
	return l, nil
}
