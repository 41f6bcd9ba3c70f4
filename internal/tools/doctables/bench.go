package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// BenchFile is a committed `go test -bench` output (docs/runs/bench/ID.txt),
// or a file in the same format made by docs/bench/sitting.sh for whole
// processes. Lines "# command: ..." name the commands that produced the
// results below them.
type BenchFile struct {
	Commands []string
	// CPU is the processor that `go test` reported.
	CPU string
	// samples[name] holds, per unit, one value per -count run, with the
	// name as printed (`go test` appends -N, GOMAXPROCS, unless it is 1).
	samples map[string]*benchSamples
}

type benchSamples struct {
	units   map[string][]float64
	command int // index in Commands, -1 for none
}

// errNoBench reports a benchmark or unit that a file does not have.
var errNoBench = errors.New("not in the file")

// ParseBench reads benchmark output. Lines other than benchmark results,
// `go test`'s headers and comments are skipped; a failed run is an error.
func ParseBench(b []byte) (*BenchFile, error) {
	f := &BenchFile{samples: map[string]*benchSamples{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "# command:"):
			f.Commands = append(f.Commands, strings.TrimSpace(strings.TrimPrefix(line, "# command:")))
		case strings.HasPrefix(line, "cpu: "):
			f.CPU = strings.TrimPrefix(line, "cpu: ")
		case strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL"):
			return nil, fmt.Errorf("line %d: a failed run: %s", n, line)
		case strings.HasPrefix(line, "Benchmark"):
			if err := f.addLine(line); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *BenchFile) addLine(line string) error {
	fields := strings.Fields(line)
	if len(fields) == 1 {
		return nil // the name alone, printed before the benchmark's own output
	}
	if len(fields)%2 != 0 {
		return fmt.Errorf("want NAME ITERATIONS and value-unit pairs: %q", line)
	}
	if _, err := strconv.Atoi(fields[1]); err != nil {
		return fmt.Errorf("iterations %q: %w", fields[1], err)
	}
	s := f.samples[fields[0]]
	if s == nil {
		s = &benchSamples{units: map[string][]float64{}}
		f.samples[fields[0]] = s
	}
	s.command = len(f.Commands) - 1
	for i := 2; i < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return fmt.Errorf("value %q: %w", fields[i], err)
		}
		s.units[fields[i+1]] = append(s.units[fields[i+1]], v)
	}
	return nil
}

// Values returns the values of unit that benchmark name reported at cpu
// (GOMAXPROCS; 0: the only count it ran at), and the command that ran it
// ("" when the file names none).
func (f *BenchFile) Values(name string, cpu int, unit string) ([]float64, string, error) {
	var found []string
	for printed := range f.samples {
		rest, ok := strings.CutPrefix(printed, name)
		switch {
		case !ok:
		case rest == "":
			if cpu == 0 || cpu == 1 {
				found = append(found, printed)
			}
		case rest[0] == '-':
			n, err := strconv.Atoi(rest[1:])
			if err == nil && n > 1 && (cpu == 0 || cpu == n) && f.ranAt(f.samples[printed].command, n) {
				found = append(found, printed)
			}
		}
	}
	switch len(found) {
	case 0:
		var names []string
		for n := range f.samples {
			names = append(names, n)
		}
		sort.Strings(names)
		at := ""
		if cpu != 0 {
			at = fmt.Sprintf(" at -cpu %d", cpu)
		}
		return nil, "", fmt.Errorf("%w: no benchmark %s%s (it has %s)", errNoBench, name, at, strings.Join(names, ", "))
	case 1:
	default:
		sort.Strings(found)
		return nil, "", fmt.Errorf("%s ran at several -cpu counts (%s): name one (cpu)", name, strings.Join(found, ", "))
	}
	s := f.samples[found[0]]
	v := s.units[unit]
	if len(v) == 0 {
		var have []string
		for u := range s.units {
			have = append(have, u)
		}
		sort.Strings(have)
		return nil, "", fmt.Errorf("%w: %s reports no %s (it reports %s)", errNoBench, found[0], unit, strings.Join(have, ", "))
	}
	cmd := ""
	if s.command >= 0 {
		cmd = f.Commands[s.command]
	}
	return v, cmd, nil
}

