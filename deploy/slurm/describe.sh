#!/bin/bash
# Describe images on a Slurm cluster: an array of SHARDS describe jobs,
# each `covpipe describe ARGS --shard auto`, then a job that merges them
# into OUT/merged, the same bytes as one unsharded describe.
#
#   deploy/slurm/describe.sh SHARDS OUT DESCRIBE_ARGS...
#   deploy/slurm/describe.sh 8 /shared/mars-desc --features reid --resize 32x64 mars:/shared/mini-mars
#
# OUT must be on a file system every node sees. The shards write
# OUT/shards/I and their logs OUT/logs/shard-I.log. If a shard fails, the
# merge job merges nothing and its log (OUT/logs/merge.log) names the
# shards to rerun and the two sbatch commands that do it. Environment:
# COVPIPE, the covpipe binary (default: covpipe on PATH); SBATCH_ARGS,
# more sbatch options for both jobs (--partition, --time, --cpus-per-task);
# COVPIPE_WAIT=1 waits for the merge and exits with its status.

set -eu
[ $# -ge 3 ] || { sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
shards=$1 out=$2
shift 2
submit_array describe "$shards" "$out" describe "$@"
