package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/covpipe/covpipe/internal/atomicfile"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

// predictionsFile is the file predict writes into an output folder.
const predictionsFile = "predictions.csv"

// modelFlag is predict's and evaluate's --model DIR.
func modelFlag() cli.Flag {
	return &cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "the model `DIR` that covpipe fit wrote (required)"}
}

// rejectFlag is predict's and evaluate's --reject T.
func rejectFlag() cli.Flag {
	return &cli.Float64Flag{Name: "reject", Usage: "reject answers whose confidence is below `T`, in [0, 1]: the sparsity concentration index for rsr and logE-SR, the score otherwise"}
}

// predictWorkersFlag is predict's and evaluate's --workers N.
func predictWorkersFlag() cli.Flag {
	return &cli.IntFlag{Name: "workers", Usage: "number `N` of goroutines (0: all cores); the predictions do not depend on it"}
}

func predictCommand() *cli.Command {
	return oneLineErrors(command("predict", "INPUT...", "label images with a model that covpipe fit saved",
		[]cli.Flag{
			modelFlag(),
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write predictions.csv to `FILE` (a name ending in .csv) or into the folder DIR (default: standard output)"},
			rejectFlag(),
			switchFlag("probabilities", "add each class's probability, a column p:CLASS per class after the others (refused for a model whose method gives none: sdalf, hpe, nn with the AIRM metric)"),
			predictWorkersFlag(),
			whereFlag,
		},
		func(c *cli.Context) error {
			o, err := predictOptions(c, c.NArg() > 0)
			if err != nil {
				return err
			}
			o.Probabilities = c.Bool("probabilities")
			// The output is taken before anything is computed: a folder
			// by its lock, a file by its temporary file beside it.
			out := c.String("out")
			file, err := csvOut(out)
			if err != nil {
				return fmt.Errorf("predict: %w", err)
			}
			var dst io.Writer = c.App.Writer
			var commit func() error
			switch {
			case out == "":
			case file:
				f, err := atomicfile.Create(out)
				if err != nil {
					return fmt.Errorf("predict: %w", err)
				}
				defer f.Abort()
				dst, commit = f, f.Commit
			default:
				f, err := createOut(c, out, store.FormatPredictions)
				if err != nil {
					return err
				}
				defer f.Abort()
				p, err := f.Create(predictionsFile)
				if err != nil {
					return fmt.Errorf("predict: %w", err)
				}
				dst, commit = p, f.Commit
				out = filepath.Join(out, predictionsFile)
			}
			a, err := answer(c, o)
			if err != nil {
				return err
			}
			var classes []string
			if o.Probabilities {
				classes = a.m.Classes()
			}
			if err := writePredictions(dst, a.ps, a.inputs, labelled(a.ps), classes); err != nil {
				return fmt.Errorf("predict: %w", err)
			}
			if commit != nil {
				if err := commit(); err != nil {
					return fmt.Errorf("predict: %w", err)
				}
			}
			where := "standard output"
			if out != "" {
				where = out
			}
			fmt.Fprintf(c.App.ErrWriter, "%s; predictions on %s\n", a.summary(c.String("model")), where)
			return nil
		}))
}

// predictOptions checks the flags of predict or evaluate (c): the model
// given, argsOK whether the arguments are those it takes, --reject and
// --workers, and returns the options they give.
func predictOptions(c *cli.Context, argsOK bool) (model.PredictOptions, error) {
	cmd := c.Command.Name
	switch {
	case c.String("model") == "":
		return model.PredictOptions{}, fmt.Errorf("%s: --model DIR is required (a folder that covpipe fit wrote)", cmd)
	case !argsOK:
		return model.PredictOptions{}, argsError(c, "at least one INPUT")
	}
	o := model.PredictOptions{Reject: c.Float64("reject")}
	if err := o.Validate(); err != nil {
		return o, fmt.Errorf("%s: --reject: %w", cmd, err)
	}
	var err error
	o.Workers, err = workersFlag(c)
	return o, err
}

// answers are the model's answers on the INPUTs of predict or evaluate.
type answers struct {
	m  *model.Model
	in *inputs
	ps []model.Prediction
	// inputs is the number of inputs, which the paths of predictions.csv
	// number when there are several.
	inputs int
	secs   float64
}

