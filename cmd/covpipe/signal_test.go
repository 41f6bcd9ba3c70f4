package main

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/covpipe/covpipe/internal/imagetest"
)

// TestDescribeSIGTERM stops a running describe with SIGTERM, as Slurm and
// Kubernetes stop a job, once it is writing its output, and checks that it
// exits non-zero with a message and leaves no temporary file behind.
func TestDescribeSIGTERM(t *testing.T) {
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		t.Skipf("no SIGTERM to send on %s", runtime.GOOS)
	}
	if testing.Short() {
		t.Skip("builds covpipe and runs it for seconds")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build covpipe: %v", err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "covpipe")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// Enough Gabor work on one worker to take well over a second.
	in := filepath.Join(tmp, "images")
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 200 {
		imagetest.Write(t, filepath.Join(in, "c", string(rune('a'+i/26))+string(rune('a'+i%26))+".png"), imagetest.NoiseNRGBA(rng, 96, 96))
	}
	out := filepath.Join(tmp, "out")
	cmd := exec.Command(bin, "describe", "--features", "face", "--workers", "1", "--out", out, in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// Signal once describe is writing: a temporary file is in the output
	// folder.
	deadline := time.Now().Add(60 * time.Second)
	for len(tempFiles(t, out)) == 0 {
		select {
		case err := <-done:
			t.Fatalf("describe finished (%v) before writing its output could be interrupted; stderr:\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("describe wrote no temporary file within 60 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("describe did not stop within 30 s of SIGTERM")
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
		t.Fatalf("describe after SIGTERM: got %v (exited normally or was killed by the signal), want a non-zero exit status; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "covpipe: ") {
		t.Errorf("no error message on stderr after SIGTERM:\n%s", stderr.String())
	}
	if left := tempFiles(t, out); len(left) > 0 {
		t.Errorf("temporary files left after SIGTERM: %v", left)
	}
	t.Logf("stopped %v after SIGTERM: %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(stderr.String()[max(0, stderr.Len()-200):]))
}

// tempFiles lists the atomic writer's temporary files (".NAME.tmp-*") in
// dir, which may not exist yet.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	hidden, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	return append(m, hidden...)
}
