package results

import (
	"encoding/json"
	"math"

	"github.com/covpipe/covpipe/classify"
)

// ItemScores are a method's answers on the test items of one repeat,
// with their scores (classify.ItemScore), as columns in the order of the
// repeat's test items: the true class, the predicted class and its score,
// the class ranked second (−1: none) and its score, and, for SRC methods,
// the code's sparsity concentration index. Classes are indices into
// Result.Classes; scores are rounded to ScoreDecimals decimals, which
// keeps results.json small (about 30 bytes an item). A run holds them
// all until it writes results.json: the classes in the narrowest
// integer type that holds them (Classes), the scores in fixed point
// (Scores), 6 to 20 bytes an item instead of 40.
type ItemScores struct {
	Truth       []int   `json:"truth"`
	Label       Classes `json:"label"`
	Score       Scores  `json:"score"`
	Second      Classes `json:"second_label"`
	SecondScore Scores  `json:"second_score"`
	SCI         Scores  `json:"sci,omitzero"`
}

// ScoreDecimals is the number of decimals of the scores of ItemScores.
const ScoreDecimals = 4

// NewItemScores returns the columns of the scores s of test items whose
// true classes are truth, scores rounded to ScoreDecimals decimals; nil
// without scores. The ItemScores hold truth itself, not a copy.
func NewItemScores(truth []int, s []classify.ItemScore) *ItemScores {
	if s == nil {
		return nil
	}
	n := len(s)
	x := &ItemScores{Truth: truth}
	label, secondLabel := make([]int32, n), make([]int32, n)
	score, second := make([]float64, n), make([]float64, n)
	var sci []float64
	round := func(v float64) float64 {
		return math.Round(v*scoreScale) / scoreScale
	}
	for i, v := range s {
		label[i], score[i], secondLabel[i], second[i] = int32(v.Label), round(v.Score), int32(v.Second), round(v.SecondScore)
		if !math.IsNaN(v.SCI) {
			if sci == nil {
				sci = make([]float64, n)
			}
			sci[i] = round(v.SCI)
		}
	}
	x.Label, x.Second = NewClasses(label), NewClasses(secondLabel)
	x.Score, x.SecondScore, x.SCI = NewScores(score), NewScores(second), NewScores(sci)
	return x
}

// scoreScale is 10^ScoreDecimals, the scale of a score's fixed-point
// form.
const scoreScale = 1e4

// negZero stands for the rounded score −0 in a fixed-point column, whose
// integer 0 would come back as +0 (JSON writes −0 as "-0").
const negZero = math.MinInt32

// Scores is a column of scores rounded to ScoreDecimals decimals, as
// results.json records them: in memory as fixed-point integers k, 2 or 4
// bytes a score (ints) instead of 8, each score the float64 k / 10^ScoreDecimals
// to the last bit, or as the float64s themselves when one of them is
// not such a quotient of an int32 (NaN, ±Inf, a magnitude past
// 2³¹/10^ScoreDecimals ≈ 214748, a value not rounded so). A run keeps every repeat's item scores
// of every method until it writes results.json, where the column is
// encoded as the []float64 of the same values would be. The zero value is
// the nil column (JSON null).
type Scores struct {
	fixed ints      // k with score k / scoreScale, negZero for −0; nil when float is used
	float []float64 // the scores, when they are not all fixed-point
}

// NewScores returns the column of the scores v, each as it is (no
// rounding is done here); nil v gives the nil column.
func NewScores(v []float64) Scores {
	if v == nil {
		return Scores{}
	}
	fixed := make([]int32, len(v))
	for i, x := range v {
		k, ok := fixedPoint(x)
		if !ok {
			return Scores{float: v}
		}
		fixed[i] = k
	}
	return Scores{fixed: newInts(fixed)}
}

