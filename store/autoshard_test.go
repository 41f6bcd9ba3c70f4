package store

import (
	"errors"
	"strings"
	"testing"
)

// TestAutoShard checks the shard read from the environments of a Slurm
// array and a Kubernetes Indexed Job, and the refusals, each naming what
// is wrong.
func TestAutoShard(t *testing.T) {
	slurm := func(id, lo, hi, count string) map[string]string {
		return map[string]string{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_MIN": lo, "SLURM_ARRAY_TASK_MAX": hi, "SLURM_ARRAY_TASK_COUNT": count}
	}
	for _, tc := range []struct {
		name string
		flag string
		env  map[string]string
		want Shard
		err  string // "" for no error
	}{
		{"slurm", "auto", slurm("2", "0", "3", "4"), Shard{2, 4}, ""},
		{"slurm from 1", "auto", slurm("4", "1", "4", "4"), Shard{3, 4}, ""},
		{"slurm and N", "auto/4", slurm("0", "0", "3", "4"), Shard{0, 4}, ""},
		{"slurm, other N", "auto/8", slurm("0", "0", "3", "4"), Shard{}, "has 4 tasks, not 8"},
		{"slurm step", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "6", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "2"}, Shard{}, "consecutive"},
		{"slurm gaps", "auto", slurm("5", "0", "5", "3"), Shard{}, "consecutive"},
		{"slurm not a number", "auto", slurm("x", "0", "3", "4"), Shard{}, `SLURM_ARRAY_TASK_ID="x"`},
		{"kubernetes N", "auto/3", map[string]string{"JOB_COMPLETION_INDEX": "2"}, Shard{2, 3}, ""},
		{"kubernetes env", "auto", map[string]string{"JOB_COMPLETION_INDEX": "1", EnvShardCount: "5"}, Shard{1, 5}, ""},
		{"kubernetes no count", "auto", map[string]string{"JOB_COMPLETION_INDEX": "1"}, Shard{}, EnvShardCount},
		{"kubernetes out of range", "auto/2", map[string]string{"JOB_COMPLETION_INDEX": "2"}, Shard{}, "0 <= I < N"},
		{"neither", "auto", nil, Shard{}, "SLURM_ARRAY_TASK_ID"},
		{"bad N", "auto/0", nil, Shard{}, "auto/N"},
		{"bad suffix", "autox", nil, Shard{}, "want I/N"},
		{"plain", "1/3", slurm("2", "0", "3", "4"), Shard{1, 3}, ""},
	} {
		got, err := AutoShard(tc.flag, func(k string) string { return tc.env[k] })
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		case tc.err != "" && (err == nil || !errors.Is(err, ErrShard) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, %v; want an ErrShard saying %q", tc.name, got, err, tc.err)
		}
	}
}
