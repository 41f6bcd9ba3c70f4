package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/store"
)

// Results is everything a run measured: the content of results.json.
type Results struct {
	Name    string    `json:"name"`
	Version string    `json:"version"`
	Seed    uint64    `json:"seed"`
	Repeats int       `json:"repeats"`
	Workers int       `json:"workers"`
	Cores   int       `json:"cores"`
	Started time.Time `json:"started"`
	// Seconds is the wall time of the whole run.
	Seconds float64 `json:"seconds"`
	// Timings holds seconds per stage: data (synthetic draws), extraction
	// (descriptors, 0 when cached), pairwise (Stein divergences and other
	// shared matrices), methods (summed over methods and repeats).
	Timings map[string]float64 `json:"timings"`
	// DataRoot is the folder dataset paths were resolved against.
	DataRoot string `json:"data_root,omitempty"`
	// Config is the experiment as run, flag overrides applied.
	Config  *config.Config `json:"config"`
	Results []Result       `json:"results"`
}

// Result holds one method's numbers on one task. Its Kind says what it
// measures and so which fields hold them: an accuracy result (tasks that
// classify, and their averages and bests) fills AccuracyMean through
// Confusion and the CMC fields, an energy result (energy-curve tasks,
// Fig. 7) fills the Energy fields; Task, Method, Kind, Seconds and Notes
// are common. Accuracies are in percent.
type Result struct {
	Task   string `json:"task"`
	Method string `json:"method"`
	// Kind is what the result measures. results.json records it for
	// energy results only: a result without a kind is an accuracy.
	Kind Kind `json:"kind,omitempty"`
	// AccuracyMean and AccuracyStd summarise Runs; the standard deviation
	// is the sample one (n−1 denominator), 0 for a single run.
	AccuracyMean float64 `json:"accuracy_mean"`
	AccuracyStd  float64 `json:"accuracy_std"`
	// Seconds is the time spent in this method summed over repeats
	// (kernel matrices, sparse coding, classification, dictionary
	// learning), as measured on the worker that ran each repeat.
	Seconds float64 `json:"seconds"`
	// Runs is the accuracy of every repeat.
	Runs []float64 `json:"runs"`
	// Degenerate and Unconverged count, per repeat, the test queries whose
	// sparse code was all zeros or whose solver hit its iteration cap.
	Degenerate  []int `json:"degenerate_codes"`
	Unconverged []int `json:"unconverged_codes"`
	// Lambda summarises the λ that test queries were coded with, over all
	// repeats (sparse-coding methods only): with lambda_ratio each query
	// has its own, ratio·λ_max(x).
	Lambda *Spread `json:"lambda,omitempty"`
	// Params records the hyper-parameters used in each repeat (chosen by
	// cross-validation inside the training set when lists were given).
	Params []map[string]float64 `json:"params"`
	// TrainItems and TestItems count each repeat's split.
	TrainItems []int `json:"train_items"`
	TestItems  []int `json:"test_items"`
	// Classes names the classes, in the order of PerClass and Confusion.
	Classes []string `json:"classes,omitempty"`
	// PerClass is each class's accuracy over all repeats (null: untested).
	PerClass []Percent `json:"per_class_accuracy,omitempty"`
	// Confusion[t][p] counts test items of class t predicted as p, summed
	// over repeats.
	Confusion [][]int `json:"confusion,omitempty"`
	// CMC and CMCStd are the mean and standard deviation over repeats of
	// the recognition rate at ranks 1..R; CMCRuns holds every repeat's.
	CMC     []float64   `json:"cmc_mean,omitempty"`
	CMCStd  []float64   `json:"cmc_std,omitempty"`
	CMCRuns [][]float64 `json:"cmc_runs,omitempty"`
	// Energy and EnergyStd are, for an energy result, the mean and sample
	// standard deviation over repeats of the representation energy J of
	// Eqn. 10 after 0, 1, ... iterations of dictionary learning (0: the
	// initial dictionary); EnergyRuns holds every repeat's series.
	Energy     []float64   `json:"energy_mean,omitempty"`
	EnergyStd  []float64   `json:"energy_std,omitempty"`
	EnergyRuns [][]float64 `json:"energy_runs,omitempty"`
	// FinalEnergy and FinalEnergyStd are J after the last iteration: the
	// last entries of Energy and EnergyStd.
	FinalEnergy    float64 `json:"final_energy_mean,omitempty"`
	FinalEnergyStd float64 `json:"final_energy_std,omitempty"`
	// OpenSet holds what an open-set result (KindOpenSet) measures
	// beside Runs, AccuracyMean and AccuracyStd, which it fills with the
	// accuracy on the known test items without rejection.
	OpenSet
	// Items holds, for methods that score their answers
	// (classify.Spec.Scores), each repeat's test items' answers and
	// scores.
	Items []*ItemScores `json:"item_scores,omitempty"`
	// Parts records, for items of several regions (data.parts), how each
	// repeat fused them: the rule chosen, the regions, their weights and
	// each region's test accuracy alone.
	Parts []*classify.Fusion `json:"parts,omitempty"`
	// Chosen names, for a best method, the method it chose in each
	// repeat.
	Chosen []string `json:"chosen,omitempty"`
	// CVEstimate is, for a method that chooses by cross-validation on
	// the training items (parameter lists, ridge variants, best, a
	// chosen fusion), each repeat's cross-validated accuracy (%) of the
	// setting it chose (classify.Estimate), to set beside Runs, the
	// test accuracy it reached: their difference is the estimate's bias.
	CVEstimate []float64 `json:"cv_estimate,omitempty"`
	// Notes records what the protocol had to adapt (dropped classes or
	// regions, short classes).
	Notes []string `json:"notes,omitempty"`
}

