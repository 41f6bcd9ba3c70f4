package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/covpipe/covpipe/evaluate"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

// defaultMontage is the number of misclassified images evaluate's
// montage shows by default.
const defaultMontage = 36

func evaluateCommand() *cli.Command {
	return command("evaluate", "INPUT...", "measure a model that covpipe fit saved on labelled images",
		[]cli.Flag{
			modelFlag(),
			outFlag("the evaluation's output `DIR` (required; created if needed)"),
			rejectFlag(),
			&cli.IntFlag{Name: "montage", Value: defaultMontage, Usage: "show at most `N` misclassified images in misclassified.png, the most confident first (0: none)"},
			htmlFlag("write report.html too: the evaluation as one self-contained page (tables that sort on a click, the figures inline)"),
			predictWorkersFlag(),
			whereFlag,
		},
		func(c *cli.Context) error {
			out, err := requiredOut(c, true, "")
			if err != nil {
				return err
			}
			o, err := predictOptions(c, c.NArg() > 0)
			if err != nil {
				return err
			}
			if c.Int("montage") < 0 {
				return fmt.Errorf("evaluate: --montage %d, want >= 0 (0: no montage)", c.Int("montage"))
			}
			return intoFolder(c, out, store.FormatEvaluation, func(f *store.Folder) error {
				a, err := answer(c, o)
				if err != nil {
					return err
				}
				items, err := a.items()
				if err != nil {
					return err
				}
				r, err := evaluate.Evaluate(items, evaluate.Options{Classes: a.m.Classes(), Reject: o.Reject})
				if err != nil {
					return fmt.Errorf("evaluate: %w", err)
				}
				p, err := f.Create(predictionsFile)
				if err != nil {
					return fmt.Errorf("evaluate: %w", err)
				}
				if err := writePredictions(p, a.ps, a.inputs, true, nil); err != nil {
					return fmt.Errorf("evaluate: %w", err)
				}
				dir, specs := c.String("model"), c.Args().Slice()
				doc := evaluate.Document{Version: version.String(), Model: dir, Method: a.m.Method(), Inputs: specs, Report: r}
				title := fmt.Sprintf("%s on %s", filepath.Base(dir), strings.Join(specs, ", "))
				files, err := evaluate.Write(f, doc, items, evaluate.WriteOptions{Title: title, Montage: c.Int("montage"), HTML: c.Bool("html")})
				if err != nil {
					return fmt.Errorf("evaluate: %w", err)
				}
				if err := f.Commit(); err != nil {
					return fmt.Errorf("evaluate: %w", err)
				}
				fmt.Fprintln(c.App.ErrWriter, a.summary(dir))
				if err := r.WriteText(c.App.Writer); err != nil {
					return err
				}
				_, err = fmt.Fprintf(c.App.Writer, "written to %s: %s, %s\n", out, predictionsFile, strings.Join(files, ", "))
				return err
			})
		})
}

// items are the answers to evaluate: each named as predictions.csv
// names its image (with its region when an image gives several
// answers), with its image's file for images, and its true label. It
// returns an error naming the first answer for an unlabelled image.
func (a *answers) items() ([]evaluate.Item, error) {
	type image struct {
		input int
		path  string
	}
	files := map[image]string{} // the file of each image, for images
	for k, l := range a.in.lists {
		for _, it := range l.Items {
			files[image{k, it.Rel}] = it.Path
		}
	}
	perImage := map[image]int{}
	for _, p := range a.ps {
		perImage[image{p.Input, p.Path}]++
	}
	items := make([]evaluate.Item, len(a.ps))
	for i, p := range a.ps {
		key := image{p.Input, p.Path}
		name := string(store.AppendPath(nil, p.Input, a.inputs, p.Path))
		if perImage[key] > 1 {
			name += " " + p.Region.String()
		}
		if p.Truth == "" {
			return nil, fmt.Errorf("evaluate: %s has no label: evaluate measures a model on labelled images (class folders, a manifest's label column, a dataset spec KIND:PATH, or a describe folder of those); covpipe predict labels unlabelled ones", name)
		}
		items[i] = evaluate.Item{Name: name, Image: files[key], Truth: p.Truth, Label: p.Label, Score: p.Score, Confidence: p.Confidence(), Rejected: p.Rejected}
	}
	return items, nil
}
