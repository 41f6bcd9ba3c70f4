package store

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Shard is part Index of Count (0 ≤ Index < Count) of a run: of the n
// images of the concatenated inputs it takes the contiguous slice
// [Index·n/Count, (Index+1)·n/Count), so that the slices of shards
// 0..Count−1 cover every image once, in order, and differ in size by at
// most one. The zero value, like Count 1, is the whole run.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// MaxShards bounds the number of shards of a run: more parts than any
// cluster array runs is a mistake, and merge allocates per shard.
const MaxShards = 1 << 20

// ErrShard is wrapped by the errors for a malformed or out-of-range shard.
var ErrShard = errors.New("store: invalid shard")

// ParseShard parses "I/N", the shard I (0-based) of N, such as "0/4"; the
// error wraps ErrShard. A SLURM array job can pass
// $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT when its array is 0..N−1.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, erri := strconv.Atoi(is)
	n, errn := strconv.Atoi(ns)
	if !ok || erri != nil || errn != nil || is[0] == '+' || ns[0] == '+' {
		return Shard{}, fmt.Errorf("%w: %q: want I/N with 0 <= I < N, e.g. 0/4", ErrShard, s)
	}
	if n < 1 || i < 0 || i >= n || n > MaxShards {
		return Shard{}, fmt.Errorf("%w: %q: want I/N with 1 <= N <= %d and 0 <= I < N", ErrShard, s, MaxShards)
	}
	return Shard{Index: i, Count: n}, nil
}

// String returns "I/N", or "0/1" for the zero value.
func (s Shard) String() string {
	s = s.norm()
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// norm returns s with the zero value replaced by 0/1.
func (s Shard) norm() Shard {
	if s == (Shard{}) {
		return Shard{Index: 0, Count: 1}
	}
	return s
}

// Check returns an error wrapping ErrShard unless 0 ≤ Index < Count ≤
// MaxShards (the zero value is 0/1).
func (s Shard) Check() error {
	s = s.norm()
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count || s.Count > MaxShards {
		return fmt.Errorf("%w: %d/%d: want I/N with 1 <= N <= %d and 0 <= I < N", ErrShard, s.Index, s.Count, MaxShards)
	}
	return nil
}

// Range returns the slice [lo, hi) of n images that shard s takes.
func (s Shard) Range(n int) (lo, hi int) {
	s = s.norm()
	return part(n, s.Index, s.Count), part(n, s.Index+1, s.Count)
}

// part returns ⌊i·n/count⌋ without overflow.
func part(n, i, count int) int {
	q, r := n/count, n%count
	return i*q + i*r/count
}

// Environment variables that AutoShard reads.
const (
	// EnvShardCount gives the number of shards where the scheduler does
	// not export it (a Kubernetes Indexed Job: its completions).
	EnvShardCount = "COVPIPE_SHARD_COUNT"
)

// AutoShard resolves "auto" or "auto/N" (ParseShard's other forms are
// returned as ParseShard returns them) from the scheduler's environment,
// read through getenv (os.Getenv):
//
//   - a Slurm array job: the index SLURM_ARRAY_TASK_ID −
//     SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT tasks, for an array
//     of consecutive indices (--array=0-7, or 1-8);
//   - a Kubernetes Indexed Job: the index JOB_COMPLETION_INDEX of N
//     shards, N from "auto/N" or else COVPIPE_SHARD_COUNT (Kubernetes
//     does not export the job's completions).
//
// An N given as auto/N must agree with Slurm's count. The error wraps
// ErrShard and names the variables when neither scheduler's is set, or
// when they do not make a shard (an array with a step or gaps, an index
// out of range), and for a nil getenv.
func AutoShard(s string, getenv func(string) string) (Shard, error) {
	rest, ok := strings.CutPrefix(s, "auto")
	if !ok || (rest != "" && rest[0] != '/') {
		return ParseShard(s)
	}
	if getenv == nil {
		return Shard{}, fmt.Errorf("%w: %q: a nil getenv (pass os.Getenv)", ErrShard, s)
	}
	given := 0
	if rest != "" {
		n, err := strconv.Atoi(rest[1:])
		if err != nil || n < 1 || rest[1] == '+' {
			return Shard{}, fmt.Errorf("%w: %q: want auto or auto/N with N >= 1", ErrShard, s)
		}
		given = n
	}
	num := func(name string) (int, error) {
		v, err := strconv.Atoi(getenv(name))
		if err != nil {
			return 0, fmt.Errorf("%w: %s: %s=%q is not a number", ErrShard, s, name, getenv(name))
		}
		return v, nil
	}
	var sh Shard
	switch {
	case getenv("SLURM_ARRAY_TASK_ID") != "":
		var vals [4]int
		for k, name := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_COUNT"} {
			v, err := num(name)
			if err != nil {
				return Shard{}, err
			}
			vals[k] = v
		}
		id, lo, hi, count := vals[0], vals[1], vals[2], vals[3]
		if step := getenv("SLURM_ARRAY_TASK_STEP"); (step != "" && step != "1") || hi-lo+1 != count {
			return Shard{}, fmt.Errorf("%w: %s: the Slurm array %d-%d (step %s) has %d tasks: shards need consecutive indices, e.g. --array=0-%d", ErrShard, s, lo, hi, cmp.Or(step, "1"), count, count-1)
		}
		if given != 0 && given != count {
			return Shard{}, fmt.Errorf("%w: %s: the Slurm array has %d tasks, not %d", ErrShard, s, count, given)
		}
		sh = Shard{Index: id - lo, Count: count}
	case getenv("JOB_COMPLETION_INDEX") != "":
		id, err := num("JOB_COMPLETION_INDEX")
		if err != nil {
			return Shard{}, err
		}
		if given == 0 {
			if getenv(EnvShardCount) == "" {
				return Shard{}, fmt.Errorf("%w: %s: JOB_COMPLETION_INDEX=%d but no shard count: give auto/N (N the Job's completions) or set %s", ErrShard, s, id, EnvShardCount)
			}
			if given, err = num(EnvShardCount); err != nil {
				return Shard{}, err
			}
		}
		sh = Shard{Index: id, Count: given}
	default:
		return Shard{}, fmt.Errorf("%w: %s: neither a Slurm array job (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) nor a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) set this process's environment: give I/N", ErrShard, s)
	}
	if err := sh.Check(); err != nil {
		return Shard{}, fmt.Errorf("%s from the environment: %w", s, err)
	}
	return sh, nil
}
