package evaluate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/covpipe/covpipe/htmlreport"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/plots"
	"github.com/covpipe/covpipe/store"
	"github.com/disintegration/imaging"
)

// Files of an evaluation's output set beside the caller's
// (predictions.csv) and meta.json.
const (
	DocumentFile  = "evaluation.json"
	ConfusionFile = "confusion.csv"
	ConfusionPlot = "confusion.png"
	ROCPlot       = "roc.png"
	MontagePlot   = "misclassified.png"
)

// Document is evaluation.json: what was evaluated and the Report, with
// every misclassified item.
type Document struct {
	// Version is covpipe's version; Model the model's folder, Method
	// its method type, and Inputs the inputs, as given.
	Version string   `json:"covpipe_version"`
	Model   string   `json:"model"`
	Method  string   `json:"method"`
	Inputs  []string `json:"inputs"`
	*Report
	// Misclassified are the items answered wrong, the most confident
	// first (Misclassified).
	Misclassified []Mistake `json:"misclassified"`
}

// Mistake is an item answered wrong.
type Mistake struct {
	Name  string `json:"name"`
	Truth string `json:"true"`
	Label string `json:"predicted"`
	// Score is the answer's score, null for a method that gives none.
	Score *float64 `json:"score"`
}

// WriteOptions configure Write.
type WriteOptions struct {
	// Title heads the figures (the model and the inputs, say).
	Title string
	// Montage bounds the misclassified images of the montage, the most
	// confident mistakes first; 0 leaves it out.
	Montage int
	// HTML writes report.html too (WriteHTML).
	HTML bool
}

// thumbSide is the side, in pixels, that the montage's images are
// scaled to fit.
const thumbSide = 128

// Write writes d's report, whose items are items, into f: evaluation.json
// (d), confusion.csv (the confusion matrix, a row per true class, a
// column per answer), confusion.png, roc.png when the report has an
// ROC, and misclassified.png, a montage of up to o.Montage misclassified
// items with an image (its thumbnail, true class, answer and score),
// when any, and with o.HTML report.html (WriteHTML). It returns the
// names of the files written, and the errors of writing and of reading
// an image of the montage (naming it).
func Write(f *store.Folder, d Document, items []Item, o WriteOptions) ([]string, error) {
	mistakes := Misclassified(items)
	d.Misclassified = []Mistake{}
	for _, it := range mistakes {
		m := Mistake{Name: it.Name, Truth: it.Truth, Label: it.Label}
		if !math.IsNaN(it.Score) {
			m.Score = &it.Score
		}
		d.Misclassified = append(d.Misclassified, m)
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("evaluate: %s: %w", DocumentFile, err)
	}
	if err := f.WriteFile(DocumentFile, append(b, '\n')); err != nil {
		return nil, err
	}
	files := []string{DocumentFile, ConfusionFile, ConfusionPlot}
	if err := f.WriteFile(ConfusionFile, confusionCSV(d.Confusion)); err != nil {
		return nil, err
	}
	figs := map[string][]byte{}
	figure := func(name string, draw func(w io.Writer) error) error {
		var b bytes.Buffer
		if err := draw(&b); err != nil {
			return err
		}
		figs[name] = b.Bytes()
		return f.WriteFile(name, b.Bytes())
	}
	c := d.Confusion
	if err := figure(ConfusionPlot, func(w io.Writer) error {
		return plots.ConfusionMatrixTo(w, ConfusionPlot, plots.Confusion{Title: o.Title, Rows: c.True, Cols: c.Predicted, Counts: c.Counts})
	}); err != nil {
		return nil, err
	}
	if r := d.ROC; r != nil {
		far := make([]float64, 101)
		tar := make([]float64, len(far))
		for i := range far {
			far[i] = float64(i)
			tar[i] = r.At(far[i])
		}
		title := fmt.Sprintf("%s: known against unknown classes, AUC %.3f", o.Title, r.AUC)
		if err := figure(ROCPlot, func(w io.Writer) error {
			return plots.ROCTo(w, ROCPlot, title, far, []plots.Series{{Name: d.Method, Y: tar}})
		}); err != nil {
			return nil, err
		}
		files = append(files, ROCPlot)
	}
	var tiles []plots.Tile
	for _, it := range mistakes {
		if len(tiles) == o.Montage {
			break
		}
		if it.Image == "" {
			continue
		}
		img, err := thumbnail(it.Image)
		if err != nil {
			return nil, fmt.Errorf("evaluate: montage: %w", err)
		}
		score := "score –"
		if !math.IsNaN(it.Score) {
			score = "score " + strconv.FormatFloat(it.Score, 'f', 3, 64)
		}
		tiles = append(tiles, plots.Tile{Image: img, Caption: []string{it.Name, "true " + it.Truth, "given " + it.Label + ", " + score}})
	}
	if len(tiles) > 0 {
		title := fmt.Sprintf("%s: %d of %d misclassified, most confident first", o.Title, len(tiles), len(mistakes))
		if err := figure(MontagePlot, func(w io.Writer) error { return plots.MontageTo(w, MontagePlot, title, tiles) }); err != nil {
			return nil, err
		}
		files = append(files, MontagePlot)
	}
	if o.HTML {
		if err := WriteHTML(f, &d, figs); err != nil {
			return nil, err
		}
		files = append(files, htmlreport.FileName)
	}
	return files, nil
}

