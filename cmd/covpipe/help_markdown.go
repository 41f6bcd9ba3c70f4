package main

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/param"
	"github.com/urfave/cli/v2"
)

// helpMarkdownCommand is the hidden command that prints the parts of the
// documentation that covpipe's own tables make: every command's usage,
// description and flags (what --help shows), the task kinds of the
// protocol table and the method types with their declared parameters.
// Each part is a block between the markers <!-- generated:NAME --> and
// <!-- /generated -->, which `go run ./internal/tools/doctables render`
// places in docs/cli.md and docs/experiments.md and whose check fails
// when a doc's block differs, so that the docs cannot drift from the
// flags and the registries.
func helpMarkdownCommand() *cli.Command {
	return oneLineErrors(&cli.Command{
		Name:   "help-markdown",
		Usage:  "print the generated blocks of docs/cli.md and docs/experiments.md",
		Hidden: true,
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return argsError(c, "no arguments")
			}
			return writeReference(c.App.Writer, c.App)
		},
	})
}

// writeReference writes the generated blocks of app's documentation to w.
func writeReference(w io.Writer, app *cli.App) error {
	var b strings.Builder
	block := func(name string, text string) {
		fmt.Fprintf(&b, "<!-- generated:%s -->\n%s<!-- /generated -->\n", name, text)
	}
	cmds := documented(app)
	block("cli.commands", commandsTable(app, cmds))
	for _, cmd := range cmds {
		block("cli."+cmd.Name, commandReference(app, cmd))
	}
	block("experiment.tasks", tasksTable())
	block("experiment.methods", methodsTable())
	for _, name := range method.Names() {
		block("experiment.method."+name, methodReference(name, method.Types()[name]))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// documented returns app's commands that help lists, in its order.
func documented(app *cli.App) []*cli.Command {
	var out []*cli.Command
	for _, cmd := range app.Commands {
		if !cmd.Hidden && cmd.Name != "help" {
			out = append(out, cmd)
		}
	}
	return out
}

// anchor is the fragment of a Markdown heading's link as GitHub makes
// it: lower case, spaces as '-', other punctuation but '-' and '_' gone.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCell escapes text for a cell of a Markdown table.
func mdCell(text string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "\n", " ").Replace(text)
}

func commandsTable(app *cli.App, cmds []*cli.Command) string {
	var b strings.Builder
	b.WriteString("| command | what it does |\n|---|---|\n")
	for _, cmd := range cmds {
		h := app.Name + " " + cmd.Name
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", h, anchor(h), mdCell(cmd.Usage))
	}
	b.WriteString("\nEvery command takes `--help` (`-h`), which prints what its section here says; `" + app.Name + " --version` is `" + app.Name + " version`.\n")
	return b.String()
}

// commandReference is cmd's section: its heading, synopsis, usage,
// description and flags.
func commandReference(app *cli.App, cmd *cli.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s %s\n\n", app.Name, cmd.Name)
	synopsis := app.Name + " " + cmd.Name
	if len(visibleFlags(cmd)) > 0 {
		synopsis += " [options]"
	}
	if cmd.ArgsUsage != "" {
		synopsis += " " + cmd.ArgsUsage
	}
	fmt.Fprintf(&b, "`%s`: %s.\n\n", synopsis, cmd.Usage)
	if cmd.Description != "" {
		fmt.Fprintf(&b, "```text\n%s\n```\n\n", cmd.Description)
	}
	if flags := visibleFlags(cmd); len(flags) > 0 {
		b.WriteString("| flag | type | default | what it sets |\n|---|---|---|---|\n")
		for _, f := range flags {
			b.WriteString(flagRow(f))
		}
	}
	return b.String()
}

// visibleFlags returns cmd's flags but --help.
func visibleFlags(cmd *cli.Command) []cli.DocGenerationFlag {
	var out []cli.DocGenerationFlag
	for _, f := range cmd.Flags {
		df, ok := f.(cli.DocGenerationFlag)
		if !ok || f.Names()[0] == "help" {
			continue
		}
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		out = append(out, df)
	}
	return out
}

// flagRow is f's row of a command's table of flags: its names with the
// placeholder of its value, its type, the default its help states and
// the help without it, as --help prints them.
func flagRow(f cli.DocGenerationFlag) string {
	placeholder, usage := unquoteUsage(f.GetUsage())
	if placeholder == "" && f.TakesValue() {
		placeholder = "value"
	}
	var names []string
	for _, n := range f.Names() {
		s := "--" + n
		if len(n) == 1 {
			s = "-" + n
		}
		if placeholder != "" {
			s += " " + placeholder
		}
		names = append(names, "`"+s+"`")
	}
	// The default is what help appends to the usage: the flag's String,
	// "NAMES\tUSAGE (default: TEXT)", so that a flag type that shows no
	// default (requiredInt, switches) shows none here either.
	def := ""
	if _, shown, ok := strings.Cut(fmt.Sprint(f), "\t"); ok {
		rest := strings.TrimPrefix(shown, usage)
		if t, ok := strings.CutPrefix(rest, " (default: "); ok && rest != shown {
			def = mdCell(strings.TrimSuffix(t, ")"))
		}
	}
	return fmt.Sprintf("| %s | %s | %s | %s |\n", strings.Join(names, ", "), flagType(f), def, mdCell(usage))
}

// unquoteUsage returns the placeholder of a flag's usage, its first
// `quoted` word, and the usage without the quotes, as urfave/cli's help
// shows them.
func unquoteUsage(usage string) (string, string) {
	before, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return "", usage
	}
	name, after, ok := strings.Cut(rest, "`")
	if !ok {
		return "", usage
	}
	return name, before + name + after
}

