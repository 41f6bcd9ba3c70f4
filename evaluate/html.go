package evaluate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/covpipe/covpipe/htmlreport"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/store"
)

// maxMistakeRows bounds the rows of report.html's table of misclassified
// items, the most confident first; evaluation.json lists them all.
const maxMistakeRows = 500

// DecodeDocument decodes b, the evaluation.json at path, checking what
// the report's tables read: a report, and a confusion matrix of a row of
// counts per true class, a count per answer's class. Its errors name
// path.
func DecodeDocument(path string, b []byte) (*Document, error) {
	var d Document
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("evaluate: %s: %w", path, err)
	}
	if d.Report == nil {
		return nil, fmt.Errorf("evaluate: %s holds no evaluation (no items, no accuracy): not the %s of covpipe evaluate", path, DocumentFile)
	}
	c := d.Confusion
	if len(c.Counts) != len(c.True) {
		return nil, fmt.Errorf("evaluate: %s: confusion matrix of %s for %s", path, plural.Of(len(c.Counts), "row"), plural.Of(len(c.True), "true class"))
	}
	for i, row := range c.Counts {
		if len(row) != len(c.Predicted) {
			return nil, fmt.Errorf("evaluate: %s: confusion row %q has %s for %s", path, c.True[i], plural.Of(len(row), "count"), plural.Of(len(c.Predicted), "answered class"))
		}
	}
	return &d, nil
}

// WriteHTML writes report.html (htmlreport.FileName) of d into f: the
// accuracy with its interval and the macro averages, the open-set view
// and the ROC's area, a row per class, the confusion matrix and the
// misclassified items (at most 500, the most confident first) as tables
// that sort, numbers formatted as WriteText writes them, with the
// figures among figures (confusion.png, roc.png, misclassified.png, by
// file name) inline. It returns the errors of rendering and writing.
func WriteHTML(f *store.Folder, d *Document, figures map[string][]byte) error {
	if d.Report == nil {
		return errors.New("evaluate: report.html of a document without a report")
	}
	var b bytes.Buffer
	if err := htmlreport.Render(&b, d.page(figures)); err != nil {
		return fmt.Errorf("evaluate: %w", err)
	}
	return f.WriteFile(htmlreport.FileName, b.Bytes())
}

