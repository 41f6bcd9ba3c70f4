package plots_test

import (
	"fmt"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/covpipe/covpipe/plots"
)

// CMC curves of two methods over ranks 1–5, the second with a ± band
// (e.g. the standard deviation over random gallery/probe splits).
func ExampleCMC() {
	path, remove := tempPath("ethz-seq1.png")
	defer remove()

	err := plots.CMC(path, "ETHZ Sequence 1", []plots.Series{
		{Name: "SDALF", Y: []float64{64.8, 73.1, 77.4, 80.5, 82.4}},
		{Name: "RSR", Y: []float64{91.4, 94.6, 95.9, 96.7, 97.3}, Err: []float64{1.9, 1.4, 1.1, 0.9, 0.8}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pngSize(path))

	// Rates are percentages: fractions in [0, 1] would plot fine but
	// mislead, values above 100 are rejected.
	err = plots.CMC(path, "", []plots.Series{{Name: "bad", Y: []float64{0.9, 1.01e2}}})
	fmt.Println(err != nil)
	// Output:
	// 800x600
	// true
}

// A grouped bar chart in the style of the paper's Fig. 4: mean accuracy
// per Brodatz mosaic with black standard-deviation bars.
func ExampleBarChart() {
	path, remove := tempPath("brodatz.svg")
	defer remove()

	err := plots.BarChart(path, plots.Bars{
		Title:  "Brodatz texture classification",
		YLabel: "Average recognition accuracy (%)",
		XLabel: "Test ID",
		Groups: []string{"5c", "10", "16v"},
		Series: []plots.Series{
			{Name: "logE-SR", Y: []float64{89.2, 74.6, 68.3}, Err: []float64{3.1, 2.7, 2.5}},
			{Name: "TSC", Y: []float64{98.8, 80.3, 65.5}, Err: []float64{1.0, 2.8, 2.9}},
			{Name: "RSR", Y: []float64{98.0, 87.5, 76.8}, Err: []float64{1.2, 2.0, 2.4}},
		},
	})
	fmt.Println(err)

	err = plots.BarChart(path, plots.Bars{
		Groups: []string{"5c", "10"},
		Series: []plots.Series{{Name: "RSR", Y: []float64{98.0}}},
	})
	fmt.Println(err != nil)
	// Output:
	// <nil>
	// true
}

// tempPath returns a path named name in a new temporary folder, and a
// function that removes the folder.
func tempPath(name string) (string, func()) {
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	return filepath.Join(dir, name), func() { os.RemoveAll(dir) }
}

// pngSize returns the width×height of the PNG file at path.
func pngSize(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%dx%d", cfg.Width, cfg.Height)
}
