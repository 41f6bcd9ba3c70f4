package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/classify"
)

// TestScoresJSON checks that a Scores column reads back every value bit
// for bit and encodes and decodes as the plain []float64 of the same
// values does (encoding/json's own encoding the truth), for rounded
// scores of every sign and size, −0, values too large or not rounded for
// the fixed-point form, and the nil and empty columns; and which columns
// take the compact form.
func TestScoresJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rounded := func(v float64) float64 { return math.Round(v*scoreScale) / scoreScale }
	var many []float64
	for range 20000 {
		v := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
		many = append(many, rounded(v))
	}
	cases := []struct {
		name    string
		v       []float64
		compact bool
	}{
		{"nil", nil, false},
		{"empty", []float64{}, true},
		{"rounded", many, true},
		{"signed zeros and edges", []float64{0, math.Copysign(0, -1), 1e-4, -1e-4, 214748.3647, -214748.3647, 0.5, 1}, true},
		{"bytes", []float64{0, -0.0128, 0.0127}, true},
		{"int16s", []float64{0, -3.2768, 3.2767, 0.0128}, true},
		{"too large", []float64{1, 214748.3648}, false},
		{"most negative int32", []float64{-214748.3648}, false},
		{"not rounded", []float64{0.25, 1.0 / 3}, false},
		{"huge", []float64{3e300, -1e-300}, false},
	}
	for _, c := range cases {
		s := NewScores(c.v)
		if got := !s.fixed.isNil(); got != c.compact {
			t.Errorf("%s: compact %v, want %v", c.name, got, c.compact)
		}
		if s.Len() != len(c.v) {
			t.Fatalf("%s: Len %d, want %d", c.name, s.Len(), len(c.v))
		}
		for i, v := range c.v {
			if got := s.At(i); math.Float64bits(got) != math.Float64bits(v) {
				t.Fatalf("%s: At(%d) = %v (%#x), want %v (%#x)", c.name, i, got, math.Float64bits(got), v, math.Float64bits(v))
			}
		}
		got, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: JSON %.200s, want %.200s", c.name, got, want)
		}
		var back Scores
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(back); !bytes.Equal(again, want) || back.IsZero() != (len(c.v) == 0) {
			t.Errorf("%s: decoded and encoded again %.200s, want %.200s", c.name, again, want)
		}
	}
	if _, err := json.Marshal(NewScores([]float64{1, math.NaN()})); err == nil {
		t.Error("NaN score encoded without an error")
	}
}

// TestItemScoresJSON checks that NewItemScores' columns encode as the
// plain columns of its rounding did (kept here as the reference), the
// SCI column left out when no item has one, and read back the same.
func TestItemScoresJSON(t *testing.T) {
	type plain struct {
		Truth       []int     `json:"truth"`
		Label       []int     `json:"label"`
		Score       []float64 `json:"score"`
		Second      []int     `json:"second_label"`
		SecondScore []float64 `json:"second_score"`
		SCI         []float64 `json:"sci,omitempty"`
	}
	reference := func(truth []int, s []classify.ItemScore) plain {
		n := len(s)
		x := plain{Truth: truth, Label: make([]int, n), Score: make([]float64, n), Second: make([]int, n), SecondScore: make([]float64, n)}
		round := func(v float64) float64 { return math.Round(v*1e4) / 1e4 }
		for i, v := range s {
			x.Label[i], x.Score[i], x.Second[i], x.SecondScore[i] = v.Label, round(v.Score), v.Second, round(v.SecondScore)
			if !math.IsNaN(v.SCI) {
				if x.SCI == nil {
					x.SCI = make([]float64, n)
				}
				x.SCI[i] = round(v.SCI)
			}
		}
		return x
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sci := range []bool{false, true} {
		n := 500
		truth := make([]int, n)
		s := make([]classify.ItemScore, n)
		for i := range s {
			truth[i] = rng.IntN(40)
			s[i] = classify.ItemScore{Label: rng.IntN(40), Score: -rng.ExpFloat64() * 10, Second: rng.IntN(41) - 1, SecondScore: rng.NormFloat64() * 1e3, SCI: math.NaN()}
			if sci && i%3 == 0 {
				s[i].SCI = rng.Float64()
			}
		}
		if n > 2 {
			s[1].Score = -1e-9 // rounds to −0
			s[2].SecondScore = 3e6
		}
		got, err := json.Marshal(NewItemScores(truth, s))
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(reference(truth, s))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("sci %v: JSON\n%.300s\nwant\n%.300s", sci, got, want)
		}
		var back ItemScores
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(&back); !bytes.Equal(again, want) {
			t.Errorf("sci %v: decoded and encoded again differs", sci)
		}
	}
	if NewItemScores(nil, nil) != nil {
		t.Error("NewItemScores of no scores is not nil")
	}
}

// TestClasses checks that a Classes column reads back every class and
// encodes and decodes as the plain []int32 does, in each of its widths.
func TestClasses(t *testing.T) {
	for _, c := range []struct {
		v     []int32
		width int // bytes a class
	}{
		{nil, 0}, {[]int32{}, 1}, {[]int32{-1, 0, 127, -128}, 1}, {[]int32{-1, 128}, 2},
		{[]int32{-32768, 32767}, 2}, {[]int32{-1, 32768}, 4}, {[]int32{math.MinInt32, math.MaxInt32}, 4},
	} {
		cl := NewClasses(c.v)
		width := 0
		switch {
		case cl.c.i8 != nil:
			width = 1
		case cl.c.i16 != nil:
			width = 2
		case cl.c.i32 != nil:
			width = 4
		}
		if width != c.width || cl.Len() != len(c.v) {
			t.Errorf("%v: %d bytes a class, %d classes; want %d and %d", c.v, width, cl.Len(), c.width, len(c.v))
		}
		for i, k := range c.v {
			if cl.At(i) != int(k) {
				t.Fatalf("%v: At(%d) = %d", c.v, i, cl.At(i))
			}
		}
		got, _ := json.Marshal(cl)
		want, _ := json.Marshal(c.v)
		if !bytes.Equal(got, want) {
			t.Errorf("%v: JSON %s, want %s", c.v, got, want)
		}
		var back Classes
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(back); !bytes.Equal(again, want) {
			t.Errorf("%v: decoded and encoded again %s", c.v, again)
		}
	}
}

// failWriter fails its writes after n bytes.
type failWriter struct{ n int }

func (w *failWriter) Write(b []byte) (int, error) {
	if w.n < len(b) {
		return 0, errors.New("disk full")
	}
	w.n -= len(b)
	return len(b), nil
}

// TestEncodeTo checks that EncodeTo writes the indented JSON with flat
// arrays (json.MarshalIndent's, flattened, the truth TestLayout uses)
// and returns the writer's error.
func TestEncodeTo(t *testing.T) {
	r := &Results{Name: "t", Results: []Result{
		{Task: "a", Method: "rsr", Runs: []float64{1}, Items: []*ItemScores{NewItemScores([]int{0}, []classify.ItemScore{{Label: 1, Score: 0.5, Second: -1, SCI: math.NaN()}})}},
		{Task: "a", Method: "nn", Runs: []float64{2}},
	}}
	indented, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want := append(indentedFlat(indented), '\n')
	var b bytes.Buffer
	if err := r.EncodeTo(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("EncodeTo:\n%s\nwant:\n%s", b.Bytes(), want)
	}
	for _, n := range []int{0, 10, len(want) - 1} {
		if err := r.EncodeTo(&failWriter{n}); err == nil {
			t.Errorf("EncodeTo a writer failing after %d of %d bytes: no error", n, len(want))
		}
	}
}
