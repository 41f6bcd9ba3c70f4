package main

import (
	"io"
	"io/fs"
	"path"
	"strings"
	"testing"
)

// TestHelpFiles checks that every help/NAME.txt is the description of a
// command, shown by its --help.
func TestHelpFiles(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	files, err := fs.Glob(helpFiles, "help/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("help files %v: %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".txt")
		cmd := app.Command(name)
		if cmd == nil {
			t.Errorf("%s: no command %s", f, name)
			continue
		}
		stdout, _, err := runCLI(t, name, "--help")
		first, _, _ := strings.Cut(cmd.Description, "\n")
		if err != nil || first == "" || strings.HasSuffix(cmd.Description, "\n") || !strings.Contains(stdout, first) {
			t.Errorf("%s --help: %q, %v", name, stdout, err)
		}
	}
}
