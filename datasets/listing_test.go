package datasets

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestListingLinksAndSkipped checks that image-named symbolic links that
// cannot be followed (broken, loops) are listed, so that loading them
// fails naming them, rather than dropped, and that the entries a listing
// passes over are counted.
func TestListingLinksAndSkipped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	symlink := func(t *testing.T, target, link string) {
		t.Helper()
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, dir string)
		list    func(dir string) (*List, error)
		want    []string
		skipped Skipped
	}{
		{
			name: "folders",
			setup: func(t *testing.T, dir string) {
				touch(t, dir, "a/1.png", "a/notes.txt", "b/sub/2.png", "b/README", ".git/x.png", "a/.DS_Store")
				os.MkdirAll(filepath.Join(dir, "empty", "deeper"), 0o755)
				os.MkdirAll(filepath.Join(dir, "c"), 0o755)
				symlink(t, "missing.png", filepath.Join(dir, "a", "broken.png"))
				symlink(t, "loop2.png", filepath.Join(dir, "a", "loop1.png"))
				symlink(t, "loop1.png", filepath.Join(dir, "a", "loop2.png"))
				symlink(t, "1.png", filepath.Join(dir, "a", "ok.png"))
				symlink(t, "missing", filepath.Join(dir, "b", "broken.txt"))
				symlink(t, filepath.Join(dir, "a"), filepath.Join(dir, "b", "dir.png"))
			},
			list:    func(dir string) (*List, error) { return Folders(dir, nil) },
			want:    []string{"a/1.png", "a/broken.png", "a/loop1.png", "a/loop2.png", "a/ok.png", "b/sub/2.png"},
			skipped: Skipped{NonImages: 4, EmptyFolders: 2},
		},
		{
			name: "feret",
			setup: func(t *testing.T, dir string) {
				touch(t, dir, "00001ba.png", "README.txt", "sub/00002ba.png", ".hidden.png")
				symlink(t, "gone.png", filepath.Join(dir, "00001bj.png"))
			},
			list:    FERET,
			want:    []string{"00001ba.png", "00001bj.png"},
			skipped: Skipped{NonImages: 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			l, err := tc.list(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := rels(l); !slices.Equal(got, tc.want) {
				t.Errorf("items %v, want %v", got, tc.want)
			}
			if l.Skipped != tc.skipped {
				t.Errorf("skipped %+v, want %+v", l.Skipped, tc.skipped)
			}
			if f := l.Filter(func(Item) bool { return false }); f.Skipped != l.Skipped {
				t.Errorf("Filter dropped the skipped counts: %+v", f.Skipped)
			}
		})
	}
}

func TestSkippedString(t *testing.T) {
	for _, tc := range []struct {
		s    Skipped
		want string
	}{
		{Skipped{}, ""},
		{Skipped{NonImages: 1}, "1 non-image file"},
		{Skipped{NonImages: 3, EmptyFolders: 1}, "3 non-image files, 1 empty class folder"},
		{Skipped{EmptyFolders: 2}, "2 empty class folders"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}