// OpenSet is what an open-set result measures: the ROC of known against
// unknown test items, its area, and the accept and identification rates
// at one false accept rate (package experiment's open_set tasks define
// them).
type OpenSet struct {
	// Rejection is what the method's answers are thresholded by: "sci"
	// (the sparsity concentration index of SRC methods) or "score".
	Rejection string `json:"rejection,omitempty"`
	// FAR is the false accept rate (%) of TAR, Identification and
	// Thresholds.
	FAR float64 `json:"far,omitempty"`
	// ROCFAR is the grid of false accept rates (%) of ROC, the true
	// accept rates (%) of known items.
	ROCFAR []float64 `json:"roc_far,omitempty"`
	ROC    *Curves   `json:"roc_tar,omitempty"`
	// AUC is the area under the ROC.
	AUC *Stat `json:"auc,omitempty"`
	// TAR is the true accept rate (%) at FAR, and Identification the
	// known items accepted and labelled right (%) there.
	TAR            *Stat `json:"tar_at_far,omitempty"`
	Identification *Stat `json:"identification_at_far,omitempty"`
	// Thresholds are the confidence thresholds at FAR of the repeats.
	Thresholds []float64 `json:"threshold_runs,omitempty"`
	// KnownItems and UnknownItems count each repeat's test items of
	// trained classes and of held-out ones.
	KnownItems   []int `json:"known_items,omitempty"`
	UnknownItems []int `json:"unknown_items,omitempty"`
}

// Stat is a measure of every repeat, Runs, with its mean and sample
// standard deviation.
type Stat struct {
	Mean float64   `json:"mean"`
	Std  float64   `json:"std"`
	Runs []float64 `json:"runs"`
}

// NewStat returns the Stat of runs: their mean and sample standard
// deviation (MeanStd). The Stat holds runs itself, not a copy.
func NewStat(runs []float64) *Stat {
	s := &Stat{Runs: runs}
	s.Mean, s.Std = MeanStd(runs)
	return s
}

// Curves are a curve of every repeat, Runs, with their pointwise mean and
// sample standard deviation.
type Curves struct {
	Mean []float64   `json:"mean"`
	Std  []float64   `json:"std"`
	Runs [][]float64 `json:"runs"`
}

// Kind is what a Result measures.
type Kind uint8

const (
	// KindAccuracy is recognition accuracy in percent over repeated
	// train/test splits.
	KindAccuracy Kind = iota
	// KindEnergy is the representation energy J of Eqn. 10 of learned
	// dictionaries against the iteration (Fig. 7).
	KindEnergy
	// KindOpenSet is the rejection of unknown classes: the ROC of known
	// against unknown test items and the accuracy on the known ones.
	KindOpenSet
)

// kindNames are the names of the kinds in results.json, by Kind.
var kindNames = [...]string{KindAccuracy: "accuracy", KindEnergy: "energy", KindOpenSet: "open-set"}

