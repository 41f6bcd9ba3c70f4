package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/covpipe/covpipe/internal/strictyaml"
)

// store reads extracts and benchmark files once each.
type store struct {
	root     string
	manifest *Manifest
	extracts map[string]*Extract
	benches  map[string]*BenchFile
	gen      *generated // covpipe help-markdown's blocks, once read
}

func newStore(root string, m *Manifest) *store {
	return &store{root: root, manifest: m, extracts: map[string]*Extract{}, benches: map[string]*BenchFile{}}
}

func (st *store) extract(id string) (*Extract, error) {
	if e := st.extracts[id]; e != nil {
		return e, nil
	}
	path := ExtractPath(st.root, id)
	e, err := ReadExtract(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run %s has no extract %s (make it: %s run %s)", id, rel(st.root, path), toolCommand, id)
	}
	if err != nil {
		return nil, err
	}
	if e.ID != id {
		return nil, fmt.Errorf("%s holds run %q, not %q", rel(st.root, path), e.ID, id)
	}
	st.extracts[id] = e
	return e, nil
}

func (st *store) bench(id string) (*BenchFile, error) {
	if f := st.benches[id]; f != nil {
		return f, nil
	}
	f, err := readBench(BenchPath(st.root, id))
	if err != nil {
		return nil, fmt.Errorf("bench file: %w", err)
	}
	st.benches[id] = f
	return f, nil
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}

// maxPlainCommands bounds the covpipe commands a reproduce line lists
// before it names the runs for this tool instead.
const maxPlainCommands = 3

// reproduce writes the line under a table that says how to reproduce it.
func (st *store) reproduce(src sources) (string, error) {
	var parts []string
	if len(src.runs) > 0 {
		plain := true
		for _, id := range src.runs {
			r, err := st.manifest.Run(id)
			if err != nil {
				return "", err
			}
			plain = plain && len(r.Overrides) == 0
		}
		if plain && len(src.runs) <= maxPlainCommands {
			for _, id := range src.runs {
				r, _ := st.manifest.Run(id)
				parts = append(parts, "`"+r.Command()+"`")
			}
		} else {
			parts = append(parts, "`"+toolCommand+" run "+strings.Join(src.runs, " ")+"`")
		}
	}
	for _, c := range src.benches {
		parts = append(parts, "`"+c+"`")
	}
	if len(parts) == 0 {
		return "", nil
	}
	return "Reproduce: " + strings.Join(parts, "; ") + ".", nil
}

// Markers around a generated table and an inline value.
var (
	tableStart = regexp.MustCompile(`^<!-- table:([a-z0-9.-]+) -->$`)
	tableEnd   = "<!-- /table -->"
	inlineVal  = regexp.MustCompile(`<!-- value ([^>]*?) -->(.*?)<!-- /value -->`)
)

// docFiles lists the Markdown files that may hold generated tables and
// blocks: docs/*.md and README.md.
func docFiles(root string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(root, "README.md")); err == nil {
		files = append(files, filepath.Join(root, "README.md"))
	}
	sort.Strings(files)
	return files, nil
}

// block is one generated part of a doc: a table, an inline value or a
// block of covpipe help-markdown.
type block struct {
	name      string // the table's name, or the inline value's spec
	line      int
	old, want string
	source    string // what the block is made from, for check's message
}

// renderDoc returns text with every table and inline value rendered
// afresh, and the blocks it rendered.
func (st *store) renderDoc(text string, placed map[string]string, file string) (string, []block, error) {
	lines := strings.SplitAfter(text, "\n")
	var out strings.Builder
	var blocks []block
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if g := generatedStart.FindStringSubmatch(strings.TrimRight(line, "\n")); g != nil {
			end, bl, err := st.renderGenerated(lines, i, g[1], placed, file)
			if err != nil {
				return "", nil, err
			}
			blocks = append(blocks, bl)
			out.WriteString(line)
			out.WriteString(bl.want)
			out.WriteString(lines[end])
			i = end
			continue
		}
		m := tableStart.FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil {
			r, bs, err := st.renderInline(line, i+1)
			if err != nil {
				return "", nil, fmt.Errorf("%s:%d: %w", file, i+1, err)
			}
			out.WriteString(r)
			blocks = append(blocks, bs...)
			continue
		}
		name := m[1]
		t := st.manifest.tables[name]
		if t == nil {
			return "", nil, fmt.Errorf("%s:%d: no table %q in the manifest", file, i+1, name)
		}
		if prev, ok := placed[name]; ok {
			return "", nil, fmt.Errorf("%s:%d: table %s is placed twice (also at %s)", file, i+1, name, prev)
		}
		placed[name] = fmt.Sprintf("%s:%d", file, i+1)
		end := blockEnd(lines, i, tableEnd, tableStart)
		if end < 0 {
			return "", nil, fmt.Errorf("%s:%d: table %s has no %s", file, i+1, name, tableEnd)
		}
		want, err := t.Render(st)
		if err != nil {
			return "", nil, fmt.Errorf("%s:%d: table %s: %w", file, i+1, name, err)
		}
		old := strings.Join(lines[i+1:end], "")
		blocks = append(blocks, block{name: "table " + name, line: i + 1, old: old, want: want, source: "the extracts give"})
		out.WriteString(line)
		out.WriteString(want)
		out.WriteString(lines[end])
		i = end
	}
	return out.String(), blocks, nil
}

