package main

import (
	"strconv"
	"strings"
	"testing"
)

// fakeCovpipe is a covpipe command whose help-markdown prints the blocks
// BLOCKS, for a fixture repository.
const fakeCovpipe = `package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] != "help-markdown" {
		fmt.Fprintln(os.Stderr, "want help-markdown")
		os.Exit(1)
	}
	fmt.Print(BLOCKS)
}
`

// generatedFixture writes a repository whose covpipe prints the blocks
// text and whose docs/cli.md is doc.
func generatedFixture(t *testing.T, text, doc string) string {
	t.Helper()
	root := fixture(t)
	write(t, root, "go.mod", "module example\n\ngo 1.22\n")
	setGenerated(t, root, text)
	write(t, root, "docs/cli.md", doc)
	return root
}

func setGenerated(t *testing.T, root, text string) {
	t.Helper()
	write(t, root, "cmd/covpipe/main.go", strings.Replace(fakeCovpipe, "BLOCKS", strconv.Quote(text), 1))
}

const (
	twoBlocks = "<!-- generated:cli.run -->\n## covpipe run\n\n| flag | usage |\n|---|---|\n| `--out DIR` | output DIR |\n<!-- /generated -->\n" +
		"<!-- generated:experiment.method.rsr -->\n### rsr\n<!-- /generated -->\n"
	cliDoc = "# The command line\n\nProse.\n\n<!-- generated:cli.run -->\n<!-- /generated -->\n\nMore prose.\n\n<!-- generated:experiment.method.rsr -->\nstale\n<!-- /generated -->\n"
)

// TestGeneratedBlocks checks that render places the blocks that the
// repository's covpipe help-markdown prints between the docs' markers,
// leaving the prose alone, and that check then passes; and that check
// fails, naming the block and the command to run, when the code's output
// changes (a flag's usage) or a block is edited by hand.
func TestGeneratedBlocks(t *testing.T) {
	root := generatedFixture(t, twoBlocks, cliDoc)
	if out, err := doctables(t, root, "render"); err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	want := "# The command line\n\nProse.\n\n<!-- generated:cli.run -->\n## covpipe run\n\n| flag | usage |\n|---|---|\n| `--out DIR` | output DIR |\n<!-- /generated -->\n\nMore prose.\n\n" +
		"<!-- generated:experiment.method.rsr -->\n### rsr\n<!-- /generated -->\n"
	if got := read(t, root, "docs/cli.md"); got != want {
		t.Fatalf("rendered doc:\n%s\nwant:\n%s", got, want)
	}
	if out, err := doctables(t, root, "check"); err != nil {
		t.Fatalf("check after render: %v\n%s", err, out)
	}

	setGenerated(t, root, strings.Replace(twoBlocks, "output DIR", "the output DIR", 1))
	out, err := doctables(t, root, "check")
	if err == nil {
		t.Fatal("check passed after a flag's usage changed")
	}
	for _, s := range []string{"docs/cli.md:5: generated block cli.run differs", "  - | `--out DIR` | output DIR |", "  + | `--out DIR` | the output DIR |", "go run ./internal/tools/doctables render"} {
		if !strings.Contains(out+err.Error(), s) {
			t.Errorf("check said %q (%v), want it to say %q", out, err, s)
		}
	}
	if out, err := doctables(t, root, "render"); err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	if out, err := doctables(t, root, "check"); err != nil {
		t.Fatalf("check after render: %v\n%s", err, out)
	}

	doc := read(t, root, "docs/cli.md")
	write(t, root, "docs/cli.md", strings.Replace(doc, "### rsr", "### RSR", 1))
	if out, err := doctables(t, root, "check"); err == nil || !strings.Contains(out, "generated block experiment.method.rsr differs") {
		t.Errorf("check after a hand edit: %v\n%s", err, out)
	}
}

// TestGeneratedBlocksPlaced checks that every block must be in a doc,
// once, and that a doc's marker must name a block.
func TestGeneratedBlocksPlaced(t *testing.T) {
	for _, tc := range []struct {
		name, text, doc, want string
	}{
		{"a block in no doc", twoBlocks + "<!-- generated:cli.report -->\n## covpipe report\n<!-- /generated -->\n", cliDoc,
			"in no doc (add <!-- generated:NAME --> <!-- /generated --> where each belongs"},
		{"an unknown block", twoBlocks, cliDoc + "<!-- generated:cli.nothing -->\n<!-- /generated -->\n",
			"docs/cli.md:13: go run ./cmd/covpipe help-markdown prints no block cli.nothing"},
		{"a block placed twice", twoBlocks, cliDoc + "<!-- generated:cli.run -->\n<!-- /generated -->\n",
			"generated block cli.run is placed twice (also at docs/cli.md:5)"},
		{"no end marker", twoBlocks, strings.Replace(cliDoc, "<!-- /generated -->\n\nMore", "\nMore", 1),
			"docs/cli.md:5: generated block cli.run has no <!-- /generated -->"},
		{"output outside blocks", "stray\n" + twoBlocks, cliDoc, `line 1: "stray" is outside any block`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := generatedFixture(t, tc.text, tc.doc)
			out, err := doctables(t, root, "render")
			if err == nil || !strings.Contains(out+err.Error(), tc.want) {
				t.Errorf("render: %v\n%s\nwant an error saying %q", err, out, tc.want)
			}
		})
	}
}