// answer loads the model of --model and answers with o for the INPUTs
// of the command of c (images, with a progress report, or describe
// folders), with errors naming the command.
func answer(c *cli.Context, o model.PredictOptions) (*answers, error) {
	cmd := c.Command.Name
	m, err := model.Load(c.String("model"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	in, err := readInputs(c, cmd)
	if err != nil {
		return nil, err
	}
	a := &answers{m: m, in: in, inputs: len(in.lists)}
	if in.descriptors != nil && m.FittedOnOutput(in.descriptors) || in.descriptors == nil && m.FittedOn(in.lists) {
		fmt.Fprintf(c.App.ErrWriter, "warning: %s: these are the images the model %s was fitted on (the same files and labels), so its answers say nothing of new images\n", cmd, c.String("model"))
	}
	start := time.Now()
	if in.descriptors != nil {
		a.ps, err = m.PredictOutput(c.Context, in.descriptors, o)
		a.inputs = len(in.descriptors.Meta.Inputs)
	} else {
		o.Reporter = newReporter(c.Context, c.App.ErrWriter, newLogger(c.App.ErrWriter))
		a.ps, err = m.Predict(c.Context, in.lists, o)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	a.secs = time.Since(start).Seconds()
	return a, nil
}

// summary says how many answers the model of the folder dir gave, how
// fast, and how many it rejected.
func (a *answers) summary(dir string) string {
	rejected := 0
	for _, p := range a.ps {
		if p.Rejected {
			rejected++
		}
	}
	return fmt.Sprintf("predicted %s with %s in %.2f s (%.3f ms each), %d rejected",
		plural.Of(len(a.ps), "descriptor"), dir, a.secs, 1000*a.secs/float64(max(1, len(a.ps))), rejected)
}

// csvOut says whether --out out names a CSV file (a name ending in
// .csv) rather than a folder, and refuses a name with another extension
// that is not an existing folder: pred.txt is a file name mistyped, which
// would otherwise become a folder. A trailing / makes any name a folder.
func csvOut(out string) (bool, error) {
	ext := filepath.Ext(out)
	switch {
	case out == "" || strings.HasSuffix(out, "/") || ext == "":
		return false, nil
	case strings.EqualFold(ext, ".csv"):
		return true, nil
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return false, nil
	}
	return false, fmt.Errorf("--out %s: want a FILE ending in .csv or a folder DIR (end it with / for a folder named so)", out)
}

// predictionsColumns are the columns of predictions.csv that every one
// has, in order; then true_label for labelled inputs, then the class
// probabilities.
const predictionsColumns = "path,region,label,score,second_label,second_score,rejected,confidence"

// trueLabelColumn is the column of predictions.csv of the inputs' labels.
const trueLabelColumn = "true_label"

// labelled reports whether any answer of ps is for a labelled image (or
// descriptor): whether predictions.csv has a true_label column.
func labelled(ps []model.Prediction) bool {
	return slices.ContainsFunc(ps, func(p model.Prediction) bool { return p.Truth != "" })
}

// probabilityPrefix prefixes a class's name in the header of its
// probability's column.
const probabilityPrefix = "p:"

// writePredictions writes predictions.csv: one row per prediction, its
// image's path as manifest.csv writes it (with its input's number first
// when there are several inputs), escaped as covpipe's CSV files are, the
// region, the label and its score, the second label and its score,
// whether the answer was rejected, its confidence (what --reject
// compares: the SCI for SRC methods, the score otherwise), with
// truth the image's label (true_label, empty for an unlabelled one), and
// with classes (the model's, in the order of Prediction.Probabilities) a
// column p:CLASS per class, its probability. Scores, confidences and
// probabilities are written in full precision.
func writePredictions(w io.Writer, ps []model.Prediction, inputs int, truth bool, classes []string) error {
	bw := bufio.NewWriter(w)
	b := []byte(predictionsColumns)
	if truth {
		b = append(append(b, ','), trueLabelColumn...)
	}
	for _, c := range classes {
		b = append(b, ',')
		b = store.AppendField(b, probabilityPrefix+c)
	}
	b = append(b, '\n')
	if _, err := bw.Write(b); err != nil {
		return err
	}
	for _, p := range ps {
		b = store.AppendPathField(b[:0], p.Input, inputs, p.Path)
		b = append(b, ',')
		b = append(b, p.Region.String()...)
		b = append(b, ',')
		b = store.AppendField(b, p.Label)
		b = append(b, ',')
		b = strconv.AppendFloat(b, p.Score, 'g', -1, 64)
		b = append(b, ',')
		b = store.AppendField(b, p.Second)
		b = append(b, ',')
		b = strconv.AppendFloat(b, p.SecondScore, 'g', -1, 64)
		b = append(b, ',')
		b = strconv.AppendBool(b, p.Rejected)
		b = append(b, ',')
		b = strconv.AppendFloat(b, p.Confidence(), 'g', -1, 64)
		if truth {
			b = append(b, ',')
			b = store.AppendField(b, p.Truth)
		}
		if classes != nil && len(p.Probabilities) != len(classes) {
			return fmt.Errorf("%s: %d class probabilities for %d classes", p.Path, len(p.Probabilities), len(classes))
		}
		for _, v := range p.Probabilities {
			b = append(b, ',')
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