// flagType names the values f takes.
func flagType(f cli.Flag) string {
	switch f.(type) {
	case *cli.BoolFlag:
		return "switch"
	case *cli.IntFlag, *cli.Int64Flag, requiredInt:
		return "integer"
	case *cli.UintFlag, *cli.Uint64Flag:
		return "integer >= 0"
	case *cli.Float64Flag:
		return "number"
	case *cli.StringSliceFlag:
		return "strings, repeated"
	}
	return "string"
}

func tasksTable() string {
	var b strings.Builder
	b.WriteString("| task kind | a task of the kind holds | regions per image (`data.parts`), method `best` |\n|---|---|---|\n")
	for _, k := range experiment.TaskKinds() {
		parts := "no"
		switch {
		case k.Parts:
			parts = "yes"
		case k.Combines:
			parts = "combines the tasks' results"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s |\n", k.Kind, mdCell(k.Keys), parts)
	}
	return b.String()
}

func methodsTable() string {
	var b strings.Builder
	b.WriteString("| type | what it is | example parameters |\n|---|---|---|\n")
	for _, name := range method.Names() {
		t := method.Types()[name]
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | `%s` |\n", name, anchor(name), mdCell(t.Doc), mdCell(t.Example))
	}
	return b.String()
}

// kindText says what a value of kind k is, for the table of a method's
// parameters.
var kindText = map[param.Kind]string{
	param.Number: "number",
	param.List:   "number or list",
	param.Int:    "integer",
	param.String: "name",
	param.Bool:   "true or false",
}

// methodReference is method type t's section: its heading, description,
// declared parameters and example.
func methodReference(name string, t method.Type) string {
	var b strings.Builder
	r, size := utf8.DecodeRuneInString(t.Doc)
	fmt.Fprintf(&b, "### %s\n\n%c%s.\n\n", name, unicode.ToUpper(r), t.Doc[size:])
	if ps := t.Parameters(); len(ps) > 0 {
		b.WriteString("| key | value | default | what it sets |\n|---|---|---|---|\n")
		for _, p := range ps {
			def := ""
			if p.Default != "" {
				def = mdCell(p.Default)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.Key, kindText[p.Kind], def, mdCell(p.Help))
		}
		b.WriteString("\n")
	}
	example := "- {name: " + name + ", type: " + name
	if params := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t.Example, "{"), "}")); params != "" {
		example += ", " + params
	}
	fmt.Fprintf(&b, "For example `%s}`.\n", example)
	return b.String()
}
