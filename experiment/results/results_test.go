package results

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/internal/foldertest"
)

// TestReadResultsFirstLayout reads energy curves recorded in the first
// layout of results.json (no kind; the final J in accuracy_mean and
// accuracy_std) as energy results.
func TestReadResultsFirstLayout(t *testing.T) {
	r, err := Read("testdata/results-v1-energy.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 3 {
		t.Fatalf("%d results, want 3", len(r.Results))
	}
	for _, x := range r.Results {
		last := len(x.Energy) - 1
		if x.Kind != KindEnergy || len(x.Energy) != 4 || len(x.EnergyRuns) != 2 || x.AccuracyMean != 0 || x.AccuracyStd != 0 ||
			x.FinalEnergy != x.Energy[last] || x.FinalEnergyStd != x.EnergyStd[last] {
			t.Errorf("%s: read as %+v", x.Method, x)
		}
	}
	if x := r.Results[0]; x.Method != "learned" || x.FinalEnergy != 61.5 || !slices.Equal(x.EnergyRuns[1], []float64{70, 65, 62, 61}) {
		t.Errorf("learned: %+v", x)
	}
	if r.Config.Plot != config.PlotEnergy {
		t.Errorf("plot %v, want energy", r.Config.Plot)
	}
}

// TestEnergyResultJSON checks the record of an energy result: its kind
// and the fields of its kind only, read back unchanged.
func TestEnergyResultJSON(t *testing.T) {
	x := Result{Task: "fig7", Method: "learned", Kind: KindEnergy, Seconds: 0.5,
		Energy: []float64{3, 2}, EnergyStd: []float64{0.5, 0.25}, EnergyRuns: [][]float64{{3.5, 2.25}, {2.5, 1.75}},
		FinalEnergy: 2, FinalEnergyStd: 0.25, Notes: []string{"n"}}
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"task":"fig7","method":"learned","kind":"energy","final_energy_mean":2,"final_energy_std":0.25,"seconds":0.5,` +
		`"energy_mean":[3,2],"energy_std":[0.5,0.25],"energy_runs":[[3.5,2.25],[2.5,1.75]],"notes":["n"]}`
	if string(b) != want {
		t.Errorf("recorded as\n%s\nwant\n%s", b, want)
	}
	dir := t.TempDir()
	enc, err := (&Results{Results: []Result{x, {Task: "easy", Method: "rsr", AccuracyMean: 50, Runs: []float64{50}}}}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	foldertest.WriteFile(t, filepath.Join(dir, "results.json"), enc)
	back, err := Read(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(back.Results[0])
	if string(got) != want || back.Results[1].Kind != KindAccuracy || back.Results[1].AccuracyMean != 50 {
		t.Errorf("read back as %s and %+v", got, back.Results[1])
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"results": [{"task": "a", "method": "b", "kind": "speed"}]}`), 0o644)
	if _, err := Read(bad); err == nil || !strings.Contains(err.Error(), `result kind "speed", want accuracy, energy or open-set`) {
		t.Errorf("unknown kind: %v", err)
	}
}

// TestLayout checks results.json's layout against an independent one:
// json.MarshalIndent's, with every array that holds no array or object
// then put on one line (indentedFlat), on values with strings holding
// brackets, quotes, escapes, commas and colons, empty arrays and objects,
// and nested arrays; and that arrays of scalars come out on one line.
func TestLayout(t *testing.T) {
	v := map[string]any{
		"runs":   []float64{1.5, 2, -3e-7},
		"nested": [][]int{{1, 2}, {3}},
		"empty":  []int{},
		"none":   map[string]int{},
		"names":  []string{`a[b]`, `"q"`, `back\slash`, "x,\n y", "k: {v}"},
		"obj":    []map[string]any{{"k": []int{4, 5}, "s": "]{"}, {}},
		"deep":   map[string]any{"a": map[string]any{"b": []any{1, "two", nil, true}}},
		"items":  []*ItemScores{{Truth: []int{0, 1}, Label: NewClasses([]int32{1, 1}), Score: NewScores([]float64{0.5, 1}), Second: NewClasses([]int32{-1, 0}), SecondScore: NewScores([]float64{0, 0.25})}},
	}
	compact, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	indented, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got, want := string(appendLayout(nil, compact, 0)), string(indentedFlat(indented))
	if got != want {
		t.Errorf("layout:\n%s\nwant:\n%s", got, want)
	}
	// Encode, a result at a time, against the same, with no results, none
	// and some (an open-set one with its custom encoding among them).
	for _, rs := range [][]Result{nil, {}, {
		{Task: "easy", Method: "rsr", AccuracyMean: 50, Runs: []float64{50, 50}, Items: v["items"].([]*ItemScores), Notes: []string{`a "b", [c]`}},
		{Task: "open", Method: "nn", Kind: KindOpenSet, Runs: []float64{1}},
		{Task: "fig7", Method: "codes", Kind: KindEnergy, Energy: []float64{3, 2}},
	}} {
		r := &Results{Name: "t", Timings: map[string]float64{"data": 1}, Config: &config.Config{Name: "t"}, Results: rs}
		enc, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		indented, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if want := string(indentedFlat(indented)) + "\n"; string(enc) != want {
			t.Errorf("Encode with %d results:\n%s\nwant:\n%s", len(rs), enc, want)
		}
	}
	for _, line := range []string{`"runs": [1.5,2,-3e-7]`, `"k": [4,5]`, `[1,2]`, `"empty": []`, `"none": {}`, `"score": [0.5,1]`} {
		if !strings.Contains(got, line) {
			t.Errorf("no line %q in\n%s", line, got)
		}
	}
}

