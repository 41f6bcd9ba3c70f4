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

// writeTinyConfig writes tinyConfig into a new folder and returns the
// folder and the config's path.
func writeTinyConfig(t *testing.T) (dir, cfg string) {
	t.Helper()
	dir = t.TempDir()
	cfg = filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(cfg, []byte(tinyConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

func TestRunCommand(t *testing.T) {
	dir, cfg := writeTinyConfig(t)
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
	// The plan's warnings (a deprecated metric name) go to the log.
	deprecated := filepath.Join(dir, "deprecated.yaml")
	if err := os.WriteFile(deprecated, []byte(strings.Replace(tinyConfig, "metric: stein", "metric: logeuclid", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = runCLI(t, "run", deprecated, "--out", out, "--repeats", "1", "--methods", "nn-stein")
	if err != nil || !strings.Contains(stderr, "level=WARN") || !strings.Contains(stderr, `\"logeuclid\" is deprecated`) {
		t.Errorf("deprecated metric: %v\n%s", err, stderr)
	}
}

// TestReportCommand checks that covpipe report rewrites summary.md from
// results.json alone, the same as the run wrote, and reads energy curves
// recorded in the first results.json layout.
func TestReportCommand(t *testing.T) {
	dir, cfg := writeTinyConfig(t)
	out := filepath.Join(dir, "results")
	if _, stderr, err := runCLI(t, "run", cfg, "--out", out); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	again := filepath.Join(dir, "again")
	stdout, _, err := runCLI(t, "report", filepath.Join(out, "results.json"), "--out", again)
	if err != nil || !strings.Contains(stdout, "tiny: accuracy % (mean ± std over 2 repeats)") || !strings.Contains(stdout, "| easy |") {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	first, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	second, err := os.ReadFile(filepath.Join(again, "summary.md"))
	if err != nil || string(first) != string(second) {
		t.Errorf("summary.md rewritten as\n%s\nwritten by run as\n%s", second, first)
	}
	old := filepath.Join(dir, "old")
	stdout, _, err = runCLI(t, "report", filepath.Join("..", "..", "experiment", "testdata", "results-v1-energy.json"), "--out", old)
	if err != nil || !strings.Contains(stdout, "representation energy J (Eqn. 10)") || !strings.Contains(stdout, "| fig7 | 61.5 ± 0.71 |") {
		t.Errorf("report of the first layout: %v\n%s", err, stdout)
	}
	if _, err := os.Stat(filepath.Join(old, "energy-fig7.png")); err != nil {
		t.Errorf("energy figure: %v", err)
	}
	if _, _, err := runCLI(t, "report", filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing results: %v", err)
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

// TestRunMemoryAndWorkers checks run's --max-memory and --workers: a
// config over the bound fails before it runs, naming the file, the
// setting and the estimate; the bound is the flag's; negative workers
// are refused naming the flag.
func TestRunMemoryAndWorkers(t *testing.T) {
	dir, cfg := writeTinyConfig(t)
	out := filepath.Join(dir, "results")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", cfg, "--repeats", "1000000000"}, cfg + ": experiment: invalid configuration: line 4: repeats: 1000000000 repeats of 1 task keep the results of 2 methods, about"},
		{[]string{"run", cfg, "--max-memory", "1KiB"}, "over the memory limit of 1 KiB"},
		{[]string{"run", cfg, "--max-memory", "lots"}, "run: --max-memory: "},
		{[]string{"run", cfg, "--workers", "-4"}, "run: --workers -4, want >= 0 (0: all cores)"},
	} {
		_, _, err := runCLI(t, append(tc.args, "--out", out)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error containing %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
		}
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
