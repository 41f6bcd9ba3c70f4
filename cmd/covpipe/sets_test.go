package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/covpipe/covpipe/dictionary"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/store"
)

// TestHandleSignals checks the signal handler: the first signal cancels
// the context with the interruption as its cause, which exitCode reports
// as "covpipe: interrupted" with 128 + the signal's number; the second
// removes the temporary files and exits at once with its own status.
func TestHandleSignals(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	ctx, cancel := context.WithCancelCause(context.Background())
	cleaned := make(chan bool, 1)
	exited := make(chan int, 1)
	var stderr bytes.Buffer
	go handleSignals(sigs, cancel, func() { cleaned <- true }, func(code int) { exited <- code }, &stderr)
	sigs <- syscall.SIGTERM
	<-ctx.Done()
	var out bytes.Buffer
	if code := exitCode(ctx, ctx.Err(), &out); code != 143 || out.String() != "covpipe: interrupted (SIGTERM)\n" {
		t.Errorf("a command stopped by SIGTERM: status %d, %q", code, out.String())
	}
	if len(cleaned) > 0 || len(exited) > 0 {
		t.Fatal("the first signal cleaned up or exited")
	}
	sigs <- os.Interrupt
	if code := <-exited; code != 130 || !<-cleaned {
		t.Errorf("second signal: status %d", code)
	}
	if !strings.Contains(stderr.String(), "covpipe: interrupted again (SIGINT)") {
		t.Errorf("second signal printed %q", stderr.String())
	}

	out.Reset()
	if code := exitCode(context.Background(), nil, &out); code != 0 || out.Len() > 0 {
		t.Errorf("success: %d, %q", code, out.String())
	}
	if code := exitCode(context.Background(), errors.New("bad\ninput"), &out); code != 1 || out.String() != "covpipe: bad; input\n" {
		t.Errorf("an error: %d, %q", code, out.String())
	}
}

