#!/bin/bash
# Run an experiment on a Slurm cluster: an array of SHARDS jobs, each
# `covpipe run CONFIG ARGS --shard auto`, which runs every SHARDS-th
# (task, repeat, method) unit, then a job that merges their partial
# results into OUT/merged: the results.json, summary.md and figures of one
# unsharded run, timings aside.
#
#   deploy/slurm/run.sh SHARDS OUT CONFIG [RUN_ARGS...]
#   deploy/slurm/run.sh 8 /shared/feret-run configs/feret.yaml --data /shared/datasets --cache /shared/cache
#
# OUT must be on a file system every node sees, and so should --cache, so
# that one shard's descriptors serve the others. If a shard fails, the
# merge job merges nothing and its log (OUT/logs/merge.log) names the
# shards to rerun. Environment: COVPIPE, SBATCH_ARGS and COVPIPE_WAIT as
# for describe.sh.

set -eu
[ $# -ge 3 ] || { sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
shards=$1 out=$2
shift 2
submit_array run "$shards" "$out" run "$@"
