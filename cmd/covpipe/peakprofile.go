package main

import (
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// peakProfileEnv names the environment variable of a developer's heap
// profile at the peak: COVPIPE_PEAKPROFILE=FILE makes covpipe write to
// FILE the heap profile (go tool pprof -sample_index=inuse_space) of the
// largest live heap it has seen so far, sampling it every
// peakProfilePeriod, which --memprofile's profile at the end of a run
// cannot show.
const peakProfileEnv = "COVPIPE_PEAKPROFILE"

// peakProfilePeriod is how often the peak profiler samples the live heap.
const peakProfilePeriod = 50 * time.Millisecond

// startPeakProfile starts the peak profiler when getenv names a file
// (peakProfileEnv) and returns the function that stops it, writing the
// last peak's profile; the profile's errors go to stderr.
func startPeakProfile(getenv func(string) string, stderr io.Writer) (stop func()) {
	path := getenv(peakProfileEnv)
	if path == "" {
		return func() {}
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var peak uint64
		var prof []byte
		tick := time.NewTicker(peakProfilePeriod)
		defer tick.Stop()
		for {
			select {
			case <-done:
				if err := os.WriteFile(path, prof, 0o644); err != nil {
					fmt.Fprintf(stderr, "peak profile: %v\n", err)
				}
				fmt.Fprintf(stderr, "peak profile: live heap %d MB at its peak, profile in %s\n", peak>>20, path)
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			// A new peak is profiled when it exceeds the last by 1%, so
			// that a slowly growing heap is not profiled at every tick.
			if live := sample[0].Value.Uint64(); live > peak+peak/100 {
				peak = live
				var b bytesWriter
				if err := pprof.Lookup("heap").WriteTo(&b, 0); err == nil {
					prof = b
				}
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// bytesWriter is an io.Writer appending to itself.
type bytesWriter []byte

func (b *bytesWriter) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
