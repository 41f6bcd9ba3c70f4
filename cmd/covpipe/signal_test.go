package main

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/store"
)

// TestDescribeSIGTERM stops a running describe with SIGTERM, as Slurm and
// Kubernetes stop a job, or kills it with SIGKILL, once it is writing its
// output over an earlier complete one, and checks that SIGTERM gives a
// non-zero exit status with a message and leaves no temporary file
// behind, that the earlier output is still whole, and that a rerun (which
// removes a killed run's temporary files) writes the same bytes as an
// uninterrupted run.
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
		imagetest.Write(t, filepath.Join(in, "c", string(rune('a'+i/26))+string(rune('a'+i%26))+".png"), imagetest.NoiseNRGBA(rng, 64, 64))
	}
	args := func(out string, workers string, extra ...string) []string {
		return append([]string{"describe", "--features", "face", "--workers", workers, "--out", out, in}, extra...)
	}
	ref := filepath.Join(tmp, "ref")
	if out, err := exec.Command(bin, args(ref, "0")...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted describe: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			// An earlier complete output of other options.
			if b, err := exec.Command(bin, args(out, "0", "--ridge", "0.01")...).CombinedOutput(); err != nil {
				t.Fatalf("earlier describe: %v\n%s", err, b)
			}
			earlier, err := store.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			interrupt(t, bin, args(out, "1"), out, sig)
			switch left := tempFiles(t, out); {
			case sig == syscall.SIGTERM && len(left) > 0:
				t.Errorf("temporary files left after SIGTERM: %v", left)
			case sig == syscall.SIGKILL && len(left) == 0:
				t.Error("no temporary files after SIGKILL: the rerun's clean-up goes untested")
			}
			if got, err := store.Read(out); err != nil || got.Meta.Ridge != earlier.Meta.Ridge {
				t.Errorf("the earlier output after %v: %v", sig, err)
			}
			if b, err := exec.Command(bin, args(out, "0")...).CombinedOutput(); err != nil {
				t.Fatalf("rerun: %v\n%s", err, b)
			}
			if left := tempFiles(t, out); len(left) > 0 {
				t.Errorf("temporary files left after the rerun: %v", left)
			}
			for _, name := range []string{store.DescriptorsFile, store.ManifestFile, store.MetaFile} {
				a, _ := os.ReadFile(filepath.Join(ref, name))
				b, _ := os.ReadFile(filepath.Join(out, name))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s of the rerun differs from the uninterrupted run's", name)
				}
			}
		})
	}
}

// interrupt starts bin with args and sends it sig once it is writing its
// output (a temporary file is in the folder out); for SIGTERM it checks
// that describe exits non-zero with a message.
func interrupt(t *testing.T, bin string, args []string, out string, sig syscall.Signal) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
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
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("describe did not stop within 30 s of %v", sig)
	}
	if sig != syscall.SIGTERM {
		return
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
		t.Fatalf("describe after SIGTERM: got %v (exited normally or was killed by the signal), want a non-zero exit status; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "covpipe: ") {
		t.Errorf("no error message on stderr after SIGTERM:\n%s", stderr.String())
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
