package datasets

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// touch creates the files (slash-separated paths relative to root, with
// their folders), in the given order, and returns root.
func touch(t *testing.T, root string, rels ...string) string {
	t.Helper()
	for _, rel := range rels {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func rels(l *List) []string {
	var out []string
	for _, it := range l.Items {
		out = append(out, it.Rel)
	}
	return out
}

// checkPaths checks that every item's Path is Root joined with Rel.
func checkPaths(t *testing.T, l *List) {
	t.Helper()
	for _, it := range l.Items {
		if want := filepath.Join(l.Root, filepath.FromSlash(it.Rel)); it.Path != want {
			t.Errorf("item %s: Path %q, want %q", it.Rel, it.Path, want)
		}
	}
}

func TestFERET(t *testing.T) {
	dir := touch(t, t.TempDir(),
		"00002bj.png", "00001ba.png", "00002ba.png", "00001bk.png", "00010fa.PNG",
		"README.txt", ".hidden.png", "sub/99999zz.png")
	l, err := FERET(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"00001ba.png", "00001bk.png", "00002ba.png", "00002bj.png", "00010fa.PNG"}; !slices.Equal(rels(l), want) {
		t.Fatalf("items %v, want %v", rels(l), want)
	}
	checkPaths(t, l)
	if got, want := l.Labels(), []string{"00001", "00002", "00010"}; !slices.Equal(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	if it := l.Items[3]; it.Label != "00002" || !maps.Equal(it.Meta, map[string]string{"pose": "bj"}) {
		t.Errorf("item %+v, want label 00002 pose bj", it)
	}
	train := l.Filter(Pose("ba", "bj"))
	if want := []string{"00001ba.png", "00002ba.png", "00002bj.png"}; !slices.Equal(rels(train), want) || train.Root != l.Root {
		t.Errorf("Pose(ba, bj) items %v root %q, want %v root %q", rels(train), train.Root, want, l.Root)
	}
	if l.Len() != 5 || train.Len() != 3 {
		t.Errorf("Len %d, %d; want 5, 3", l.Len(), train.Len())
	}
}

func TestFERETErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		is    error
		want  string // in the message
	}{
		{"malformed", []string{"00001ba.png", "0001ba.png"}, ErrFormat, "0001ba.png"},
		{"upper pose", []string{"00001BA.png"}, ErrFormat, "00001BA.png"},
		{"duplicate", []string{"00001ba.png", "00001ba.jpg"}, ErrFormat, "00001ba.jpg"},
		{"empty", []string{"notes.txt", "sub/00001ba.png"}, ErrEmpty, "SSSSSxx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := touch(t, t.TempDir(), tc.files...)
			_, err := FERET(dir)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("FERET error %v, want %v naming %s and %q", err, tc.is, dir, tc.want)
			}
		})
	}
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := FERET(missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("FERET(missing) error %v, want not-exist naming the path", err)
	}
	file := touch(t, t.TempDir(), "f.png")
	if _, err := FERET(filepath.Join(file, "f.png")); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("FERET(file) error %v, want 'not a folder'", err)
	}
}

func TestBrodatz(t *testing.T) {
	dir := touch(t, t.TempDir(), "D2.gif", "D10.gif", "D1.gif", "D112.png", "Thumbs.db", ".D3.gif")
	l, err := Brodatz(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"D1.gif", "D10.gif", "D112.png", "D2.gif"}; !slices.Equal(rels(l), want) {
		t.Fatalf("items %v, want %v", rels(l), want)
	}
	checkPaths(t, l)
	if want := []string{"D1", "D10", "D112", "D2"}; !slices.Equal(l.Labels(), want) {
		t.Errorf("labels %v, want %v", l.Labels(), want)
	}
	for _, tc := range []struct {
		files []string
		is    error
		want  string
	}{
		{[]string{"D1.gif", "D01.gif"}, ErrFormat, "D01.gif"},
		{[]string{"D1.gif", "D1.png"}, ErrFormat, "D1"},
		{[]string{"notes.txt"}, ErrEmpty, "D<n>"},
	} {
		dir := touch(t, t.TempDir(), tc.files...)
		if _, err := Brodatz(dir); !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Brodatz(%v) error %v, want %v mentioning %q", tc.files, err, tc.is, tc.want)
		}
	}
}