// String returns the kind's name in results.json.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) {
	if int(k) >= len(kindNames) {
		return nil, fmt.Errorf("invalid %v", k)
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a kind's name, accuracy, energy or open-set.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, name := range kindNames {
		if string(b) == name {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("result kind %q, want accuracy, energy or open-set", b)
}

// resultJSON is Result without its methods: an accuracy result's record.
type resultJSON Result

// energyJSON is an energy result's record: the fields it fills.
type energyJSON struct {
	Task           string      `json:"task"`
	Method         string      `json:"method"`
	Kind           Kind        `json:"kind"`
	FinalEnergy    float64     `json:"final_energy_mean"`
	FinalEnergyStd float64     `json:"final_energy_std"`
	Seconds        float64     `json:"seconds"`
	Energy         []float64   `json:"energy_mean"`
	EnergyStd      []float64   `json:"energy_std"`
	EnergyRuns     [][]float64 `json:"energy_runs"`
	Notes          []string    `json:"notes,omitempty"`
}

// openSetJSON is an open-set result's record: the fields it fills.
type openSetJSON struct {
	Task         string  `json:"task"`
	Method       string  `json:"method"`
	Kind         Kind    `json:"kind"`
	AccuracyMean float64 `json:"accuracy_mean"`
	AccuracyStd  float64 `json:"accuracy_std"`
	OpenSet
	Seconds    float64              `json:"seconds"`
	Runs       []float64            `json:"runs"`
	Params     []map[string]float64 `json:"params"`
	TrainItems []int                `json:"train_items"`
	Notes      []string             `json:"notes,omitempty"`
}

// MarshalJSON records an accuracy result with all its fields, and an
// energy or open-set result with the fields of its kind only.
func (x Result) MarshalJSON() ([]byte, error) {
	if x.Kind == KindOpenSet {
		return json.Marshal(openSetJSON{Task: x.Task, Method: x.Method, Kind: x.Kind, AccuracyMean: x.AccuracyMean, AccuracyStd: x.AccuracyStd,
			OpenSet: x.OpenSet, Seconds: x.Seconds, Runs: x.Runs, Params: x.Params, TrainItems: x.TrainItems, Notes: x.Notes})
	}
	if x.Kind != KindEnergy {
		return json.Marshal(resultJSON(x))
	}
	return json.Marshal(energyJSON{
		Task: x.Task, Method: x.Method, Kind: x.Kind,
		FinalEnergy: x.FinalEnergy, FinalEnergyStd: x.FinalEnergyStd, Seconds: x.Seconds,
		Energy: x.Energy, EnergyStd: x.EnergyStd, EnergyRuns: x.EnergyRuns, Notes: x.Notes,
	})
}

// Spread summarises a sample: its extremes, median and mean.
type Spread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
}

// NewSpread returns the Spread of the sample v, nil when v is empty: its
// minimum, median (the mean of the two middle values of an even count),
// maximum and mean. It sorts v in place.
func NewSpread(v []float64) *Spread {
	if len(v) == 0 {
		return nil
	}
	sort.Float64s(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + med) / 2
	}
	var mean float64
	for _, x := range v {
		mean += x / float64(len(v))
	}
	return &Spread{Min: v[0], Median: med, Max: v[len(v)-1], Mean: mean}
}

// MeanStd returns the mean x̄ = Σ v_i / n of v and its sample standard
// deviation s = √(Σ (v_i − x̄)² / (n − 1)), as AccuracyMean and
// AccuracyStd summarise Runs: s is 0 for a single value, and both are NaN
// for none.
func MeanStd(v []float64) (mean, std float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)-1))
}

// MeanStdColumns returns the MeanStd of each column of rows, curves of
// equal length (one per repeat): their pointwise mean and sample standard
// deviation, as CMC and CMCStd, Energy and EnergyStd and Curves hold them;
// nil for no rows.
func MeanStdColumns(rows [][]float64) (mean, std []float64) {
	if len(rows) == 0 {
		return nil, nil
	}
	for c := range rows[0] {
		col := make([]float64, len(rows))
		for r := range rows {
			col[r] = rows[r][c]
		}
		m, s := MeanStd(col)
		mean, std = append(mean, m), append(std, s)
	}
	return mean, std
}

// Percent is a percentage that encodes NaN (undefined) as JSON null.
type Percent float64

// MarshalJSON writes null for NaN.
func (p Percent) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(p)) {
		return []byte("null"), nil
	}
	return []byte(fmt.Sprintf("%g", float64(p))), nil
}

// UnmarshalJSON reads null as NaN.
func (p *Percent) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*p = Percent(math.NaN())
		return nil
	}
	var f float64
	if _, err := fmt.Sscanf(string(b), "%g", &f); err != nil {
		return err
	}
	*p = Percent(f)
	return nil
}

// Percents returns v as Percents, so that its NaNs (a class never
// tested) are recorded as null.
func Percents(v []float64) []Percent {
	out := make([]Percent, len(v))
	for i, x := range v {
		out[i] = Percent(x)
	}
	return out
}

// FileName is the name of the file of Results in a run's folder.
const FileName = "results.json"

