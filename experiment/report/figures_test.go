package report_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/experiment/report"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/store"
)

// TestFigureErrorOnce checks that a figure that cannot be drawn fails
// Write with plots' error, which names the figure, once: not "bar chart:
// bar chart ...".
func TestFigureErrorOnce(t *testing.T) {
	r := &results.Results{Name: "x", Repeats: 1, Config: &config.Config{Plot: config.PlotBars},
		Results: []results.Result{{Task: "a", Method: "m", AccuracyMean: math.NaN()}}}
	f, err := store.CreateFolder(context.Background(), t.TempDir(), store.FormatRun)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	err = report.Write(f, r, report.Options{})
	if err == nil || strings.Count(err.Error(), "bar chart") != 1 || !strings.Contains(err.Error(), "accuracy.png: series 0 (\"m\"): Y[0] is NaN") {
		t.Errorf("Write: %v, want the bar chart's error once", err)
	}
}