// ranAt says whether command i may have run at GOMAXPROCS n: it names n
// in its -cpu flag, or it gives none (or is unknown).
func (f *BenchFile) ranAt(i, n int) bool {
	if i < 0 {
		return true
	}
	fields := strings.Fields(f.Commands[i])
	for j, w := range fields {
		list, ok := strings.CutPrefix(w, "-cpu=")
		if !ok && w == "-cpu" && j+1 < len(fields) {
			list, ok = fields[j+1], true
		}
		if ok {
			return slices.Contains(strings.Split(strings.Trim(list, "'"), ","), strconv.Itoa(n))
		}
	}
	return true
}

// BenchPath is where bench file id lives.
func BenchPath(root, id string) string {
	return filepath.Join(root, "docs", "runs", "bench", id+".txt")
}

func readBench(path string) (*BenchFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := ParseBench(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// benchText renders a bench cell and returns the command behind it.
func (st *store) benchText(c Cell) (string, string, error) {
	f, err := st.bench(c.Bench)
	if err != nil {
		return "", "", err
	}
	name := c.Benchmark
	if c.Sub != "" {
		name += "/" + c.Sub
	}
	unit := c.Unit
	if unit == "" {
		unit = "ns/op"
	}
	v, cmd, err := f.Values(name, c.CPU, unit)
	if err != nil {
		return "", "", fmt.Errorf("bench %s: %w", c.Bench, err)
	}
	v = slices.Clone(v)
	sort.Float64s(v)
	var lo, hi float64
	switch c.Stat {
	case "", "range":
		lo, hi = v[0], v[len(v)-1]
	case "median":
		lo = v[len(v)/2]
		if len(v)%2 == 0 {
			lo = (v[len(v)/2-1] + lo) / 2
		}
		hi = lo
	case "min":
		lo, hi = v[0], v[0]
	}
	text := formatQuantity(lo, hi, unit)
	if c.NoUnit != nil && *c.NoUnit {
		text, _, _ = strings.Cut(text, " ")
	}
	return text, cmd, nil
}

// formatQuantity writes lo–hi (or one value when they print alike) with
// three significant digits in a unit suited to the size: ns/op and other
// units in ns (cpu-ns/op, ns/entry) as ns, µs, ms or s; …-ms/op as ms or
// s; …-s as s; B/op and peak-KB as kB, MB or GB; others as the number and
// the unit.
func formatQuantity(lo, hi float64, unit string) string {
	scale, suffix := 1.0, " "+unit
	switch {
	case strings.HasPrefix(unit, "ns/") || strings.Contains(unit, "-ns/"):
		scale, suffix = timeScale(hi * 1e-9)
		scale *= 1e-9
	case strings.HasSuffix(unit, "-ms/op"):
		scale, suffix = timeScale(hi * 1e-3)
		scale *= 1e-3
	case strings.HasSuffix(unit, "-s"):
		suffix = " s"
	case unit == "B/op":
		scale, suffix = byteScale(hi)
	case unit == "peak-KB":
		scale, suffix = byteScale(hi * 1024)
		scale *= 1024
	case unit == "allocs/op":
		suffix = " allocs"
	}
	a, b := lo*scale, hi*scale
	d := sigDecimals(b)
	sa, sb := group(a, d), group(b, d)
	if sa == sb {
		return sb + suffix
	}
	return sa + "–" + sb + suffix
}

func timeScale(seconds float64) (float64, string) {
	switch {
	case seconds >= 1:
		return 1, " s"
	case seconds >= 1e-3:
		return 1e3, " ms"
	case seconds >= 1e-6:
		return 1e6, " µs"
	}
	return 1e9, " ns"
}

func byteScale(bytes float64) (float64, string) {
	switch {
	case bytes >= 1e9:
		return 1e-9, " GB"
	case bytes >= 1e6:
		return 1e-6, " MB"
	case bytes >= 1e3:
		return 1e-3, " kB"
	}
	return 1, " B"
}

// sigDecimals returns the decimals that give x three significant digits
// (none at 100 and above).
func sigDecimals(x float64) int {
	x = math.Abs(x)
	if x == 0 || x >= 100 {
		return 0
	}
	d := 2 - int(math.Floor(math.Log10(x)))
	return min(d, 9)
}

// group writes x with d decimals and thousands separated by commas.
func group(x float64, d int) string {
	s := strconv.FormatFloat(x, 'f', d, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 && len(intPart) > 3 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if neg {
		out = "-" + out
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}
