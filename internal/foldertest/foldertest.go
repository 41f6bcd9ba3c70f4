// Package foldertest reads and compares the folders that tests write,
// reads their .npy files independently of package store, and reseals the
// file records of a commit marker (package store's meta.json) after a
// test has damaged the files on purpose.
package foldertest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Files returns the files of dir, by name. It fails tb on an error and
// on a subfolder.
func Files(tb testing.TB, dir string) map[string][]byte {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	files := make(map[string][]byte)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// Names returns the names in dir, sorted (os.ReadDir). It fails tb on
// an error.
func Names(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Diff returns the first difference between two sets of files read by
// Files, or "" when they hold the same names and bytes.
func Diff(a, b map[string][]byte) string {
	na, nb := slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b))
	if !slices.Equal(na, nb) {
		return fmt.Sprint("files ", na, " vs ", nb)
	}
	for _, name := range na {
		if !bytes.Equal(a[name], b[name]) {
			return name + " differs"
		}
	}
	return ""
}

// Same returns the first difference between the files of the folders a
// and b, or "" when they hold the same names and bytes.
func Same(tb testing.TB, a, b string) string {
	tb.Helper()
	return Diff(Files(tb, a), Files(tb, b))
}

// Reseal rewrites the records of the JSON marker file marker of the
// folder dir, the "files" list of {"name", "size", "sha256"}, to match
// the files in dir, so that a test's deliberate damage reaches the
// checks of the files' content instead of being reported as a torn
// folder. It does nothing without the marker, and leaves the record of a
// missing file as it is.
func Reseal(tb testing.TB, dir, marker string) {
	tb.Helper()
	path := filepath.Join(dir, marker)
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatal(err)
	}
	files, _ := m["files"].([]any)
	for _, f := range files {
		f := f.(map[string]any)
		data, err := os.ReadFile(filepath.Join(dir, f["name"].(string)))
		if err != nil {
			continue
		}
		sum := sha256.Sum256(data)
		f["size"], f["sha256"] = len(data), hex.EncodeToString(sum[:])
	}
	if b, err = json.MarshalIndent(m, "", "  "); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// WriteFile writes data to path, creating its folder. It fails tb on an
// error.
func WriteFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}