func TestFolders(t *testing.T) {
	dir := touch(t, t.TempDir(),
		"b/x/deep/0002C1T0001F002.JPG",
		"b/0002C2T0004F010.png",
		"a/0001C1T0001F001.jpg",
		"a/photo.jpeg",
		"a/notes.txt",
		"a/.0001C1T0001F009.jpg", // hidden file
		".git/objects/c.png",     // hidden folder
		"c/.thumbs/x.png",        // hidden folder: c has no images
		"d/e/f.TIFF",
		"README.md",
	)
	l, err := Folders(dir, MARSMeta)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a/0001C1T0001F001.jpg", "a/photo.jpeg", "b/0002C2T0004F010.png", "b/x/deep/0002C1T0001F002.JPG", "d/e/f.TIFF"}
	if !slices.Equal(rels(l), want) {
		t.Fatalf("items %v, want %v", rels(l), want)
	}
	checkPaths(t, l)
	if got := l.Labels(); !slices.Equal(got, []string{"a", "b", "d"}) {
		t.Errorf("labels %v, want [a b d]", got)
	}
	for _, tc := range []struct {
		i     int
		label string
		meta  map[string]string
	}{
		{0, "a", map[string]string{"pid": "0001", "camera": "1", "tracklet": "0001", "frame": "001"}},
		{1, "a", nil},
		{3, "b", map[string]string{"pid": "0002", "camera": "1", "tracklet": "0001", "frame": "002"}},
		{4, "d", nil},
	} {
		if it := l.Items[tc.i]; it.Label != tc.label || !maps.Equal(it.Meta, tc.meta) {
			t.Errorf("item %s: label %q meta %v, want %q %v", it.Rel, it.Label, it.Meta, tc.label, tc.meta)
		}
	}
	cam1 := l.Filter(MetaIs("camera", "1"))
	if want := []string{"a/0001C1T0001F001.jpg", "b/x/deep/0002C1T0001F002.JPG"}; !slices.Equal(rels(cam1), want) {
		t.Errorf("camera 1: %v, want %v", rels(cam1), want)
	}
	plain, err := Folders(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range plain.Items {
		if it.Meta != nil {
			t.Errorf("Folders without parser: item %s has Meta %v", it.Rel, it.Meta)
		}
	}
}

func TestFoldersSymlinks(t *testing.T) {
	real := touch(t, t.TempDir(), "a/1.png", "b/2.png")
	base := t.TempDir()
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("symbolic links not supported: %v", err)
	}
	// A link to a file is an item; a link to a folder is not followed.
	if err := os.Symlink(filepath.Join(real, "a", "1.png"), filepath.Join(real, "b", "3.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "a"), filepath.Join(real, "b", "sub")); err != nil {
		t.Fatal(err)
	}
	l, err := Folders(link, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/1.png", "b/2.png", "b/3.png"}; !slices.Equal(rels(l), want) || l.Root != link {
		t.Errorf("through a linked root: items %v root %q, want %v root %q", rels(l), l.Root, want, link)
	}
	checkPaths(t, l)
}

// TestFoldersPlain checks that the images directly in a folder without
// class folders are listed with empty labels, and that subfolders or files
// that hold no images do not turn it into a class tree.
func TestFoldersPlain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  []string
	}{
		{"images only", []string{"c.png", "a.jpg", "b.PNG"}, []string{"a.jpg", "b.PNG", "c.png"}},
		{"with other files", []string{"2.png", "1.png", "notes.txt", "empty/readme.md", ".thumbs/x.png", ".hidden.png"}, []string{"1.png", "2.png"}},
		{"MARS names", []string{"0001C1T0001F001.jpg"}, []string{"0001C1T0001F001.jpg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := touch(t, t.TempDir(), tc.files...)
			l, err := Folders(dir, MARSMeta)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rels(l), tc.want) || l.Root != dir {
				t.Fatalf("items %v root %q, want %v root %q", rels(l), l.Root, tc.want, dir)
			}
			checkPaths(t, l)
			for _, it := range l.Items {
				if it.Label != "" {
					t.Errorf("item %s: label %q, want empty", it.Rel, it.Label)
				}
			}
			if got := l.Labels(); !slices.Equal(got, []string{""}) {
				t.Errorf("labels %q, want [\"\"]", got)
			}
		})
	}
	// Open takes a plain path to a folder as folders:PATH.
	dir := touch(t, t.TempDir(), "x.png", "y.png", "z.png")
	l, err := Open(dir)
	if err != nil || l.Len() != 3 || !slices.Equal(l.Labels(), []string{""}) {
		t.Errorf("Open(plain folder): %v, %v", l, err)
	}
}

