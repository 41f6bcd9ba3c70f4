package datasets

import (
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	feret := touch(t, t.TempDir(), "00001ba.png", "00002bj.png")
	brodatz := touch(t, t.TempDir(), "D1.gif", "D2.gif", "D3.gif")
	folders := touch(t, t.TempDir(), "7/0007C1T0001F001.jpg", "8/x.png")
	// A folder named like a kind with a colon is still a plain path.
	odd := touch(t, t.TempDir(), "x:y/a/1.png")
	manifest := writeFile(t, filepath.Join(folders, "list.CSV"), "path,label\n8/x.png,eight\n")
	for _, tc := range []struct {
		spec   string
		labels []string
		meta   bool // first item has Meta
	}{
		{"feret:" + feret, []string{"00001", "00002"}, true},
		{"brodatz:" + brodatz, []string{"D1", "D2", "D3"}, false},
		{"folders:" + folders, []string{"7", "8"}, false},
		{"mars:" + folders, []string{"7", "8"}, true},
		{folders, []string{"7", "8"}, false},
		{"csv:" + manifest, []string{"eight"}, false},
		{manifest, []string{"eight"}, false},
		{filepath.Join(odd, "x:y"), []string{"a"}, false},
		{brodatz, []string{""}, false},                             // a plain folder of images: empty labels
		{filepath.Join(feret, "00001ba.png"), []string{""}, false}, // an image file: no label
	} {
		l, err := Open(tc.spec)
		if err != nil {
			t.Errorf("Open(%q): %v", tc.spec, err)
			continue
		}
		if !slices.Equal(l.Labels(), tc.labels) || (l.Items[0].Meta != nil) != tc.meta {
			t.Errorf("Open(%q): labels %v meta %v, want %v meta %v", tc.spec, l.Labels(), l.Items[0].Meta, tc.labels, tc.meta)
		}
	}
	for _, tc := range []struct {
		spec string
		is   error
	}{
		{"", ErrConfig},
		{"feret:", ErrConfig},
		{"csv:" + filepath.Join(feret, "none.csv"), fs.ErrNotExist},
		{writeFile(t, filepath.Join(feret, "notes.txt"), "x"), ErrConfig}, // a plain file neither csv nor image
		{filepath.Join(feret, "gone.png"), fs.ErrNotExist},
		{filepath.Join(feret, "nope"), fs.ErrNotExist},
		{"feret:" + brodatz, ErrFormat},
		{"pics:" + feret, fs.ErrNotExist}, // unknown kind: a plain path
	} {
		if _, err := Open(tc.spec); !errors.Is(err, tc.is) {
			t.Errorf("Open(%q) error %v, want %v", tc.spec, err, tc.is)
		}
	}
}

// TestFile checks that an image file opens as a list of that one image,
// named by its file name, without a label, and that File refuses a
// folder and a file without an image name.
func TestFile(t *testing.T) {
	dir := touch(t, t.TempDir(), "faces/Me.JPG", "x.png/a.png")
	l, err := Open(filepath.Join(dir, "faces", "Me.JPG"))
	if err != nil {
		t.Fatal(err)
	}
	want := Item{Path: filepath.Join(dir, "faces", "Me.JPG"), Rel: "Me.JPG"}
	if l.Root != filepath.Join(dir, "faces") || len(l.Items) != 1 || !reflect.DeepEqual(l.Items[0], want) {
		t.Errorf("Open(image) = %+v", l)
	}
	if _, err := File(filepath.Join(dir, "x.png")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("File(folder): %v", err)
	}
	if _, err := File(writeFile(t, filepath.Join(dir, "a.txt"), "x")); !errors.Is(err, ErrConfig) {
		t.Errorf("File(a.txt): %v", err)
	}
}

// TestOpenExcept checks that OpenExcept lists a class-folder tree
// without the excluded folder inside it, uncounted, whatever it holds,
// and that Open counts it.
func TestOpenExcept(t *testing.T) {
	root := touch(t, t.TempDir(), "a/1.png", "b/2.png", "out/meta.json", "out/descriptors.npy")
	for _, spec := range []string{root, "folders:" + root, "mars:" + root} {
		l, err := OpenExcept(spec, filepath.Join(root, "out"))
		if err != nil {
			t.Fatal(err)
		}
		if l.Len() != 2 || l.Skipped != (Skipped{}) {
			t.Errorf("%s: %d items, skipped %+v; want 2 items, nothing skipped", spec, l.Len(), l.Skipped)
		}
	}
	l, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if l.Skipped != (Skipped{NonImages: 2, EmptyFolders: 1}) {
		t.Errorf("Open: skipped %+v", l.Skipped)
	}
	if l, err := OpenExcept(root, filepath.Join(root, "nowhere")); err != nil || l.Skipped != (Skipped{NonImages: 2, EmptyFolders: 1}) {
		t.Errorf("OpenExcept of a missing folder: %v, %v", l, err)
	}
}
