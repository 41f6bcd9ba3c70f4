package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/covpipe/covpipe/progress"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// newReporter returns a progress bar on a terminal, else a reporter that
// logs a line at start, every 10 % (at most every 5 s) and at the end:
// "done", or "interrupted" when ctx, the command's, was cancelled. It
// serves every stage that reports progress: describe and the
// experiments.
func newReporter(ctx context.Context, w io.Writer, log *slog.Logger) progress.Reporter {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &barReporter{w: w}
	}
	return &logReporter{ctx: ctx, log: log}
}

type barReporter struct {
	w   io.Writer
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

func (r *barReporter) Begin(stage string, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(r.w),
		progressbar.OptionSetDescription(stage),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

func (r *barReporter) Advance(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil {
		r.bar.Add(n)
	}
}

func (r *barReporter) End() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil {
		r.bar.Finish()
		r.bar = nil
	}
}

type logReporter struct {
	ctx        context.Context
	log        *slog.Logger
	mu         sync.Mutex
	stage      string
	total      int
	done       int
	nextReport int
	start      time.Time
	last       time.Time
}

func (r *logReporter) Begin(stage string, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stage, r.total, r.done, r.nextReport = stage, total, 0, max(1, total/10)
	r.start, r.last = time.Now(), time.Now()
	r.log.Info("start", "stage", stage, "total", total)
}

func (r *logReporter) Advance(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done += n
	if r.done >= r.nextReport && r.done < r.total && time.Since(r.last) >= 5*time.Second {
		r.log.Info("progress", "stage", r.stage, "done", r.done, "total", r.total)
		r.last = time.Now()
	}
	for r.nextReport <= r.done {
		r.nextReport += max(1, r.total/10)
	}
}

func (r *logReporter) End() {
	r.mu.Lock()
	defer r.mu.Unlock()
	msg := "done"
	if r.ctx.Err() != nil {
		msg = "interrupted"
	}
	r.log.Info(msg, "stage", r.stage, "time", roundDuration(time.Since(r.start)))
}

// roundDuration rounds d to three significant digits or so, for the
// log: 2.77s rather than 2.772000001s, 843ms, 1m23s.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond)
	case d < 10*time.Second:
		return d.Round(10 * time.Millisecond)
	case d < time.Minute:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
