package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

const tinyConfig = `
name: tiny
seed: 3
repeats: 2
tasks:
  - name: easy
    synthetic: {classes: 3, dim: 3, samples: 48, train: 0.5, spread: 1, variance: 0.5}
methods:
  - name: rsr
    sigma: 1
    lambda: 0.05
  - {name: nn-stein, type: nn, metric: stein}
`

func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"covpipe"}, args...), &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

func TestRunCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(cfg, []byte(tinyConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	stdout, stderr, err := runCLI(t, "run", cfg, "--out", out, "--repeats", "3", "--workers", "2", "--seed", "9", "--memprofile", filepath.Join(dir, "mem.prof"))
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "| easy |") || !strings.Contains(stdout, "over 3 repeats") {
		t.Errorf("stdout:\n%s", stdout)
	}
	for _, f := range []string{"results.json", "summary.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if !strings.Contains(string(b), `"seed": 9`) || !strings.Contains(string(b), `"repeats": 3`) {
		t.Error("flags did not override the config in results.json")
	}
	if !strings.Contains(stderr, "level=INFO") {
		t.Errorf("no progress log lines on a non-terminal stderr:\n%s", stderr)
	}
	if st, err := os.Stat(filepath.Join(dir, "mem.prof")); err != nil || st.Size() == 0 {
		t.Errorf("--memprofile: %v", err)
	}
	// --methods keeps the named methods only.
	stdout, _, err = runCLI(t, "run", cfg, "--out", out, "--repeats", "1", "--methods", "nn-stein")
	if err != nil || strings.Contains(stdout, "| rsr") || !strings.Contains(stdout, "nn-stein") {
		t.Errorf("--methods nn-stein: %v\n%s", err, stdout)
	}
}

func TestRunCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(tinyConfig, "lambda: 0.05", "lamda: 0.05", 1)), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "want exactly one CONFIG"},
		{[]string{"run", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"run", bad}, `unknown key "lamda"`},
		{[]string{"run", bad, "--repeats", "0"}, `unknown key "lamda"`},
		{[]string{"run", "--bogus", bad}, "flag provided but not defined: -bogus"},
		{[]string{"nosuch"}, "nosuch"},
	}
	for _, tc := range tests {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error containing %q", tc.args, err, tc.want)
		}
		if err != nil && strings.Contains(oneLine(err), "\n") {
			t.Errorf("%v: error is not one line", tc.args)
		}
	}
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte(tinyConfig), 0o644)
	if _, _, err := runCLI(t, "run", good, "--repeats", "0"); err == nil || !strings.Contains(err.Error(), "--repeats 0") {
		t.Errorf("--repeats 0: %v", err)
	}
	if _, _, err := runCLI(t, "run", good, "--methods", "rsr,nosuch"); err == nil || !strings.Contains(err.Error(), `no method "nosuch" (it has `) {
		t.Errorf("--methods nosuch: %v", err)
	}
}

func TestVersionAndHelp(t *testing.T) {
	stdout, _, err := runCLI(t, "version")
	if err != nil || !strings.HasPrefix(stdout, "covpipe 0.") {
		t.Errorf("version: %q, %v", stdout, err)
	}
	stdout, _, err = runCLI(t, "run", "--help")
	if err != nil || !strings.Contains(stdout, "--repeats") || !strings.Contains(stdout, "results.json") {
		t.Errorf("run --help: %q, %v", stdout, err)
	}
}

func TestInterspersed(t *testing.T) {
	cmds := []*cli.Command{{Name: "run", Flags: []cli.Flag{
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}},
		&cli.IntFlag{Name: "repeats"},
		&cli.BoolFlag{Name: "quiet"},
	}}}
	tests := []struct{ in, want []string }{
		{[]string{"covpipe", "run", "c.yaml", "--out", "d"}, []string{"covpipe", "run", "--out", "d", "c.yaml"}},
		{[]string{"covpipe", "run", "c.yaml", "-o", "d", "--quiet", "--repeats=3"}, []string{"covpipe", "run", "-o", "d", "--quiet", "--repeats=3", "c.yaml"}},
		{[]string{"covpipe", "run", "--quiet", "c.yaml", "--", "--out"}, []string{"covpipe", "run", "--quiet", "c.yaml", "--", "--out"}},
		{[]string{"covpipe", "version"}, []string{"covpipe", "version"}},
		{[]string{"covpipe"}, []string{"covpipe"}},
	}
	for _, tc := range tests {
		if got := interspersed(tc.in, cmds); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("interspersed(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