// confusionCSV is confusion.csv: a header of "true" and the answers'
// classes, then a row per true class of its counts, fields escaped as
// covpipe's CSV files are.
func confusionCSV(c Confusion) []byte {
	b := []byte("true")
	for _, p := range c.Predicted {
		b = store.AppendField(append(b, ','), p)
	}
	b = append(b, '\n')
	for i, t := range c.True {
		b = store.AppendField(b, t)
		for _, n := range c.Counts[i] {
			b = strconv.AppendInt(append(b, ','), int64(n), 10)
		}
		b = append(b, '\n')
	}
	return b
}

// thumbnail reads the image at path as covpipe reads images (imageio:
// every format, EXIF orientation) and scales it to fit a square of
// thumbSide pixels, keeping its aspect.
func thumbnail(path string) (image.Image, error) {
	im, err := imageio.Load(path, imageio.Options{Color: true})
	if err != nil {
		return nil, err
	}
	rgba := image.NewNRGBA(image.Rect(0, 0, im.W, im.H))
	level := func(v float64) uint8 { return uint8(math.Round(255 * min(1, max(0, v)))) }
	for i := range im.Gray {
		rgba.SetNRGBA(i%im.W, i/im.W, color.NRGBA{R: level(im.R[i]), G: level(im.G[i]), B: level(im.B[i]), A: 0xff})
	}
	return imaging.Fit(rgba, thumbSide, thumbSide, imaging.Linear), nil
}

// maxClassRows is the number of classes whose rows WriteText writes;
// past it, evaluation.json has them.
const maxClassRows = 30

// WriteText writes the report for a reader: the accuracy with its
// interval, the macro averages, the unknown classes, the open-set view
// and the ROC's area, and a row per class for up to 30 classes.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "accuracy %.2f%% (%d of %s; 95%% interval %.2f to %.2f, Wilson)\n", r.Accuracy, r.Correct, plural.Of(r.Items, "item"), r.CI.Low, r.CI.High)
	fmt.Fprintf(w, "macro averages over %s: precision %.2f%%, recall %.2f%%, F1 %.2f%%\n", plural.Of(len(r.Classes), "class"), r.Macro.Precision, r.Macro.Recall, r.Macro.F1)
	if r.Unknown > 0 {
		fmt.Fprintf(w, "%s of %s the model does not know (%s), all answered wrong\n", plural.Of(r.Unknown, "item"), plural.Of(len(r.UnknownClasses), "class"), strings.Join(r.UnknownClasses[:min(5, len(r.UnknownClasses))], ", ")+ellipsis(len(r.UnknownClasses) > 5))
	}
	if o := r.OpenSet; o != nil {
		fmt.Fprintf(w, "rejection below %g: %d rejected (%.2f%%); accepted %d, %.2f%% of them right (95%% interval %.2f to %.2f)\n",
			o.Threshold, o.Rejected, o.RejectionRate, o.Accepted, o.AcceptedAccuracy, o.AcceptedCI.Low, o.AcceptedCI.High)
		if o.Unknown > 0 {
			fmt.Fprintf(w, "accepted: %.2f%% of the known items, %.2f%% of the unknown; %.2f%% of the known accepted and right\n", o.KnownAccepted, o.UnknownAccepted, o.Identification)
		}
	}
	if r.ROC != nil {
		fmt.Fprintf(w, "ROC of the confidence, known against unknown items: AUC %.4f\n", r.ROC.AUC)
	}
	if len(r.Classes) > maxClassRows {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "class\titems\tanswered\tright\tprecision\trecall\tF1\t\n")
	for _, c := range r.Classes {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t\n", c.Class, c.Support, c.Predicted, c.Correct, c.Precision, c.Recall, c.F1)
	}
	return tw.Flush()
}

// ellipsis is ", ..." when more follows.
func ellipsis(more bool) string {
	if more {
		return ", ..."
	}
	return ""
}
