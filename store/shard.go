package store

import (
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