// renderGenerated renders the generated block name whose start marker
// is lines[i], placed in file: it returns the index of its end marker
// and the block.
func (st *store) renderGenerated(lines []string, i int, name string, placed map[string]string, file string) (int, block, error) {
	key := "generated:" + name
	if prev, ok := placed[key]; ok {
		return 0, block{}, fmt.Errorf("%s:%d: generated block %s is placed twice (also at %s)", file, i+1, name, prev)
	}
	placed[key] = fmt.Sprintf("%s:%d", file, i+1)
	end := blockEnd(lines, i, generatedEnd, generatedStart)
	if end < 0 {
		return 0, block{}, fmt.Errorf("%s:%d: generated block %s has no %s", file, i+1, name, generatedEnd)
	}
	want, err := st.generatedBlock(name)
	if err != nil {
		return 0, block{}, fmt.Errorf("%s:%d: %w", file, i+1, err)
	}
	old := strings.Join(lines[i+1:end], "")
	return end, block{name: "generated block " + name, line: i + 1, old: old, want: want, source: "`" + generatorCommand + "` prints (the code's flags and registries)"}, nil
}

// renderInline renders the inline values of one line:
// <!-- value run=ID task=T method=M [rank=N] [iter=N] [decimals=N] -->TEXT<!-- /value -->
// (std is left out unless std=true).
func (st *store) renderInline(line string, n int) (string, []block, error) {
	var blocks []block
	var err error
	out := inlineVal.ReplaceAllStringFunc(line, func(s string) string {
		m := inlineVal.FindStringSubmatch(s)
		if err != nil {
			return s
		}
		var c Cell
		if c, err = parseInline(m[1]); err != nil {
			return s
		}
		if err = c.check(st.manifest); err != nil {
			err = fmt.Errorf("value %q: %w", m[1], err)
			return s
		}
		var text string
		if text, err = st.cellText(c, "", nil); err != nil {
			err = fmt.Errorf("value %q: %w", m[1], err)
			return s
		}
		blocks = append(blocks, block{name: "value " + m[1], line: n, old: m[2], want: text, source: "the extracts give"})
		return "<!-- value " + m[1] + " -->" + text + "<!-- /value -->"
	})
	return out, blocks, err
}

// parseInline reads an inline value's key=value pairs as a Cell. Its
// standard deviation is left out unless it says std=true.
func parseInline(spec string) (Cell, error) {
	var b strings.Builder
	std := false
	for _, f := range strings.Fields(spec) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return Cell{}, fmt.Errorf("value %q: %q is not key=value", spec, f)
		}
		if k == "std" {
			std = v == "true"
			continue
		}
		if k == "mean_of" {
			v = "[" + v + "]"
		} else {
			v = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, "%s: %s\n", k, v)
	}
	var c Cell
	if err := strictyaml.Unmarshal([]byte(b.String()), &c); err != nil {
		return Cell{}, fmt.Errorf("value %q: %w", spec, err)
	}
	if !std {
		t := true
		c.NoStd = &t
	}
	return c, nil
}

// renderAll renders every doc. It returns the new texts by file and the
// blocks that changed.
func (st *store) renderAll() (map[string]string, []string, error) {
	files, err := docFiles(st.root)
	if err != nil {
		return nil, nil, err
	}
	placed := map[string]string{}
	texts := map[string]string{}
	var diffs []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		name := rel(st.root, f)
		text, blocks, err := st.renderDoc(string(b), placed, name)
		if err != nil {
			return nil, nil, err
		}
		texts[f] = text
		for _, bl := range blocks {
			if bl.old != bl.want {
				diffs = append(diffs, fmt.Sprintf("%s:%d: %s differs from what %s:\n%s", name, bl.line, bl.name, bl.source, lineDiff(bl.old, bl.want)))
			}
		}
	}
	var unplaced []string
	for _, t := range st.manifest.Tables {
		if _, ok := placed[t.Name]; !ok {
			unplaced = append(unplaced, t.Name)
		}
	}
	if len(unplaced) > 0 {
		return nil, nil, fmt.Errorf("tables in no doc (add <!-- table:NAME --> ... %s): %s", tableEnd, strings.Join(unplaced, ", "))
	}
	if unplaced, err = st.unplacedGenerated(placed); err != nil {
		return nil, nil, err
	}
	if len(unplaced) > 0 {
		return nil, nil, fmt.Errorf("blocks of %s in no doc (add <!-- generated:NAME --> %s where each belongs, docs/cli.md for cli.*, docs/experiments.md for experiment.*, then run %s render): %s", generatorCommand, generatedEnd, toolCommand, strings.Join(unplaced, ", "))
	}
	return texts, diffs, nil
}

// lineDiff shows the lines that differ between old and new ("-" and "+"),
// by a longest common subsequence of lines.
func lineDiff(old, new string) string {
	a := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	b := strings.Split(strings.TrimSuffix(new, "\n"), "\n")
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			out.WriteString("  + " + b[j] + "\n")
			j++
		default:
			out.WriteString("  - " + a[i] + "\n")
			i++
		}
	}
	return out.String()
}
