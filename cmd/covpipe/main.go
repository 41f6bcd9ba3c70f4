// Command covpipe turns images into region covariance descriptors and
// classifies SPD matrices by Riemannian sparse representation with the
// Stein kernel (Harandi et al., ECCV 2012). It is a thin command line over
// the covpipe packages; run `covpipe help` for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/covpipe/covpipe/internal/gctune"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

func main() {
	// The handler is installed before anything else. The first SIGINT or
	// SIGTERM (which Slurm, Kubernetes and kill(1) send to stop a job)
	// cancels the command's context: the command stops, removes its
	// temporary files, leaves its output folder's previous set whole and
	// exits with 128 + the signal's number (130, 143) after printing
	// "covpipe: interrupted". A second signal exits at once with that
	// status, after removing the process's temporary files.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	ctx, cancel := context.WithCancelCause(context.Background())
	go handleSignals(sigs, cancel, store.RemoveTempFiles, os.Exit, os.Stderr)
	tuneGC(os.Getenv)
	stopPeak := startPeakProfile(os.Getenv, os.Stderr)
	err := run(ctx, os.Args, os.Stdout, os.Stderr)
	stopPeak()
	os.Exit(exitCode(ctx, err, os.Stderr))
}

// gcPolicy is the collector's heap growth that covpipe runs with unless
// GOGC is set: 25% of the live heap, but at least 32 MiB. covpipe's large
// heaps are mostly long-lived arrays of floats (descriptors, image
// planes, kernel blocks) that hold no pointers and cost the collector
// little to mark, so 25% growth bounds their peak at about 1.25× the live
// data instead of Go's 2× (reid.yaml: about 370 MB against 560 MB) at no
// measurable cost in time; the floor spares small runs a collection every
// megabyte or two (the synthetic protocol: 13% of its wall time at a
// fixed GOGC=25). docs/benchmarks.md, "The collector".
func gcPolicy() gctune.Policy { return gctune.Policy{Percent: 25, Floor: 32 << 20} }

// tuneGC runs gcPolicy for the process unless the environment getenv
// names a growth (GOGC); it returns the function that stops it.
func tuneGC(getenv func(string) string) (stop func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	return gctune.Start(gcPolicy())
}

// handleSignals cancels the command's context on the first signal of
// sigs, with the interruption as its cause, and on the second calls
// cleanup (which removes the process's temporary files) and exit with
// the status of that signal.
func handleSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc, cleanup func(), exit func(int), stderr io.Writer) {
	cancel(interruption{<-sigs})
	second := <-sigs
	cleanup()
	fmt.Fprintf(stderr, "covpipe: interrupted again (%s): stopped at once\n", signalName(second))
	exit(exitStatus(second))
}

// exitCode reports how the command that ran with ctx ended with err and
// returns covpipe's exit status: 0 on success; for a command stopped by
// a signal, "covpipe: interrupted" and 128 + the signal's number; else
// the error, on one line, and 1.
func exitCode(ctx context.Context, err error, stderr io.Writer) int {
	var stop interruption
	switch {
	case err == nil:
		return 0
	case errors.As(context.Cause(ctx), &stop):
		fmt.Fprintf(stderr, "covpipe: interrupted (%s)\n", signalName(stop.sig))
		return exitStatus(stop.sig)
	}
	fmt.Fprintln(stderr, "covpipe: "+oneLine(err))
	return 1
}

// interruption is the cause of the cancellation of covpipe's context: a
// stop signal.
type interruption struct{ sig os.Signal }

func (i interruption) Error() string { return "interrupted (" + signalName(i.sig) + ")" }

// run executes the command line args, writing results to stdout and
// progress, warnings and help to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	app := newApp(stdout, stderr)
	return app.RunContext(ctx, interspersed(args, app.Commands))
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:  "covpipe",
		Usage: "region covariance descriptors and Stein-kernel sparse coding of SPD matrices",
		Description: "covpipe reproduces Harandi, Sanderson, Hartley and Lovell, \"Sparse Coding and Dictionary\n" +
			"Learning for Symmetric Positive Definite Matrices: A Kernel Approach\", ECCV 2012.\n\n" +
			"Examples:\n" +
			"   covpipe run configs/synthetic.yaml --quick         Table 1 of the paper on 10 repeats\n" +
			"   covpipe run configs/synthetic.yaml                 Table 1 on the paper's 100 repeats\n" +
			"   covpipe run configs/feret.yaml --data ../shared/datasets\n" +
			"   covpipe describe --features reid --resize 32x64 --out desc mars:../shared/datasets/mini-mars\n" +
			"   covpipe learn --atoms 64 --init kmeans --out dict desc\n" +
			"   covpipe encode --dict dict --out codes desc\n" +
			"   covpipe fit --config configs/feret.yaml --method rsr --where pose=ba,bj,bk --out model feret:../shared/datasets/feret-b-32\n" +
			"   covpipe predict --model model --out predictions.csv photos/\n" +
			"   covpipe evaluate --model model --out eval --where pose=bg,bf,be,bd feret:../shared/datasets/feret-b-32\n" +
			"   covpipe report out/reid\n" +
			"   covpipe version",
		Writer:    stdout,
		ErrWriter: stderr,
		// --version prints what `covpipe version` prints.
		HideVersion: true,
		Flags:       []cli.Flag{&cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the covpipe version", DisableDefaultText: true}},
		Action: func(c *cli.Context) error {
			if c.Bool("version") {
				return printVersion(c)
			}
			if c.NArg() > 0 {
				return fmt.Errorf("no command %q (see covpipe help)", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		Commands: []*cli.Command{
			runCommand(),
			describeCommand(),
			mergeCommand(),
			fitCommand(),
			predictCommand(),
			evaluateCommand(),
			inspectCommand(),
			learnCommand(),
			encodeCommand(),
			reportCommand(),
			versionCommand(),
			helpMarkdownCommand(),
		},
		// Errors are printed once, on one line, by main.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return fmt.Errorf("%w (see covpipe help)", err)
		},
	}
}

// interspersed moves each command's flags before its positional arguments,
// so that `covpipe run CONFIG --out DIR` works: the standard flag package,
// under urfave/cli v2, stops at the first positional argument. Tokens after
// "--" are left alone.
func interspersed(args []string, cmds []*cli.Command) []string {
	if len(args) < 2 {
		return args
	}
	var cmd *cli.Command
	at := -1
	for i := 1; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			continue
		}
		for _, c := range cmds {
			if c.HasName(args[i]) {
				cmd, at = c, i
			}
		}
		break
	}
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, pos []string
	rest := args[at+1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		if n, _, hasValue := strings.Cut(name, "="); !hasValue && takesValue[n] && i+1 < len(rest) {
			flags = append(flags, rest[i+1])
			i++
		}
	}
	out := append([]string{}, args[:at+1]...)
	out = append(out, flags...)
	return append(out, pos...)
}

// oneLine flattens an error message for the one-line error report.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}
