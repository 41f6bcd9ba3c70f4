package foldertest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestNames checks that Names lists files and folders, sorted, and
// nothing for an empty folder.
func TestNames(t *testing.T) {
	dir := write(t, t.TempDir(), map[string]string{"b": "1", "a": "2"})
	if err := os.Mkdir(filepath.Join(dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Names(t, dir); strings.Join(got, ",") != "a,b,c" {
		t.Errorf("names %v, want [a b c]", got)
	}
	if got := Names(t, t.TempDir()); len(got) != 0 {
		t.Errorf("empty folder: names %v", got)
	}
}

// TestSame checks that folders of the same names and bytes are the same,
// and that another name or another byte is told.
func TestSame(t *testing.T) {
	a := write(t, t.TempDir(), map[string]string{"x": "1", "y": "2"})
	for _, tc := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"x": "1", "y": "2"}, ""},
		{map[string]string{"x": "1", "y": "3"}, "y differs"},
		{map[string]string{"x": "1", "z": "2"}, "files [x y] vs [x z]"},
		{map[string]string{"x": "1"}, "files [x y] vs [x]"},
	} {
		if got := Same(t, a, write(t, t.TempDir(), tc.files)); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.files, got, tc.want)
		}
	}
}

// TestReseal checks that Reseal records the size and SHA-256 of the
// files as they are, keeps the other fields, and leaves the record of a
// missing file.
func TestReseal(t *testing.T) {
	dir := write(t, t.TempDir(), map[string]string{
		"a.txt":     "changed",
		"done.json": `{"other": 1, "files": [{"name": "a.txt", "size": 1, "sha256": "00"}, {"name": "gone", "size": 2, "sha256": "11"}]}`,
	})
	Reseal(t, dir, "done.json")
	b, _ := os.ReadFile(filepath.Join(dir, "done.json"))
	var m struct {
		Other float64
		Files []struct {
			Name   string
			Size   int
			SHA256 string
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("changed"))
	if m.Other != 1 || len(m.Files) != 2 || m.Files[0].Size != 7 || m.Files[0].SHA256 != hex.EncodeToString(sum[:]) ||
		m.Files[1].Size != 2 || m.Files[1].SHA256 != "11" {
		t.Errorf("resealed %s", b)
	}
	Reseal(t, filepath.Join(dir, "none"), "done.json") // no marker: nothing to do
	if strings.Contains(string(b), `"00"`) {
		t.Errorf("old record left: %s", b)
	}
}
