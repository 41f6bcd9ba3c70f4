package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/dictionary"
	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

// whereFlag is fit's and predict's --where KEY=V1,V2.
var whereFlag = &cli.StringFlag{Name: "where", Usage: "keep only the images whose metadata `KEY=V1,V2,...` has one of the values, e.g. pose=ba,bj,bk for FERET"}

// fitOwnFlags are fit's flags but those of the method parameters
// (fitParams).
func fitOwnFlags() []cli.Flag {
	return []cli.Flag{
		outFlag("the model's output `DIR` (required; created if needed)"),
		&cli.StringFlag{Name: "method", Usage: "the method `NAME`: " + strings.Join(model.Methods(), ", ") + "; with --config, a method of the config, best ones too (required)"},
		&cli.StringFlag{Name: "config", Usage: "take the method's parameters, the extraction options (data:), seed and folds from the experiment `FILE`"},
		&cli.IntFlag{Name: "folds", Usage: "cross-validation folds `N` that choose among candidates", DefaultText: "the config's, else 3"},
		&cli.StringFlag{Name: "folds-by", Usage: "draw group folds of the images' metadata `KEY` (FERET's pose, a re-id camera), each holding out whole groups of every class, instead of stratified folds", DefaultText: "the config's folds_by, else none"},
		&cli.StringFlag{Name: "folds-within", Usage: "draw group folds of the images' metadata `KEY` within each class (a person's tracklets), holding out one group of a class at a time", DefaultText: "the config's folds_within, else none"},
		&cli.Uint64Flag{Name: "seed", Usage: "seed `N` of every random choice: the cross-validation folds, the SVM's calibration, random blocks", DefaultText: "with --config, the folds a run of the config draws on the same images, else 0"},
		&cli.IntFlag{Name: "workers", Usage: "number `N` of goroutines (0: all cores); the model does not depend on it"},
		whereFlag,
		&cli.IntFlag{Name: "atoms", Usage: "the dictionary size `N` of a method that makes one from the training images (codes: its random, k-means or learned atoms)"},
		&cli.StringFlag{Name: "fusion", Usage: "make each image one item of its regions (--regions with several, e.g. whole+grid:3x3:16), their class costs fused by the `RULES` chosen among by cross-validation: sum, normalized, vote, weighted (rsr, logE-SR, stein-svm, nn but airm)", DefaultText: "a config's data.parts, else one answer per region"},
	}
}

// fitParams are fit's flags of method parameters, made from every method
// type's declared parameters (methodParams): a parameter of the
// experiment files' key is the flag of the key with '_' for '-', and a
// list of numbers is comma-separated candidates, chosen by
// cross-validation.
func fitParams() []methodParam {
	var reserved []string
	for _, f := range append(fitOwnFlags(), extractionFlags()...) {
		reserved = append(reserved, f.Names()...)
	}
	return methodParams(append(reserved, cli.HelpFlag.Names()...))
}

