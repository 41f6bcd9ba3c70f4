// Package shareddata locates the real image datasets that live outside the
// repository, in ../shared/datasets beside the project root, for tests and
// benchmarks. The data is never part of the repository: tests that need it
// call Dir, which skips the test with a clear message when it is absent.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names the environment variable that overrides the location of the
// shared datasets folder.
const EnvVar = "COVPIPE_SHARED_DATA"

// Root returns the shared datasets folder and whether it exists. It is
// $COVPIPE_SHARED_DATA when set, else ../shared/datasets relative to the
// module root (the nearest parent folder of the working directory holding
// go.mod).
func Root() (string, bool) {
	if dir := os.Getenv(EnvVar); dir != "" {
		return dir, isDir(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			root := filepath.Join(dir, "..", "shared", "datasets")
			return root, isDir(root)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Dir returns the named dataset folder inside Root (for example "brodatz"),
// or skips the test when it is absent, saying where it looked.
func Dir(tb testing.TB, name string) string {
	tb.Helper()
	root, ok := Root()
	if !ok {
		tb.Skipf("shared datasets not found (looked for %q; set %s to override): skipping test on real data", root, EnvVar)
	}
	dir := filepath.Join(root, name)
	if !isDir(dir) {
		tb.Skipf("shared dataset %q not found at %s: skipping test on real data", name, dir)
	}
	return dir
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
