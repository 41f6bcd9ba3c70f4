package plots

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteSamples writes sample figures for visual review into the folder
// named by COVPIPE_PLOTS_SAMPLES; pixel tests cannot judge readability.
func TestWriteSamples(t *testing.T) {
	dir := os.Getenv("COVPIPE_PLOTS_SAMPLES")
	if dir == "" {
		t.Skip("set COVPIPE_PLOTS_SAMPLES=dir to write sample figures for review")
	}
	for _, ext := range []string{".png", ".svg", ".pdf"} {
		if err := CMC(filepath.Join(dir, "cmc"+ext), "ETHZ Sequence 1", cmcSample()); err != nil {
			t.Fatal(err)
		}
		if err := BarChart(filepath.Join(dir, "texture"+ext), barsSample()); err != nil {
			t.Fatal(err)
		}
	}
}