func TestFolderName(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"synthetic", "synthetic"},
		{"feret-64 quick", "feret-64-quick"},
		{"../../../x", "..-..-..-x"},
		{"/etc/passwd", "-etc-passwd"},
		{"a//b\\c", "a-b-c"},
		{"caf\u00e9 \u00e0 la", "caf-la"},
		{"v1.2_ok", "v1.2_ok"},
		{"", ""},
		{".", ""},
		{"..", ""},
		{"///", ""},
	} {
		got, err := folderName(tc.name)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("folderName(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestOutputCheckedFirst checks that every command refuses an output
// folder it cannot write, one another command's set holds, and one
// another process is writing, before it reads its inputs (which do not
// exist here, so that reading them would be the error).
func TestOutputCheckedFirst(t *testing.T) {
	dir, cfg := writeTinyConfig(t)
	file := filepath.Join(dir, "file")
	foldertest.WriteFile(t, file, []byte("x"))
	missing := filepath.Join(dir, "missing")
	desc := filepath.Join(dir, "desc")
	if _, stderr, err := runCLI(t, "describe", "--out", desc, imageFolder(t, 1)); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	commands := map[string][]string{
		"describe": {"describe", missing},
		"merge":    {"merge", missing},
		"learn":    {"learn", "--atoms", "2", missing},
		"encode":   {"encode", "--dict", missing, missing},
		"run":      {"run", cfg},
	}
	for name, args := range commands {
		for _, tc := range []struct{ out, want string }{
			{file, file + " is a file"},
			{filepath.Join(file, "sub"), "not a directory"},
		} {
			_, _, err := runCLI(t, append(args, "--out", tc.out)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s --out %s: %v, want an error saying %q", name, tc.out, err, tc.want)
			}
		}
		if name == "describe" || name == "merge" {
			continue
		}
		if _, _, err := runCLI(t, append(args, "--out", desc)...); err == nil || !strings.Contains(err.Error(), desc+" holds a "+store.Format+" folder") {
			t.Errorf("%s into a descriptor folder: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(desc, store.MetaFile)); err != nil {
		t.Errorf("the descriptor folder was damaged: %v", err)
	}

	// A folder another process is writing: this one, in another goroutine
	// (an flock is held per open file, so it excludes this process too).
	busy := filepath.Join(dir, "busy")
	f, err := store.CreateFolder(context.Background(), busy, store.FormatRun)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	want := busy + " is being written by another covpipe (pid " + strconv.Itoa(os.Getpid()) + ")"
	if _, _, err := runCLI(t, "run", cfg, "--out", busy); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("run into a folder being written: %v, want %q", err, want)
	}
}

// TestReportRewritesRunSet checks that covpipe run writes its folder as
// one set recorded by meta.json, that covpipe report rewrites it as a
// new set with the same results.json, refuses a results file it cannot
// rewrite the folder of, and refuses a torn run folder.
func TestReportRewritesRunSet(t *testing.T) {
	dir, out := tinyRun(t)
	set, err := store.OpenSet(out, store.FormatRun)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range set.Files {
		names = append(names, f.Name)
	}
	if want := []string{results.FileName, "summary.md"}; !slices.Equal(names, want) {
		t.Errorf("run set %v, want %v", names, want)
	}
	written, _ := os.ReadFile(filepath.Join(out, results.FileName))
	stale := filepath.Join(out, ".summary.md.tmp-12345")
	foldertest.WriteFile(t, stale, []byte("killed"))
	if _, stderr, err := runCLI(t, "report", filepath.Join(out, results.FileName)); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	if b, err := store.ReadFile(filepath.Join(out, results.FileName)); err != nil || !bytes.Equal(b, written) {
		t.Errorf("results.json after report: %v", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a killed writer's temporary file is left: %v", err)
	}

	loose := filepath.Join(dir, "loose.json")
	foldertest.WriteFile(t, loose, written)
	if _, _, err := runCLI(t, "report", loose); err == nil || !strings.Contains(err.Error(), "give --out DIR") {
		t.Errorf("report of a loose results file: %v", err)
	}
	if _, stderr, err := runCLI(t, "report", loose, "--out", filepath.Join(dir, "rep")); err != nil {
		t.Errorf("report of a loose results file --out: %v\n%s", err, stderr)
	}

	foldertest.WriteFile(t, filepath.Join(out, "summary.md"), []byte("old"))
	foldertest.WriteFile(t, filepath.Join(out, results.FileName), append(written, ' '))
	if _, _, err := runCLI(t, "report", filepath.Join(out, results.FileName)); !errors.Is(err, store.ErrTorn) || !strings.Contains(err.Error(), "rerun covpipe run") {
		t.Errorf("report of a torn run folder: %v", err)
	}
}

// TestEncodeRefusesTornDictionary mixes the dictionary.npy of one learn
// with the learn.json of another, as a torn folder did, and checks that
// encode refuses it asking to rerun learn, and refuses a folder of an
// older covpipe without meta.json.
func TestEncodeRefusesTornDictionary(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.npy")
	if err := store.WriteNPY(train, []int{30, 3, 3}, randomSPD(30, 3, 1)); err != nil {
		t.Fatal(err)
	}
	learn := func(out, sigma string) {
		t.Helper()
		if _, stderr, err := runCLI(t, "learn", train, "--atoms", "4", "--iters", "2", "--sigma", sigma, "--out", out); err != nil {
			t.Fatalf("learn: %v\n%s", err, stderr)
		}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	learn(a, "1")
	learn(b, "2")
	codes := filepath.Join(dir, "codes")
	if _, stderr, err := runCLI(t, "encode", "--dict", a, "--out", codes, train); err != nil {
		t.Fatalf("encode: %v\n%s", err, stderr)
	}
	if _, err := store.OpenSet(codes, store.FormatCodes); err != nil {
		t.Errorf("codes folder: %v", err)
	}
	learnJSON, _ := os.ReadFile(filepath.Join(b, dictionary.RecordFile))
	foldertest.WriteFile(t, filepath.Join(a, dictionary.RecordFile), learnJSON)
	if _, _, err := runCLI(t, "encode", "--dict", a, "--out", codes, train); !errors.Is(err, store.ErrTorn) || !strings.Contains(err.Error(), "rerun covpipe learn") {
		t.Errorf("encode with a torn dictionary: %v", err)
	}
	os.Remove(filepath.Join(b, store.MetaFile))
	if _, _, err := runCLI(t, "encode", "--dict", b, "--out", codes, train); !errors.Is(err, store.ErrNoSet) || !strings.Contains(err.Error(), "rerun covpipe learn") {
		t.Errorf("encode with a dictionary folder without meta.json: %v", err)
	}
	if _, err := os.Stat(filepath.Join(codes, ".covpipe.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left: %v", err)
	}
}