// Encode returns the bytes of results.json: r as indented JSON, two
// spaces a level, each array of numbers or strings on one line
// (appendLayout), and a final newline. Package experiment/report writes
// them into a run's folder with summary.md and the figures, as one output
// set. EncodeTo writes the same bytes to a writer without holding them.
func (r *Results) Encode() ([]byte, error) {
	var b bytes.Buffer
	if err := r.EncodeTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// EncodeTo writes Encode's bytes to w. The results are encoded and
// written one at a time, so that a run with per-item scores holds one
// result's encoding at a time rather than its whole document. It returns
// the first error of the encoding or of w.
func (r *Results) EncodeTo(w io.Writer) error {
	head := *r
	head.Results = nil
	b, err := json.Marshal(&head)
	const last = `"results":null}` // Results is the last field
	if err == nil && !bytes.HasSuffix(b, []byte(last)) {
		err = errors.New("the results are not the last member")
	}
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	out := appendLayout(nil, b[:len(b)-len(last)], 0)
	switch {
	case r.Results == nil:
		out = append(out, `"results": null`...)
	case len(r.Results) == 0:
		out = append(out, `"results": []`...)
	default:
		out = append(out, `"results": [`...)
		for i := range r.Results {
			x, err := json.Marshal(&r.Results[i])
			if err != nil {
				return fmt.Errorf("encode results: %w", err)
			}
			if i > 0 {
				out = append(out, ',')
			}
			out = appendLayout(appendIndent(out, 2), x, 2)
			if _, err := w.Write(out); err != nil {
				return err
			}
			out = out[:0]
		}
		out = append(appendIndent(out, 1), ']')
	}
	_, err = w.Write(append(out, "\n}\n"...))
	return err
}

// appendIndent appends a newline and depth levels of indentation.
func appendIndent(out []byte, depth int) []byte {
	out = append(out, '\n')
	for range depth {
		out = append(out, ' ', ' ')
	}
	return out
}

// appendLayout appends the compact JSON b, which starts depth levels
// deep, laid out as json.MarshalIndent(v, "", "  ") would lay it out,
// except that every array holding no array or object (the per-item
// scores, confusion rows and curves of a run) stays on one line.
func appendLayout(out, b []byte, depth int) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '"':
			end := stringEnd(b, i)
			out = append(out, b[i:end]...)
			i = end - 1
			continue
		case '[':
			if end, flat := arrayEnd(b, i); flat {
				out = append(out, b[i:end]...)
				i = end - 1
				continue
			}
		case '}', ']':
			depth--
			out = append(appendIndent(out, depth), c)
			continue
		case ',':
			out = appendIndent(append(out, c), depth)
			continue
		case ':':
			out = append(out, c, ' ')
			continue
		}
		out = append(out, c)
		if c == '[' || c == '{' {
			if i+1 < len(b) && (b[i+1] == '}' || b[i+1] == ']') {
				out = append(out, b[i+1])
				i++
				continue
			}
			depth++
			out = appendIndent(out, depth)
		}
	}
	return out
}

// stringEnd returns the index just past the JSON string that starts at
// b[i] (a quote).
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// arrayEnd returns the index just past the JSON array that starts at b[i]
// (a bracket), and whether it holds no array or object.
func arrayEnd(b []byte, i int) (int, bool) {
	flat := true
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = stringEnd(b, j) - 1
		case '[', '{':
			if j > i {
				flat = false
			}
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return j + 1, flat
			}
		}
	}
	return len(b), flat
}

// Read reads a results.json written by covpipe run (Encode's
// bytes), as Decode decodes it. When its folder is a run's output
// set, the file is checked against the set's meta.json (store.ReadFile):
// one that is not the recorded one is an error naming the folder.
func Read(path string) (*Results, error) {
	b, err := store.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	return Decode(path, b)
}

// Decode decodes b, the content of the results.json at path. It
// returns an error naming path when b does not parse, or when it holds
// no results or a result without its task and method: JSON that parses
// but is not covpipe's (`{}`, say) is refused rather than reported as an
// empty table.
//
// The first layout of results.json recorded energy curves without a kind,
// their final J in accuracy_mean and accuracy_std; Decode reads
// such results as energy results, with FinalEnergy and FinalEnergyStd.
func Decode(path string, b []byte) (*Results, error) {
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.Results) == 0 {
		return nil, fmt.Errorf("%s: no results: not a results.json written by covpipe run", path)
	}
	for i := range r.Results {
		x := &r.Results[i]
		if x.Task == "" || x.Method == "" {
			return nil, fmt.Errorf("%s: result %d has no task or method: not a results.json written by covpipe run", path, i)
		}
		if x.Kind == KindAccuracy && len(x.Energy) > 0 {
			x.Kind = KindEnergy
			x.FinalEnergy, x.FinalEnergyStd = x.AccuracyMean, x.AccuracyStd
			x.AccuracyMean, x.AccuracyStd = 0, 0
		}
	}
	return &r, nil
}
