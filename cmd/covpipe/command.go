package main

import (
	"embed"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

// helpFiles holds the description of each command that has one,
// help/NAME.txt, which `covpipe NAME --help` prints.
//
//go:embed help/*.txt
var helpFiles embed.FS

// command is the subcommand name of covpipe, taking the arguments
// argsUsage names, with its one-line usage, its flags, its action and the
// description of help/NAME.txt. A flag error is reported on one line.
func command(name, argsUsage, usage string, flags []cli.Flag, action cli.ActionFunc) *cli.Command {
	return oneLineErrors(&cli.Command{
		Name:        name,
		Usage:       usage,
		ArgsUsage:   argsUsage,
		Description: description(name),
		Flags:       flags,
		Action:      action,
	})
}

// description is the text of help/NAME.txt without its final newline.
func description(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("covpipe " + name + " has no help/" + name + ".txt")
	}
	return strings.TrimSuffix(string(b), "\n")
}

// oneLineErrors makes cmd report a flag error on one line, without the
// help text that urfave/cli prints by default, and a value that a
// number flag cannot take as what the flag wants (flagValueError).
func oneLineErrors(cmd *cli.Command) *cli.Command {
	cmd.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return fmt.Errorf("%s: %w (see covpipe %s --help)", cmd.Name, flagValueError(err, cmd.Flags), cmd.Name)
	}
	return cmd
}

// badValue is the error of the standard flag package, under urfave/cli,
// for a value that a flag's parser refuses: `invalid value "4.5" for
// flag -atoms: parse error`.
var badValue = regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -([^:]+): (.*)$`)

// flagValueError returns err, a flag error, saying for a value that a
// number flag of flags refuses what the flag wants, "--atoms 4.5: want a
// whole number", instead of the flag package's "parse error"; any other
// error as it is.
func flagValueError(err error, flags []cli.Flag) error {
	m := badValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	value, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		return err
	}
	var want string
	for _, f := range flags {
		if !slices.Contains(f.Names(), m[2]) {
			continue
		}
		switch f.(type) {
		case *cli.IntFlag, *cli.Int64Flag, requiredInt:
			want = "a whole number"
		case *cli.UintFlag, *cli.Uint64Flag:
			want = "a whole number >= 0"
		case *cli.Float64Flag:
			want = "a number"
		}
	}
	switch {
	case want == "":
		return err
	case m[3] == "value out of range":
		return fmt.Errorf("--%s %s: out of range, want %s of 64 bits", m[2], value, want)
	}
	return fmt.Errorf("--%s %s: want %s", m[2], value, want)
}

// outFlag is the --out DIR (-o DIR) flag with its usage.
func outFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: usage}
}

// requiredOut returns the folder of --out, which the command of c
// requires, after checking its arguments: argsOK says whether they are
// those it takes, which want describes.
func requiredOut(c *cli.Context, argsOK bool, want string) (string, error) {
	out := c.String("out")
	if out == "" {
		return "", fmt.Errorf("%s: --out DIR is required", c.Command.Name)
	}
	if !argsOK {
		return "", argsError(c, want)
	}
	return out, nil
}

// createOut takes the output folder dir of format for the command of c
// (store.CreateFolder), with an error naming the command. Commands take
// it before they compute anything, so that a folder in use fails fast,
// and defer its Abort.
func createOut(c *cli.Context, dir, format string) (*store.Folder, error) {
	f, err := store.CreateFolder(c.Context, dir, format)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Command.Name, err)
	}
	return f, nil
}

// intoFolder takes the output folder dir of format for the command of c
// (createOut) and runs write into it: the folder is aborted unless write
// commits it.
func intoFolder(c *cli.Context, dir, format string, write func(*store.Folder) error) error {
	f, err := createOut(c, dir, format)
	if err != nil {
		return err
	}
	defer f.Abort()
	return write(f)
}

// argsError reports that the command of c was not given the arguments it
// takes, which want describes.
func argsError(c *cli.Context, want string) error {
	return fmt.Errorf("%s: want %s (see covpipe %s --help)", c.Command.Name, want, c.Command.Name)
}

// workersFlag returns --workers of the command of c, refusing a negative
// count (0: all cores) with an error naming the command and the flag.
func workersFlag(c *cli.Context) (int, error) {
	n := c.Int("workers")
	if n < 0 {
		return 0, fmt.Errorf("%s: --workers %d, want >= 0 (0: all cores)", c.Command.Name, n)
	}
	return n, nil
}

// maxMemoryFlag is the --max-memory BYTES flag, default 4GiB, with the
// usage of the command it bounds.
func maxMemoryFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "max-memory", Value: "4GiB", Usage: "bound `BYTES` (e.g. 8GiB, 512MiB) on " + usage}
}

// maxMemory returns --max-memory of the command of c, in bytes
// (describe.ParseMemory), with an error naming the command and the flag.
func maxMemory(c *cli.Context) (int64, error) {
	n, err := describe.ParseMemory(c.String("max-memory"))
	if err != nil {
		return 0, fmt.Errorf("%s: --max-memory: %w", c.Command.Name, err)
	}
	return n, nil
}

// switchFlag is the switch --NAME, off unless given, whose help shows no
// default.
func switchFlag(name, usage string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: name, Usage: usage, DisableDefaultText: true}
}

// requiredInt is an integer flag that a command requires: its help shows
// no default, which would be 0.
type requiredInt struct{ *cli.IntFlag }

func (f requiredInt) String() string {
	return strings.TrimSuffix(f.IntFlag.String(), " (default: 0)")
}
