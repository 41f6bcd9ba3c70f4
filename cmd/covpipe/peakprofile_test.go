package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestPeakProfile checks that COVPIPE_PEAKPROFILE writes a heap profile
// (gzipped, as pprof writes them) once a live heap was sampled, that it
// reports the peak, and that without the variable nothing runs.
func TestPeakProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "peak.prof")
	var stderr bytes.Buffer
	stop := startPeakProfile(func(k string) string {
		if k == peakProfileEnv {
			return path
		}
		return ""
	}, &stderr)
	hold := make([]byte, 64<<20)
	for i := range hold {
		hold[i] = byte(i)
	}
	runtime.GC() // the live heap metric is the last collection's
	time.Sleep(4 * peakProfilePeriod)
	stop()
	runtime.KeepAlive(hold)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("the profile is %d bytes, not gzipped", len(b))
	}
	if !strings.Contains(stderr.String(), "peak profile: live heap") || strings.Contains(stderr.String(), "live heap 0 MB") {
		t.Errorf("stderr %q: want the peak's size", stderr.String())
	}
	startPeakProfile(func(string) string { return "" }, &stderr)()
}