// page is report.html of d; its tables are keyed summary, open-set,
// classes, confusion and misclassified.
func (d *Document) page(figures map[string][]byte) *htmlreport.Page {
	r := d.Report
	p := &htmlreport.Page{
		Title:  "Evaluation of " + d.Model,
		Intro:  []string{fmt.Sprintf("The model %s (method %s) on %s.", d.Model, d.Method, strings.Join(d.Inputs, ", "))},
		Footer: []string{"covpipe " + d.Version + "; every number is that of " + DocumentFile + "."},
	}
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	interval := func(i Interval) string { return f2(i.Low) + " to " + f2(i.High) }
	rows := [][]string{
		{"items", strconv.Itoa(r.Items)},
		{"answered right", strconv.Itoa(r.Correct)},
		{"accuracy (%)", f2(r.Accuracy)},
		{"95% interval (Wilson, %)", interval(r.CI)},
		{"classes", strconv.Itoa(len(r.Classes))},
		{"macro precision (%)", f2(r.Macro.Precision)},
		{"macro recall (%)", f2(r.Macro.Recall)},
		{"macro F1 (%)", f2(r.Macro.F1)},
	}
	if r.Unknown > 0 {
		rows = append(rows, []string{"items of unknown classes", strconv.Itoa(r.Unknown)}, []string{"unknown classes", strings.Join(r.UnknownClasses, ", ")})
	}
	p.Sections = append(p.Sections, htmlreport.Section{Heading: "Accuracy",
		Text:   []string{"Accuracy with its Wilson 95% interval, and the plain means over the classes of their precision, recall and F1; an answer rejected below the threshold keeps its class here."},
		Tables: []htmlreport.Table{measures("summary", rows)}})
	if o := r.OpenSet; o != nil {
		rows := [][]string{
			{"threshold", strconv.FormatFloat(o.Threshold, 'g', -1, 64)},
			{"accepted", strconv.Itoa(o.Accepted)},
			{"rejected", strconv.Itoa(o.Rejected)},
			{"rejection rate (%)", f2(o.RejectionRate)},
			{"accepted and right", strconv.Itoa(o.AcceptedCorrect)},
			{"accuracy of the accepted (%)", f2(o.AcceptedAccuracy)},
			{"95% interval (Wilson, %)", interval(o.AcceptedCI)},
			{"known items", strconv.Itoa(o.Known)},
			{"unknown items", strconv.Itoa(o.Unknown)},
			{"known accepted (%)", f2(o.KnownAccepted)},
			{"unknown accepted (%)", f2(o.UnknownAccepted)},
			{"identification (%)", f2(o.Identification)},
		}
		p.Sections = append(p.Sections, htmlreport.Section{Heading: "Rejection",
			Text:   []string{"Answers whose confidence is below the threshold are rejected; identification counts the known items accepted and answered right."},
			Tables: []htmlreport.Table{measures("open-set", rows)}})
	}
	if r.ROC != nil {
		s := htmlreport.Section{Heading: "ROC", Text: []string{fmt.Sprintf("The confidence as a test of known against unknown items: AUC %.4f.", r.ROC.AUC)}}
		p.Sections = append(p.Sections, withFigure(s, figures, ROCPlot))
	}
	classes := htmlreport.Table{Key: "classes", Header: []string{"class", "items", "answered", "right", "precision (%)", "recall (%)", "F1 (%)"},
		Numeric: []bool{false, true, true, true, true, true, true}}
	f1 := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	for _, c := range r.Classes {
		classes.Rows = append(classes.Rows, []string{c.Class, strconv.Itoa(c.Support), strconv.Itoa(c.Predicted), strconv.Itoa(c.Correct), f1(c.Precision), f1(c.Recall), f1(c.F1)})
	}
	p.Sections = append(p.Sections, htmlreport.Section{Heading: "Classes", Tables: []htmlreport.Table{classes}})
	conf := htmlreport.Table{Key: "confusion", Header: append([]string{"true \\ answered"}, r.Confusion.Predicted...), Numeric: []bool{false}}
	for range r.Confusion.Predicted {
		conf.Numeric = append(conf.Numeric, true)
	}
	for i, t := range r.Confusion.True {
		row := []string{t}
		for _, n := range r.Confusion.Counts[i] {
			row = append(row, strconv.Itoa(n))
		}
		conf.Rows = append(conf.Rows, row)
	}
	s := htmlreport.Section{Heading: "Confusion matrix", Text: []string{"Items of each true class (rows) by the class answered (columns)."}, Tables: []htmlreport.Table{conf}}
	p.Sections = append(p.Sections, withFigure(s, figures, ConfusionPlot))
	p.Sections = append(p.Sections, withFigure(d.mistakes(), figures, MontagePlot))
	return p
}

// mistakes is the section of the misclassified items.
func (d *Document) mistakes() htmlreport.Section {
	n := len(d.Misclassified)
	text := fmt.Sprintf("%s answered wrong, the most confident first.", plural.Of(n, "item"))
	if n == 0 {
		return htmlreport.Section{Heading: "Misclassified items", Text: []string{text}}
	}
	if n > maxMistakeRows {
		text += fmt.Sprintf(" The first %d; %s lists them all.", maxMistakeRows, DocumentFile)
	}
	t := htmlreport.Table{Key: "misclassified", Header: []string{"item", "true", "answered", "score"}, Numeric: []bool{false, false, false, true}}
	for _, m := range d.Misclassified[:min(n, maxMistakeRows)] {
		score := "–"
		if m.Score != nil {
			score = strconv.FormatFloat(*m.Score, 'f', 3, 64)
		}
		t.Rows = append(t.Rows, []string{m.Name, m.Truth, m.Label, score})
	}
	return htmlreport.Section{Heading: "Misclassified items", Text: []string{text}, Tables: []htmlreport.Table{t}}
}

// measures is a fixed table of named values.
func measures(key string, rows [][]string) htmlreport.Table {
	return htmlreport.Table{Key: key, Header: []string{"measure", "value"}, Numeric: []bool{false, true}, Rows: rows, Fixed: true}
}

// withFigure adds the figure name of figures to s, when there is one.
func withFigure(s htmlreport.Section, figures map[string][]byte, name string) htmlreport.Section {
	if b, ok := figures[name]; ok {
		s.Figures = append(s.Figures, htmlreport.Figure{Name: name, PNG: b})
	}
	return s
}