// fixedPoint returns k with float64(k) / scoreScale the value x bit for
// bit (negZero for −0), and whether there is one.
func fixedPoint(x float64) (int32, bool) {
	if x == 0 && math.Signbit(x) {
		return negZero, true
	}
	r := math.Round(x * scoreScale)
	if !(r > math.MinInt32 && r <= math.MaxInt32) {
		return 0, false
	}
	k := int32(r)
	if math.Float64bits(float64(k)/scoreScale) != math.Float64bits(x) {
		return 0, false
	}
	return k, true
}

// Len returns the number of scores.
func (s Scores) Len() int {
	if !s.fixed.isNil() {
		return s.fixed.len()
	}
	return len(s.float)
}

// At returns score i.
func (s Scores) At(i int) float64 {
	if s.fixed.isNil() {
		return s.float[i]
	}
	if k := s.fixed.at(i); k != negZero {
		return float64(k) / scoreScale
	}
	return math.Copysign(0, -1)
}

// Float64s returns the scores as a new slice; nil for the nil column.
func (s Scores) Float64s() []float64 {
	if s.fixed.isNil() && s.float == nil {
		return nil
	}
	out := make([]float64, s.Len())
	for i := range out {
		out[i] = s.At(i)
	}
	return out
}

// IsZero reports whether s holds no score, the column that a field
// tagged omitzero leaves out as omitempty leaves out an empty slice.
func (s Scores) IsZero() bool { return s.Len() == 0 }

// MarshalJSON writes the scores as encoding/json writes their []float64.
func (s Scores) MarshalJSON() ([]byte, error) {
	return json.Marshal(s.Float64s())
}

// UnmarshalJSON reads a []float64 (null: the nil column).
func (s *Scores) UnmarshalJSON(b []byte) error {
	var v []float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = NewScores(v)
	return nil
}

// ints is a column of int32s held in the narrowest of int8, int16 and
// int32 that holds every one of them; the zero value is the nil column.
type ints struct {
	i8  []int8
	i16 []int16
	i32 []int32
}

// newInts returns the column of v (nil: the nil column), keeping v
// itself when no narrower type holds it.
func newInts(v []int32) ints {
	if v == nil {
		return ints{}
	}
	lo, hi := int32(0), int32(0)
	for _, k := range v {
		lo, hi = min(lo, k), max(hi, k)
	}
	switch {
	case lo >= math.MinInt8 && hi <= math.MaxInt8:
		c := make([]int8, len(v))
		for i, k := range v {
			c[i] = int8(k)
		}
		return ints{i8: c}
	case lo >= math.MinInt16 && hi <= math.MaxInt16:
		c := make([]int16, len(v))
		for i, k := range v {
			c[i] = int16(k)
		}
		return ints{i16: c}
	}
	return ints{i32: v}
}

func (c ints) isNil() bool { return c.i8 == nil && c.i16 == nil && c.i32 == nil }

func (c ints) len() int { return len(c.i8) + len(c.i16) + len(c.i32) }

func (c ints) at(i int) int32 {
	switch {
	case c.i8 != nil:
		return int32(c.i8[i])
	case c.i16 != nil:
		return int32(c.i16[i])
	}
	return c.i32[i]
}

// Classes is a column of class indices (−1: none) as results.json
// records them, held in the narrowest integer type that holds them all
// (a byte each for up to 128 classes). The zero value is the nil column
// (JSON null).
type Classes struct{ c ints }

// NewClasses returns the column of the classes v, each in the range of
// an int32 (a class index); nil v gives the nil column.
func NewClasses(v []int32) Classes { return Classes{newInts(v)} }

// Len returns the number of classes.
func (c Classes) Len() int { return c.c.len() }

// At returns class i.
func (c Classes) At(i int) int { return int(c.c.at(i)) }

// MarshalJSON writes the classes as encoding/json writes their []int32.
func (c Classes) MarshalJSON() ([]byte, error) {
	if c.c.isNil() {
		return []byte("null"), nil
	}
	v := make([]int32, c.Len())
	for i := range v {
		v[i] = c.c.at(i)
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads a []int32 (null: the nil column).
func (c *Classes) UnmarshalJSON(b []byte) error {
	var v []int32
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = NewClasses(v)
	return nil
}
