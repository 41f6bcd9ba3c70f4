package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Plot is the figure an experiment's report draws (package
// experiment/report), parsed once when the experiment loads. Its zero
// value, PlotNone, draws nothing.
type Plot uint8

const (
	// PlotNone draws no figure (plot: none, or no plot key).
	PlotNone Plot = iota
	// PlotCMC draws one cumulative matching characteristic per task, a
	// curve per method (re-identification, the paper's Fig. 6); it needs
	// the experiment's cmc: R.
	PlotCMC
	// PlotBars draws the accuracy of every method on every task as bars
	// with standard deviations (the paper's Fig. 4).
	PlotBars
	// PlotEnergy draws, per energy-curve task, the representation energy J
	// of Eqn. 10 against the iteration (the paper's Fig. 7).
	PlotEnergy
	// PlotROC draws, per open-set task, the ROC of known against unknown
	// test items, a curve per method.
	PlotROC
)

// plotNames are the plot values of experiment files, by Plot.
var plotNames = [...]string{PlotNone: "none", PlotCMC: "cmc", PlotBars: "bars", PlotEnergy: "energy", PlotROC: "roc"}

// String returns the plot's name in experiment files.
func (p Plot) String() string {
	if int(p) < len(plotNames) {
		return plotNames[p]
	}
	return fmt.Sprintf("Plot(%d)", uint8(p))
}

// ParsePlot returns the Plot named s: cmc, bars, energy, roc, or none (also
// ""). It returns an error listing the valid names for any other s.
func ParsePlot(s string) (Plot, error) {
	if s == "" {
		return PlotNone, nil
	}
	for p, name := range plotNames {
		if s == name {
			return Plot(p), nil
		}
	}
	return PlotNone, fmt.Errorf("plot %q, want cmc, bars, energy, roc or none", s)
}

// MarshalText writes the plot's name (results.json records the config).
func (p Plot) MarshalText() ([]byte, error) {
	if int(p) >= len(plotNames) {
		return nil, fmt.Errorf("invalid %v", p)
	}
	return []byte(p.String()), nil
}

// UnmarshalText reads a plot's name (ParsePlot).
func (p *Plot) UnmarshalText(b []byte) error {
	v, err := ParsePlot(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// UnmarshalYAML reads a plot's name from an experiment file, naming the
// line of a value that is not one.
func (p *Plot) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: plot is one of cmc, bars, energy, roc or none", n.Line)}}
	}
	v, err := ParsePlot(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
	}
	*p = v
	return nil
}
