package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
	"go.yaml.in/yaml/v3"
)

// checkArgs checks the flags of a covpipe command line (args after the
// binary): the command must exist and have every --flag.
func checkArgs(t *testing.T, where string, args []string) {
	t.Helper()
	if len(args) == 0 {
		t.Errorf("%s: covpipe without a command", where)
		return
	}
	cmds := newApp(io.Discard, io.Discard).Commands
	i := slices.IndexFunc(cmds, func(c *cli.Command) bool { return c.Name == args[0] })
	if i < 0 {
		t.Errorf("%s: covpipe has no command %q", where, args[0])
		return
	}
	cmd := cmds[i]
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "--") {
			continue
		}
		flag, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !slices.ContainsFunc(cmd.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), flag) }) {
			t.Errorf("%s: covpipe %s has no flag --%s", where, args[0], flag)
		}
	}
}

// TestKubernetesManifests keeps the Kubernetes manifests in step with the
// CLI: every container that runs covpipe names a command it has, with
// flags it has; the Indexed Jobs give the shard count that --shard auto
// reads, equal to their completions.
func TestKubernetesManifests(t *testing.T) {
	files, err := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if err != nil || len(files) < 2 {
		t.Fatalf("manifests %v: %v", files, err)
	}
	type container struct {
		Name    string   `yaml:"name"`
		Command []string `yaml:"command"`
		Args    []string `yaml:"args"`
		Env     []struct {
			Name  string `yaml:"name"`
			Value string `yaml:"value"`
		} `yaml:"env"`
	}
	type job struct {
		Kind string `yaml:"kind"`
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Template       struct {
				Spec struct {
					Containers []container `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	runs := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(false)
		for {
			var j job
			if err := dec.Decode(&j); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if j.Kind != "Job" {
				t.Errorf("%s: kind %q, want Job", f, j.Kind)
			}
			for _, c := range j.Spec.Template.Spec.Containers {
				line := append(slices.Clone(c.Command), c.Args...)
				if len(line) == 0 || filepath.Base(line[0]) != "covpipe" {
					t.Errorf("%s: container %s does not run covpipe: %q", f, c.Name, line)
					continue
				}
				runs++
				where := f + ": " + c.Name
				checkArgs(t, where, line[1:])
				if !slices.Contains(line, "auto") {
					continue
				}
				if j.Spec.CompletionMode != "Indexed" {
					t.Errorf("%s: --shard auto in a Job that is not Indexed", where)
				}
				count := ""
				for _, e := range c.Env {
					if e.Name == "COVPIPE_SHARD_COUNT" {
						count = e.Value
					}
				}
				if count != strconv.Itoa(j.Spec.Completions) {
					t.Errorf("%s: COVPIPE_SHARD_COUNT %q, completions %d: they must agree", where, count, j.Spec.Completions)
				}
			}
		}
	}
	if runs < 4 {
		t.Errorf("%d containers run covpipe, want the shards and the merge of describe and of run", runs)
	}
}

// TestSlurmScripts keeps the Slurm scripts in step with the CLI: the
// flags the shard jobs add to describe and run, and merge's --out.
func TestSlurmScripts(t *testing.T) {
	b, err := os.ReadFile("../../deploy/slurm/lib.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`%q --shard auto --out`, `merge --out`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("deploy/slurm/lib.sh has no %q: the flags the jobs use changed, change this test with them", want)
		}
	}
	for _, cmd := range []string{"describe", "run"} {
		checkArgs(t, "deploy/slurm/lib.sh", []string{cmd, "--shard", "auto", "--out", "DIR"})
	}
	checkArgs(t, "deploy/slurm/lib.sh", []string{"merge", "--out", "DIR"})
}

// TestRunShardsMerge runs the tiny config whole and in 3 shards (one of
// them through --shard auto in a Slurm array's environment), merges the
// shards and checks that results.json and summary.md are the whole
// run's, timings aside; merge names a missing shard.
func TestRunShardsMerge(t *testing.T) {
	dir, cfg := writeTinyConfig(t)
	whole := filepath.Join(dir, "whole")
	if _, stderr, err := runCLI(t, "run", cfg, "--out", whole); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	var shards []string
	for i := range 3 {
		out := filepath.Join(dir, "shard"+strconv.Itoa(i))
		args := []string{"run", cfg, "--shard", strconv.Itoa(i) + "/3", "--out", out}
		if i == 2 {
			t.Setenv("SLURM_ARRAY_TASK_ID", "12")
			t.Setenv("SLURM_ARRAY_TASK_MIN", "10")
			t.Setenv("SLURM_ARRAY_TASK_MAX", "12")
			t.Setenv("SLURM_ARRAY_TASK_COUNT", "3")
			args[3] = "auto"
		}
		stdout, stderr, err := runCLI(t, args...)
		if err != nil || !strings.Contains(stdout, "shard "+strconv.Itoa(i)+"/3: ") {
			t.Fatalf("run --shard %d/3: %v\n%s%s", i, err, stdout, stderr)
		}
		shards = append(shards, out)
	}
	if _, _, err := runCLI(t, append([]string{"merge", "--out", filepath.Join(dir, "part")}, shards[:2]...)...); err == nil || !strings.Contains(err.Error(), "shard 2/3 missing") {
		t.Errorf("merge of 2 of 3 shards: %v", err)
	}
	merged := filepath.Join(dir, "merged")
	if _, stderr, err := runCLI(t, "merge", "--out", merged, shards[2], shards[0], shards[1]); err != nil {
		t.Fatalf("merge: %v\n%s", err, stderr)
	}
	untimed := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var keep []string
		skip := false
		for _, l := range strings.Split(string(b), "\n") {
			switch {
			case strings.Contains(l, `"timings": {`):
				skip = true
			case skip:
				skip = !strings.HasPrefix(strings.TrimSpace(l), "}")
			case strings.Contains(l, `"seconds":`), strings.Contains(l, `"started":`), strings.Contains(l, "Wall time"), strings.Contains(l, "run time"):
			default:
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	for _, f := range []string{"results.json", "summary.md"} {
		if a, b := untimed(filepath.Join(whole, f)), untimed(filepath.Join(merged, f)); a != b || len(a) < 100 {
			t.Errorf("%s: merged\n%s\nwhole\n%s", f, b, a)
		}
	}
}
