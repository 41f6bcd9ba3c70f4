package main

import (
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/method"
	"go.yaml.in/yaml/v3"
)

// referenceBlocks runs covpipe help-markdown and returns its blocks by
// name.
func referenceBlocks(t *testing.T) map[string]string {
	t.Helper()
	out, _, err := runCLI(t, "help-markdown")
	if err != nil {
		t.Fatalf("help-markdown: %v", err)
	}
	blocks := map[string]string{}
	for _, part := range strings.Split(out, "<!-- /generated -->\n") {
		if part == "" {
			continue
		}
		head, body, ok := strings.Cut(part, "\n")
		name, found := strings.CutPrefix(head, "<!-- generated:")
		name, closed := strings.CutSuffix(name, " -->")
		if !ok || !found || !closed {
			t.Fatalf("help-markdown: a block starts with %q", head)
		}
		if _, dup := blocks[name]; dup {
			t.Fatalf("help-markdown: block %s twice", name)
		}
		blocks[name] = body
	}
	return blocks
}

// cells splits a Markdown table row into its cells, undoing the escapes
// of mdCell.
func cells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(row), "|"), "|")
	var out []string
	var b strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && (row[i+1] == '|' || row[i+1] == '*'):
			b.WriteByte(row[i+1])
			i++
		case row[i] == '|':
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(row[i])
		}
	}
	return append(out, strings.TrimSpace(b.String()))
}

// helpLine is a flag's line of --help: its names, then its usage and the
// default help states.
var helpLine = regexp.MustCompile(`^ {3}(-\S.*?) {2,}(\S.*)$`)

// TestHelpMarkdownFlags checks each command's block against what its
// --help prints, which urfave/cli renders on its own: a row for every
// flag but --help, with the flag's names and placeholders, its usage,
// and the default that help states, and no other row.
func TestHelpMarkdownFlags(t *testing.T) {
	blocks := referenceBlocks(t)
	cmds := documented(newApp(io.Discard, io.Discard))
	if len(cmds) < 10 {
		t.Fatalf("%d commands documented", len(cmds))
	}
	rows := 0
	for _, cmd := range cmds {
		t.Run(cmd.Name, func(t *testing.T) {
			block, ok := blocks["cli."+cmd.Name]
			if !ok {
				t.Fatalf("no block cli.%s", cmd.Name)
			}
			if !strings.HasPrefix(block, "## covpipe "+cmd.Name+"\n") || !strings.Contains(block, cmd.Usage) {
				t.Errorf("the block does not start with the command's heading and usage:\n%s", block)
			}
			help, _, err := runCLI(t, cmd.Name, "--help")
			if err != nil {
				t.Fatal(err)
			}
			_, options, _ := strings.Cut(help, "OPTIONS:\n")
			var want []string
			for _, line := range strings.Split(options, "\n") {
				if m := helpLine.FindStringSubmatch(line); m != nil && m[1] != "--help, -h" {
					want = append(want, m[1]+" | "+m[2])
				}
			}
			var got []string
			for _, line := range strings.Split(block, "\n") {
				c := cells(line)
				if !strings.HasPrefix(line, "| `-") || len(c) != 4 {
					continue
				}
				shown := c[3]
				if c[2] != "" {
					shown += " (default: " + c[2] + ")"
				}
				got = append(got, strings.ReplaceAll(c[0], "`", "")+" | "+shown)
			}
			rows += len(got)
			if !slices.Equal(got, want) {
				t.Errorf("the block's flags:\n%s\nwant what --help prints:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
	if rows < 50 {
		t.Errorf("%d flags in all, want the commands' dozens", rows)
	}
	if _, ok := blocks["cli.help-markdown"]; ok {
		t.Error("the hidden command help-markdown documents itself")
	}
}

// TestHelpMarkdownMethods checks that every method type has a block, a
// row of the table of methods, a row per declared parameter, and an
// example that its constructor accepts as an entry of an experiment file.
func TestHelpMarkdownMethods(t *testing.T) {
	blocks := referenceBlocks(t)
	example := regexp.MustCompile("For example `(- \\{.*\\})`\\.")
	for _, name := range method.Names() {
		typ := method.Types()[name]
		block := blocks["experiment.method."+name]
		if !strings.HasPrefix(block, "### "+name+"\n") {
			t.Errorf("%s: block %q", name, block)
			continue
		}
		if !strings.Contains(blocks["experiment.methods"], "| [`"+name+"`](#"+anchor(name)+") |") {
			t.Errorf("%s: no row in the table of methods", name)
		}
		for _, p := range typ.Parameters() {
			if !strings.Contains(block, "| `"+p.Key+"` |") {
				t.Errorf("%s: no row for parameter %s", name, p.Key)
			}
		}
		m := example.FindStringSubmatch(block)
		if m == nil {
			t.Errorf("%s: no example in\n%s", name, block)
			continue
		}
		var entries []yaml.Node
		if err := yaml.Unmarshal([]byte(m[1]), &entries); err != nil || len(entries) != 1 {
			t.Errorf("%s: example %s: %v", name, m[1], err)
			continue
		}
		params := entries[0]
		var kept []*yaml.Node
		for i := 0; i+1 < len(params.Content); i += 2 {
			k, v := params.Content[i].Value, params.Content[i+1].Value
			if (k == "name" || k == "type") && v != name {
				t.Errorf("%s: example %s names %s", name, m[1], v)
			}
			if k != "name" && k != "type" {
				kept = append(kept, params.Content[i], params.Content[i+1])
			}
		}
		params.Content = kept
		if _, err := typ.New(&params); err != nil {
			t.Errorf("%s: example %s: %v", name, m[1], err)
		}
	}
}

// TestHelpMarkdownTasks checks that the table of task kinds has a row per
// kind of the protocol table, in its order.
func TestHelpMarkdownTasks(t *testing.T) {
	table := referenceBlocks(t)["experiment.tasks"]
	at := 0
	for _, k := range experiment.TaskKinds() {
		i := strings.Index(table[at:], "\n| "+k.Kind+" | `")
		if i < 0 {
			t.Fatalf("no row for task kind %s after byte %d of\n%s", k.Kind, at, table)
		}
		at += i + 1
	}
	if len(experiment.TaskKinds()) < 10 {
		t.Errorf("%d task kinds", len(experiment.TaskKinds()))
	}
}

func TestAnchor(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"covpipe run", "covpipe-run"},
		{"logE-SR", "loge-sr"},
		{"tangent-space", "tangent-space"},
		{"Ridge, estimator and normalisation", "ridge-estimator-and-normalisation"},
		{"stein_svm (v2)", "stein_svm-v2"},
	} {
		if got := anchor(tc.heading); got != tc.want {
			t.Errorf("anchor(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}
