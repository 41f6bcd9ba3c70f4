package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestLogReporter checks the plain progress lines: a stage that ends
// normally logs "done", one whose command was cancelled (a stop signal)
// logs "interrupted", never "done", and both give the stage's time
// rounded, not as a float64 of seconds.
func TestLogReporter(t *testing.T) {
	for _, cancelled := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		if cancelled {
			cancel()
		}
		var buf bytes.Buffer
		r := newReporter(ctx, &buf, slog.New(slog.NewTextHandler(&buf, nil)))
		r.Begin("describe", 3)
		r.Advance(3)
		r.End()
		cancel()
		want, not := "msg=done stage=describe time=", "msg=interrupted"
		if cancelled {
			want, not = "msg=interrupted stage=describe time=", "msg=done"
		}
		if log := buf.String(); !strings.Contains(log, want) || strings.Contains(log, not) || strings.Contains(log, "seconds=") {
			t.Errorf("cancelled %v: log\n%s\nwant %q and no %q", cancelled, log, want, not)
		}
	}
}

func TestRoundDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{2772000001 * time.Nanosecond, "2.77s"},
		{843400 * time.Microsecond, "843ms"},
		{12345 * time.Millisecond, "12.3s"},
		{83400 * time.Millisecond, "1m23s"},
		{0, "0s"},
	} {
		if got := roundDuration(tc.d).String(); got != tc.want {
			t.Errorf("roundDuration(%v) = %s, want %s", tc.d, got, tc.want)
		}
	}
}