// indentedFlat puts each array of indented JSON b that holds no array or
// object on one line, its elements separated by commas alone.
func indentedFlat(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := stringEnd(b, i)
			out = append(out, b[i:end]...)
			i = end - 1
		case '[':
			end, flat := arrayEnd(b, i)
			if !flat {
				out = append(out, '[')
				continue
			}
			for j := i; j < end; j++ {
				switch b[j] {
				case ' ', '\n':
				case '"':
					e := stringEnd(b, j)
					out = append(out, b[j:e]...)
					j = e - 1
				default:
					out = append(out, b[j])
				}
			}
			i = end - 1
		default:
			out = append(out, b[i])
		}
	}
	return out
}

// TestMeanStd checks the summary of repeats against values worked by
// hand: the sample standard deviation, 0 for one value, NaN for none.
func TestMeanStd(t *testing.T) {
	m, s := MeanStd([]float64{1, 2, 3, 4})
	if m != 2.5 || math.Abs(s-math.Sqrt(5.0/3)) > 1e-15 {
		t.Errorf("MeanStd = %v, %v", m, s)
	}
	if _, s := MeanStd([]float64{7}); s != 0 {
		t.Errorf("single run std %v", s)
	}
	if m, s := MeanStd(nil); !math.IsNaN(m) || !math.IsNaN(s) {
		t.Errorf("MeanStd(nil) = %v, %v", m, s)
	}
	mean, std := MeanStdColumns([][]float64{{1, 10}, {2, 20}, {3, 60}})
	if !slices.Equal(mean, []float64{2, 30}) || std[0] != 1 || math.Abs(std[1]-math.Sqrt(700)) > 1e-12 {
		t.Errorf("MeanStdColumns = %v, %v", mean, std)
	}
	if mean, std := MeanStdColumns(nil); mean != nil || std != nil {
		t.Errorf("MeanStdColumns(nil) = %v, %v", mean, std)
	}
}

func TestSpreadOf(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want Spread
	}{
		{[]float64{3}, Spread{3, 3, 3, 3}},
		{[]float64{4, 1, 3}, Spread{1, 3, 4, 8.0 / 3}},
		{[]float64{4, 1, 3, 2}, Spread{1, 2.5, 4, 2.5}},
	} {
		got := NewSpread(tc.in)
		if got.Min != tc.want.Min || got.Median != tc.want.Median || got.Max != tc.want.Max || math.Abs(got.Mean-tc.want.Mean) > 1e-15 {
			t.Errorf("NewSpread(%v) = %+v, want %+v", tc.in, *got, tc.want)
		}
	}
	if NewSpread(nil) != nil {
		t.Error("NewSpread(nil) != nil")
	}
}

// TestReadRefusesForeignJSON checks that JSON which parses but is
// not a covpipe results.json is an error naming the file.
func TestReadRefusesForeignJSON(t *testing.T) {
	dir := t.TempDir()
	for _, body := range []string{`{}`, `{"results": []}`, `{"results": [{}]}`, `{"results": [{"task": "a"}]}`} {
		path := filepath.Join(dir, "results.json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a results.json") {
			t.Errorf("%s: %v", body, err)
		}
	}
}