func fitCommand() *cli.Command {
	flags := fitOwnFlags()
	for _, p := range fitParams() {
		flags = append(flags, p.cliFlag())
	}
	flags = append(flags, extractionFlags()...)
	return oneLineErrors(command("fit", "INPUT...", "fit a recogniser on labelled images and save it as a model",
		flags, func(c *cli.Context) error {
			out, err := requiredOut(c, c.NArg() > 0, "at least one INPUT")
			if err != nil {
				return err
			}
			o, err := fitOptions(c)
			if err != nil {
				return err
			}
			o.MaxMemory = o.Describe.MaxMemory
			// The output folder is taken before the inputs are read.
			return intoFolder(c, out, model.Format, func(f *store.Folder) error {
				start := time.Now()
				in, err := readInputs(c, "fit")
				if err != nil {
					return err
				}
				if c.IsSet("config") && !c.IsSet("seed") && in.lists != nil {
					// The folds of a run of the config on these images.
					o.Seed = experiment.FoldSeed(o.Seed, in.kept)
				}
				var m *model.Model
				if in.descriptors != nil {
					m, err = model.FitOutput(c.Context, in.descriptors, o)
				} else {
					o.Describe.Reporter = newReporter(c.Context, c.App.ErrWriter, newLogger(c.App.ErrWriter))
					m, err = model.Fit(c.Context, in.lists, o)
				}
				if err != nil {
					return fmt.Errorf("fit: %w", err)
				}
				if err := m.Write(f); err != nil {
					return fmt.Errorf("fit: %w", err)
				}
				for _, note := range m.Notes() {
					newLogger(c.App.ErrWriter).Warn(note)
				}
				chosen := params(m.Chosen())
				if name := m.ChosenMethod(); name != "" {
					chosen = "chose " + name + ": " + chosen
				}
				if p := m.Parts(); p != nil {
					var per []string
					for r, ch := range p.Chosen {
						per = append(per, fmt.Sprintf("region %s: %s", p.Regions[r], params(ch)))
					}
					chosen = fmt.Sprintf("%d regions fused by %s, weights %.3g; %s", len(p.Regions), p.Rule, p.Weights, strings.Join(per, "; "))
				}
				fmt.Fprintf(c.App.Writer, "fitted %s on %dx%d descriptors of %s in %.1f s (%s); model in %s\n",
					m.Method(), m.Dim(), m.Dim(), plural.Of(len(m.Classes()), "class"), time.Since(start).Seconds(), chosen, out)
				return writeCVTables(c.App.Writer, m.CV())
			})
		}))
}

