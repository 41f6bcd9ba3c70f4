package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Generated blocks are the parts of the docs that covpipe makes from its
// own tables: every command's usage, description and flags (docs/cli.md),
// the task kinds and the method types with their declared parameters
// (docs/experiments.md). covpipe's hidden command help-markdown prints
// them, each between the markers a doc holds it between,
//
//	<!-- generated:NAME -->
//	...
//	<!-- /generated -->
//
// and render places each where a doc's markers of the same NAME are. Once
// the repository has the command, every block it prints must be in some
// doc, once, so that a new command or method type is documented.
var (
	generatedStart = regexp.MustCompile(`^<!-- generated:([A-Za-z0-9._-]+) -->$`)
	generatedEnd   = "<!-- /generated -->"
)

// generatorPackage is the command whose help-markdown prints the blocks,
// and generatorCommand how it is run from the repository root.
const (
	generatorPackage = "./cmd/covpipe"
	generatorCommand = "go run " + generatorPackage + " help-markdown"
)

// generated are the blocks of covpipe help-markdown, by name, and their
// names in the order printed.
type generated struct {
	blocks map[string]string
	names  []string
}

// generatedBlocks returns the blocks that the repository's covpipe
// prints, read once; none when the repository has no covpipe command.
func (st *store) generatedBlocks() (*generated, error) {
	if st.gen != nil {
		return st.gen, nil
	}
	st.gen = &generated{blocks: map[string]string{}}
	if _, err := os.Stat(filepath.Join(st.root, generatorPackage)); errors.Is(err, fs.ErrNotExist) {
		return st.gen, nil
	}
	cmd := exec.Command("go", "run", generatorPackage, "help-markdown")
	cmd.Dir = st.root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", generatorCommand, err, strings.TrimSpace(stderr.String()))
	}
	g, err := parseGenerated(stdout.String())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", generatorCommand, err)
	}
	st.gen = g
	return g, nil
}

// parseGenerated splits help-markdown's output into its blocks.
func parseGenerated(text string) (*generated, error) {
	g := &generated{blocks: map[string]string{}}
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\n")
		if line == "" && i == len(lines)-1 {
			break
		}
		m := generatedStart.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("line %d: %q is outside any block", i+1, line)
		}
		end := blockEnd(lines, i, generatedEnd, generatedStart)
		if end < 0 {
			return nil, fmt.Errorf("line %d: block %s has no %s", i+1, m[1], generatedEnd)
		}
		if _, ok := g.blocks[m[1]]; ok {
			return nil, fmt.Errorf("line %d: block %s printed twice", i+1, m[1])
		}
		g.blocks[m[1]] = strings.Join(lines[i+1:end], "")
		g.names = append(g.names, m[1])
		i = end
	}
	return g, nil
}

// blockEnd returns the index of the line after lines[start] that is end,
// or -1 when there is none before the next line that start matches.
func blockEnd(lines []string, start int, end string, starts *regexp.Regexp) int {
	for j := start + 1; j < len(lines); j++ {
		l := strings.TrimRight(lines[j], "\n")
		if l == end {
			return j
		}
		if starts.MatchString(l) {
			return -1
		}
	}
	return -1
}

// generatedBlock returns the text of the generated block name.
func (st *store) generatedBlock(name string) (string, error) {
	g, err := st.generatedBlocks()
	if err != nil {
		return "", err
	}
	text, ok := g.blocks[name]
	if !ok {
		return "", fmt.Errorf("%s prints no block %s (the blocks: %s)", generatorCommand, name, strings.Join(g.names, ", "))
	}
	return text, nil
}

// unplacedGenerated names the generated blocks that no doc holds.
func (st *store) unplacedGenerated(placed map[string]string) ([]string, error) {
	g, err := st.generatedBlocks()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range g.names {
		if _, ok := placed["generated:"+name]; !ok {
			out = append(out, name)
		}
	}
	return out, nil
}
