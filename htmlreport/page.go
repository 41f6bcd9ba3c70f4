// Package htmlreport renders a report as one self-contained HTML page:
// headed sections of paragraphs, lists, tables whose columns sort on a
// click of their header, and figures inlined as PNG data: URIs, with its
// style sheet and its script inline, so that the page opens anywhere
// without a network and fetches nothing (its Content-Security-Policy
// allows images of data: URIs and its own inline style and script only).
// It knows nothing of what is reported: experiment/report and evaluate
// build the Page of a run and of an evaluation.
package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"image/png"
	"io"
)

// Page is a report: a title, paragraphs under it, sections and a
// footer of paragraphs.
type Page struct {
	Title    string
	Intro    []string
	Sections []Section
	Footer   []string
}

// FileName is the name of the page in covpipe's output folders.
const FileName = "report.html"

// Section is a headed part of a Page: its paragraphs, then its tables,
// its list and its figures.
type Section struct {
	Heading string
	Text    []string
	Tables  []Table
	List    []string
	Figures []Figure
}

// Table is a table of text cells: the header, the body's rows, whose
// first cell heads its row, and rows below the body (totals) that
// sorting leaves in place. Numeric says which columns hold numbers:
// they are aligned right and sort by the number their cells begin with,
// cells without one last; other columns sort as text, numbers in it by
// value. Key, when not empty, is the table's data-key attribute, which
// says what it holds to readers of the page's DOM (tests).
type Table struct {
	Key     string
	Caption string
	Header  []string
	Numeric []bool
	Rows    [][]string
	Foot    [][]string
	// Fixed tables do not sort.
	Fixed bool
}

// Figure is a PNG image shown inline under its name.
type Figure struct {
	Name string
	PNG  []byte
}

var (
	//go:embed page.html.tmpl
	pageTemplate string
	//go:embed style.css
	style string
	//go:embed sort.js
	script string
	page   = template.Must(template.New("page").Parse(pageTemplate))
)

// Views of a Page as the template shows it: figures as data: URIs,
// cells knowing their column's alignment.
type (
	figureView struct {
		Name          string
		URI           template.URL
		Width, Height int
	}
	cellView struct {
		Text      string
		Num, Head bool
	}
	tableView struct {
		Key, Caption string
		Fixed        bool
		Header       []cellView
		Rows, Foot   [][]cellView
	}
	sectionView struct {
		Heading    string
		Text, List []string
		Tables     []tableView
		Figures    []figureView
	}
)

// Render writes p as HTML to w. It returns an error for a figure that is
// not a PNG (naming it), a table whose rows are longer than its header,
// and the errors of writing.
func Render(w io.Writer, p *Page) error {
	view := struct {
		*Page
		Sections []sectionView
		CSS      template.CSS
		JS       template.JS
	}{Page: p, CSS: template.CSS(style), JS: template.JS(script)}
	for _, s := range p.Sections {
		v := sectionView{Heading: s.Heading, Text: s.Text, List: s.List}
		for _, t := range s.Tables {
			tv, err := viewTable(t)
			if err != nil {
				return err
			}
			v.Tables = append(v.Tables, tv)
		}
		for _, f := range s.Figures {
			cfg, err := png.DecodeConfig(bytes.NewReader(f.PNG))
			if err != nil {
				return fmt.Errorf("htmlreport: figure %s: not a PNG: %w", f.Name, err)
			}
			// A data: URI of a PNG just decoded, not of anything a reader
			// could pass off as markup.
			uri := template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(f.PNG))
			v.Figures = append(v.Figures, figureView{Name: f.Name, URI: uri, Width: cfg.Width, Height: cfg.Height})
		}
		view.Sections = append(view.Sections, v)
	}
	var b bytes.Buffer
	if err := page.Execute(&b, view); err != nil {
		return fmt.Errorf("htmlreport: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// viewTable lays out t's cells, the first of each row its head.
func viewTable(t Table) (tableView, error) {
	num := func(j int) bool { return j < len(t.Numeric) && t.Numeric[j] }
	v := tableView{Key: t.Key, Caption: t.Caption, Fixed: t.Fixed}
	for j, h := range t.Header {
		v.Header = append(v.Header, cellView{Text: h, Num: num(j), Head: true})
	}
	rows := func(in [][]string) ([][]cellView, error) {
		var out [][]cellView
		for _, row := range in {
			if len(row) > len(t.Header) {
				return nil, fmt.Errorf("htmlreport: table %q: a row of %d cells under %d columns", t.Key, len(row), len(t.Header))
			}
			cells := make([]cellView, len(row))
			for j, c := range row {
				cells[j] = cellView{Text: c, Num: num(j), Head: j == 0}
			}
			out = append(out, cells)
		}
		return out, nil
	}
	var err error
	if v.Rows, err = rows(t.Rows); err != nil {
		return v, err
	}
	v.Foot, err = rows(t.Foot)
	return v, err
}
