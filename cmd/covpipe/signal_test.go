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

	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/store"
)

// TestDescribeSIGTERM stops a running describe with SIGTERM, as Slurm and
// Kubernetes stop a job, with SIGINT twice (Ctrl-C, then Ctrl-C again),
// or kills it with SIGKILL, once it is writing its output over an
// earlier complete one, and checks that a stop signal gives the exit
// status 128 + its number with "covpipe: interrupted" and a progress
// line saying so, and leaves no temporary file behind, that the earlier
// output is still whole, and that a rerun (which removes a killed run's
// temporary files) writes the same bytes as an uninterrupted run.
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
	for _, tc := range []struct {
		name string
		sigs []syscall.Signal
		code int // exit status; 0: killed by the signal
	}{
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}, 143},
		{"SIGINT twice", []syscall.Signal{syscall.SIGINT, syscall.SIGINT}, 130},
		{"SIGKILL", []syscall.Signal{syscall.SIGKILL}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			// An earlier complete output of other options.
			if b, err := exec.Command(bin, args(out, "0", "--ridge", "0.01")...).CombinedOutput(); err != nil {
				t.Fatalf("earlier describe: %v\n%s", err, b)
			}
			earlier, err := store.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			interrupt(t, bin, args(out, "1"), out, tc.sigs, tc.code)
			switch left := tempFiles(t, out); {
			case tc.code != 0 && len(left) > 0:
				t.Errorf("temporary files left after %s: %v", tc.name, left)
			case tc.code == 0 && len(left) == 0:
				t.Error("no temporary files after SIGKILL: the rerun's clean-up goes untested")
			}
			if got, err := store.Read(out); err != nil || got.Meta.Ridge != earlier.Meta.Ridge {
				t.Errorf("the earlier output after %s: %v", tc.name, err)
			}
			if b, err := exec.Command(bin, args(out, "0")...).CombinedOutput(); err != nil {
				t.Fatalf("rerun: %v\n%s", err, b)
			}
			if left := tempFiles(t, out); len(left) > 0 {
				t.Errorf("temporary files left after the rerun: %v", left)
			}
			if d := foldertest.Same(t, ref, out); d != "" {
				t.Errorf("the rerun's folder differs from the uninterrupted run's: %s", d)
			}
		})
	}
}

// interrupt starts bin with args and sends it sigs, one after another,
// once it is writing its output (a temporary file is in the folder out),
// and checks that it exits with the status code (128 + the signal's
// number) and says it was interrupted, or, for code 0, that it was killed.
func interrupt(t *testing.T, bin string, args []string, out string, sigs []syscall.Signal, code int) {
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
	for _, sig := range sigs {
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("describe did not stop within 30 s of %v", sigs)
	}
	if code == 0 {
		return
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != code {
		t.Fatalf("describe after %v: got %v, want exit status %d; stderr:\n%s", sigs, err, code, stderr.String())
	}
	msg := stderr.String()
	if !strings.Contains(msg, "covpipe: interrupted") || strings.Contains(msg, "context canceled") || strings.Contains(msg, "msg=done") {
		t.Errorf("after %v, stderr does not say interrupted, or says done or context canceled:\n%s", sigs, msg)
	}
	if len(sigs) == 1 && !strings.Contains(msg, "msg=interrupted stage=describe") {
		t.Errorf("no progress line saying the stage was interrupted:\n%s", msg)
	}
	t.Logf("stopped %v after %v: %s", time.Since(start).Round(time.Millisecond), sigs, strings.TrimSpace(msg[max(0, len(msg)-200):]))
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