func TestFoldersErrors(t *testing.T) {
	for _, files := range [][]string{
		{"a/1.png", "loose.png"},
		{"b/c/1.png", "loose.png", "z.png", "a/notes.txt"},
	} {
		dir := touch(t, t.TempDir(), files...)
		_, err := Folders(dir, nil)
		class := filepath.Join(dir, strings.Split(files[0], "/")[0])
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%v: error %v, want ErrFormat", files, err)
			continue
		}
		for _, want := range []string{filepath.Join(dir, "loose.png"), class, "first-level folder names", "empty labels"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v: error %v, want it to contain %q", files, err, want)
			}
		}
	}
	dir := touch(t, t.TempDir(), "a/notes.txt", ".b/1.png")
	if _, err := Folders(dir, nil); !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), dir) {
		t.Errorf("no images: error %v, want ErrEmpty naming %s", err, dir)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := Folders(missing, nil); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing folder: error %v", err)
	}
}

func TestFoldersUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("permissions are not enforced for root")
	}
	dir := touch(t, t.TempDir(), "a/1.png", "b/2.png")
	locked := filepath.Join(dir, "b")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	if _, err := Folders(dir, nil); !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), locked) {
		t.Errorf("unreadable folder: error %v, want a permission error naming %s", err, locked)
	}
}

// TestDeterministicOrder checks that the order of the items does not depend
// on the order in which files were created.
func TestDeterministicOrder(t *testing.T) {
	files := []string{"c/3.png", "a/10.png", "a/2.png", "b/1.png", "a/1.png", "a/b/1.png"}
	want := []string{"a/1.png", "a/10.png", "a/2.png", "a/b/1.png", "b/1.png", "c/3.png"}
	reversed := slices.Clone(files)
	slices.Reverse(reversed)
	for _, order := range [][]string{files, reversed} {
		l, err := Folders(touch(t, t.TempDir(), order...), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rels(l), want) {
			t.Errorf("created in order %v: items %v, want %v", order, rels(l), want)
		}
	}
}

func TestListFilterLabels(t *testing.T) {
	l := &List{Root: "r", Items: []Item{
		{Rel: "1", Label: "b", Meta: map[string]string{"k": "x"}},
		{Rel: "2", Label: "a"},
		{Rel: "3", Label: "b", Meta: map[string]string{"k": "y"}},
	}}
	if got := l.Labels(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Labels %v", got)
	}
	f := l.Filter(MetaIs("k", "y", "z"))
	if !slices.Equal(rels(f), []string{"3"}) || f.Root != "r" {
		t.Errorf("MetaIs filter: %v root %q", rels(f), f.Root)
	}
	none := l.Filter(func(Item) bool { return false })
	if none.Len() != 0 || len(none.Labels()) != 0 {
		t.Errorf("empty filter: %d items, labels %v", none.Len(), none.Labels())
	}
}

func TestIsImageName(t *testing.T) {
	for name, want := range map[string]bool{
		"a.png": true, "a.JPG": true, "a.jpeg": true, "a.gif": true, "a.bmp": true, "a.tif": true,
		"a.TIFF": true, "a.pgm": true, "a.ppm": true, "a.pnm": true, "a.pam": true,
		"a.txt": false, "a": false, "a.png.txt": false, "a.webp": false, "png": false,
	} {
		if IsImageName(name) != want {
			t.Errorf("IsImageName(%q) = %v, want %v", name, !want, want)
		}
	}
}