// params formats chosen parameters as "k=v k=v", sorted.
func params(chosen map[string]float64) string {
	var out []string
	for k, v := range chosen {
		out = append(out, fmt.Sprintf("%s=%g", k, v))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// extractionFlags are describe's flags of the extraction options, which
// fit takes as describe does (describeOptions), but for those of
// describe's output (out, shard, skip-bad) and those fit has its own of
// (seed, workers).
func extractionFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range describeCommand().Flags {
		if name := f.Names()[0]; !slices.Contains([]string{"out", "shard", "skip-bad", "seed", "workers"}, name) {
			out = append(out, f)
		}
	}
	return out
}

// fitOptions reads fit's options from its flags, or from --config.
func fitOptions(c *cli.Context) (model.Options, error) {
	name := c.String("method")
	if name == "" {
		return model.Options{}, fmt.Errorf("fit: --method NAME is required (one of %s, or a method of --config)", strings.Join(method.Names(), ", "))
	}
	o := model.Options{Method: name, Folds: c.Int("folds"), Seed: c.Uint64("seed"), Atoms: c.Int("atoms")}
	var err error
	if o.FoldsBy, err = classify.NewFoldGroups(c.String("folds-by"), c.String("folds-within")); err != nil {
		return o, fmt.Errorf("fit: --folds-by, --folds-within: %w", err)
	}
	if f := c.String("fusion"); f != "" {
		o.Fusion = strings.Split(f, ",")
	}
	if o.Workers, err = workersFlag(c); err != nil {
		return o, err
	}
	if path := c.String("config"); path != "" {
		return configOptions(c, path, o)
	}
	if o.Describe, err = describeOptions(c); err != nil {
		return o, errors.New("fit: " + strings.TrimPrefix(err.Error(), "describe: "))
	}
	o.Params, err = paramsFromFlags(c, name, fitParams())
	return o, err
}

// configOptions completes o from the experiment file path: the method
// o.Method names there (its type and parameters), the data section's
// extraction options, its seed and folds (unless --seed or --folds are
// given). Method and extraction flags cannot be given with it.
func configOptions(c *cli.Context, path string, o model.Options) (model.Options, error) {
	var given []string
	for _, p := range fitParams() {
		given = append(given, p.flag)
	}
	for _, f := range extractionFlags() {
		given = append(given, f.Names()[0])
	}
	for _, name := range given {
		if c.IsSet(name) {
			return o, fmt.Errorf("fit: --%s with --config %s: the config gives the method's parameters and the extraction options", name, path)
		}
	}
	plan, err := experiment.Load(path)
	if err != nil {
		return o, err
	}
	if of, oneSE := plan.BestOf(o.Method); of != nil {
		o.Method, o.Params = "best", map[string]any{"rule": "max"}
		if oneSE {
			o.Params["rule"] = "one-se"
		}
		for _, name := range of {
			typ, params, err := methodEntry(plan, path, name)
			if err != nil {
				return o, err
			}
			o.Candidates = append(o.Candidates, model.Candidate{Name: name, Method: typ, Params: params})
		}
	} else if o.Method, o.Params, err = methodEntry(plan, path, o.Method); err != nil {
		return o, err
	}
	ds, err := plan.DescribeOptions()
	if err != nil {
		return o, fmt.Errorf("fit: --config %s: %w", path, err)
	}
	if len(ds) != 1 {
		return o, fmt.Errorf("fit: --config %s: data.ridge lists %d candidates; a model is fitted with one", path, len(ds))
	}
	o.Describe = ds[0]
	fusion, err := plan.Fusion()
	if err != nil {
		return o, fmt.Errorf("fit: --config: %w", err)
	}
	if !c.IsSet("fusion") {
		o.Fusion = fusion
	}
	if o.Describe.MaxMemory, err = maxMemory(c); err != nil {
		return o, err
	}
	if !c.IsSet("seed") {
		o.Seed = plan.Config.Seed
	}
	if !c.IsSet("folds") {
		o.Folds = plan.Config.Folds
	}
	if !c.IsSet("folds-by") && !c.IsSet("folds-within") {
		o.FoldsBy = plan.FoldGroups()
	}
	return o, nil
}

// methodEntry returns the type and parameters of the method name of the
// experiment file path (its plan).
func methodEntry(plan *experiment.Plan, path, name string) (string, map[string]any, error) {
	typ, node, err := plan.MethodEntry(name)
	if err != nil {
		return "", nil, fmt.Errorf("fit: --method: %w", err)
	}
	var params map[string]any
	if node != nil && len(node.Content) > 0 {
		if err := node.Decode(&params); err != nil {
			return "", nil, fmt.Errorf("fit: %s: method %s: %w", path, typ, err)
		}
	}
	return typ, params, nil
}

// inputs are the INPUTs of fit or predict: image lists, or the
// descriptors of describe folders.
type inputs struct {
	lists       []*datasets.List
	descriptors *store.Output // nil for images
	// kept are the positions of the images of lists among all the images
	// of the INPUTs (seen so far), before --where.
	kept []int
	seen int
}

// readInputs opens the INPUTs of the command of c: dataset specs (class
// folders, a CSV manifest, KIND:PATH), filtered by --where, or describe
// output folders, whose descriptors it reads and joins (they must have
// been made with the same options); not both kinds.
func readInputs(c *cli.Context, cmd string) (*inputs, error) {
	var in inputs
	var outs []*store.Output
	for _, spec := range c.Args().Slice() {
		if st, err := os.Stat(spec); err == nil && st.IsDir() {
			if _, err := os.Stat(filepath.Join(spec, store.MetaFile)); err == nil {
				read := store.Read
				if _, err := store.OpenSet(spec, store.FormatDictionary); err == nil {
					read = dictionaryOutput
				}
				out, err := read(spec)
				if err != nil {
					return nil, fmt.Errorf("%s: input %s: %w", cmd, spec, err)
				}
				outs = append(outs, out)
				continue
			}
		}
		l, err := datasets.Open(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: input %s: %w", cmd, spec, err)
		}
		all := l
		if l, err = where(c.String("where"), spec, l); err != nil {
			return nil, fmt.Errorf("%s: %w", cmd, err)
		}
		in.kept = append(in.kept, positions(all, l, in.seen)...)
		in.seen += all.Len()
		in.lists = append(in.lists, l)
	}
	switch {
	case len(outs) > 0 && len(in.lists) > 0:
		return nil, fmt.Errorf("%s: give images or describe folders, not both", cmd)
	case len(outs) > 0 && c.IsSet("where"):
		return nil, fmt.Errorf("%s: --where selects images, not the descriptors of describe folders", cmd)
	case len(outs) > 0:
		var err error
		if in.descriptors, err = joinOutputs(outs, c.Args().Slice()); err != nil {
			return nil, fmt.Errorf("%s: %w", cmd, err)
		}
	}
	return &in, nil
}

// dictionaryOutput reads the dictionary that covpipe learn --class
// learned into the folder path as the descriptors of its class: one row
// per atom, labelled with the class, with the extraction options of the
// descriptors it was learned from. It returns an error for a dictionary
// learned without --class.
func dictionaryOutput(path string) (*store.Output, error) {
	atoms, file, learned, err := dictionary.Read(path)
	if err != nil {
		return nil, err
	}
	if learned.Class == "" || learned.Extraction == nil {
		return nil, fmt.Errorf("%s was learned from every class: learn one dictionary per class (covpipe learn --class NAME)", path)
	}
	out := &store.Output{Dir: path, Meta: *learned.Extraction, Data: atoms.Data(), Rows: make([]store.Row, atoms.Len())}
	if out.Meta.Dim != atoms.Dim() {
		return nil, fmt.Errorf("%s: %d×%d atoms learned from %d×%d descriptors", file, atoms.Dim(), atoms.Dim(), out.Meta.Dim, out.Meta.Dim)
	}
	out.Meta.Inputs = []store.Input{{Root: path}}
	for i := range out.Rows {
		out.Rows[i] = store.Row{Index: i, Path: fmt.Sprintf("atom-%d", i), Label: learned.Class}
	}
	return out, nil
}

// positions returns the positions in all of the items of kept, a
// subset of them in their order, offset by off.
func positions(all, kept *datasets.List, off int) []int {
	at := make(map[string]int, all.Len())
	for i, it := range all.Items {
		at[it.Path] = i
	}
	out := make([]int, len(kept.Items))
	for k, it := range kept.Items {
		out[k] = off + at[it.Path]
	}
	return out
}

// where keeps the items of l (the input spec) whose metadata has one of
// the values of --where KEY=V1,V2; an empty flag keeps all.
func where(flag, spec string, l *datasets.List) (*datasets.List, error) {
	if flag == "" {
		return l, nil
	}
	key, vals, ok := strings.Cut(flag, "=")
	if !ok || key == "" || vals == "" {
		return nil, fmt.Errorf("--where %q: want KEY=V1,V2,..., e.g. pose=ba,bj,bk", flag)
	}
	for _, it := range l.Items {
		if _, has := it.Meta[key]; !has {
			return nil, fmt.Errorf("--where %s: %s has no metadata %q (FERET gives pose, mars: gives camera, tracklet, frame)", flag, it.Path, key)
		}
	}
	kept := l.Filter(datasets.MetaIs(key, strings.Split(vals, ",")...))
	if kept.Len() == 0 {
		return nil, fmt.Errorf("--where %s keeps none of the %d images of %s", flag, l.Len(), spec)
	}
	return kept, nil
}

// joinOutputs joins the descriptors of describe folders (specs) made
// with the same options into one, their inputs one after another, its
// Dir naming them all for messages.
func joinOutputs(outs []*store.Output, specs []string) (*store.Output, error) {
	all := *outs[0]
	all.Dir = strings.Join(specs, ", ")
	all.Rows, all.Data = slices.Clone(all.Rows), slices.Clone(all.Data)
	for k, o := range outs[1:] {
		want := o.Meta
		want.Inputs, want.ItemsSHA256 = all.Meta.Inputs, all.Meta.ItemsSHA256
		if d := all.Meta.Diff(&want); d != "" {
			return nil, fmt.Errorf("%s and %s hold descriptors made otherwise (%s)", specs[0], specs[k+1], d)
		}
		for _, r := range o.Rows {
			r.Index, r.Input = len(all.Rows), r.Input+len(all.Meta.Inputs)
			all.Rows = append(all.Rows, r)
		}
		all.Data = append(all.Data, o.Data...)
		all.Meta.Inputs = append(slices.Clip(all.Meta.Inputs), o.Meta.Inputs...)
	}
	return &all, nil
}
