package report

import (
	"slices"
	"strings"

	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/htmlreport"
)

// page is report.html of r: the blocks of summary.md as sections, each
// table keyed as its grid (accuracy, energy, open-set:TASK, cmc:TASK,
// energy-curve:TASK) and the tables of accuracy, energy and CMC
// transposed (a row per method, a column per task and one of run times,
// or per rank), then the
// parameters, the figures figs and the notes, and summary.md's last
// line as the footer.
func page(r *results.Results, figs []htmlreport.Figure) *htmlreport.Page {
	p := &htmlreport.Page{Title: r.Name, Footer: []string{footer(r)}}
	if r.Config != nil && r.Config.Description != "" {
		p.Intro = []string{strings.TrimSpace(r.Config.Description)}
	}
	for _, k := range blocks(r) {
		s := htmlreport.Section{Heading: k.title, Text: []string{k.text}}
		for _, g := range k.grids {
			if g.key == "accuracy" || g.key == "energy" || strings.HasPrefix(g.key, "cmc:") {
				// A row per method, to rank methods by a click on a task
				// or a rank.
				g = g.transposed("method")
			}
			t := g.html()
			if len(k.grids) > 1 {
				t.Caption = "Task " + g.task
			}
			s.Tables = append(s.Tables, t)
		}
		p.Sections = append(p.Sections, s)
	}
	if ps := paramLines(r); len(ps) > 0 {
		p.Sections = append(p.Sections, htmlreport.Section{Heading: "Parameters", List: ps})
	}
	if len(figs) > 0 {
		p.Sections = append(p.Sections, htmlreport.Section{Heading: "Figures", Figures: figs})
	}
	if notes := noteLines(r); len(notes) > 0 {
		p.Sections = append(p.Sections, htmlreport.Section{Heading: "Notes", List: notes})
	}
	return p
}

// html is g as a table of report.html: its rows of totals stay below
// the rows that sort.
func (g grid) html() htmlreport.Table {
	return htmlreport.Table{Key: g.key, Header: g.header, Numeric: g.right, Rows: g.rows, Foot: g.totals}
}

// transposed is g with its rows and columns swapped, totals included,
// corner heading the new first column: a row per column of g, whose
// columns but the first hold numbers.
func (g grid) transposed(corner string) grid {
	all := slices.Concat(g.rows, g.totals)
	t := grid{task: g.task, key: g.key, header: []string{corner}, right: []bool{false}}
	for _, row := range all {
		t.header = append(t.header, row[0])
		t.right = append(t.right, true)
	}
	for j := 1; j < len(g.header); j++ {
		row := []string{g.header[j]}
		for _, r := range all {
			row = append(row, r[j])
		}
		t.rows = append(t.rows, row)
	}
	return t
}
