# Shared by describe.sh and run.sh: submit a Slurm array of covpipe shards
# and a dependent job that merges them, or says which shards to rerun.
# Not run on its own.

# submit_array KIND SHARDS OUT COMMAND ARGS...: writes OUT/KIND-shard.sbatch,
# which runs covpipe COMMAND ARGS with --shard auto --out OUT/shards/INDEX, submits it as an
# array of SHARDS tasks, writes OUT/KIND-merge.sbatch and submits it after
# the array (afterany), and prints both job ids. $SBATCH_ARGS (words) go to
# both sbatch calls; with COVPIPE_WAIT=1 the call waits for the merge job
# and exits with its status.
submit_array() {
	local kind=$1 shards=$2 out=$3
	shift 3
	case $shards in '' | *[!0-9]* | 0) echo "SHARDS must be a whole number >= 1, not '$shards'" >&2; exit 2 ;; esac
	mkdir -p "$out/shards" "$out/logs"
	out=$(cd "$out" && pwd)
	local covpipe=${COVPIPE:-covpipe}
	local time=""
	if [ -x /usr/bin/time ]; then time="/usr/bin/time -v"; fi
	{
		echo '#!/bin/bash'
		echo "#SBATCH --job-name=covpipe-$kind"
		echo "#SBATCH --output=$out/logs/shard-%a.log"
		echo 'set -eu'
		printf 'exec %s %q %q --shard auto --out %q/shards/"$SLURM_ARRAY_TASK_ID"' "$time" "$covpipe" "$1" "$out"
		shift
		printf ' %q' "$@"
		echo
	} >"$out/$kind-shard.sbatch"
	local dirs=""
	for ((i = 0; i < shards; i++)); do dirs="$dirs $out/shards/$i"; done
	{
		echo '#!/bin/bash'
		echo "#SBATCH --job-name=covpipe-$kind-merge"
		echo "#SBATCH --output=$out/logs/merge.log"
		echo 'set -u'
		echo 'failed=""'
		echo "for i in \$(seq 0 $((shards - 1))); do"
		echo "  [ -f $out/shards/\$i/meta.json ] || failed=\"\$failed\${failed:+,}\$i\""
		echo 'done'
		echo 'if [ -n "$failed" ]; then'
		echo "  echo \"covpipe $kind: shard(s) \$failed of $shards did not finish (their logs: $out/logs/shard-N.log); nothing merged. Rerun them, then the merge:\" >&2"
		echo "  echo \"  sbatch --array=\$failed $out/$kind-shard.sbatch\" >&2"
		echo "  echo \"  sbatch --dependency=afterok:JOBID $out/$kind-merge.sbatch\" >&2"
		echo '  exit 1'
		echo 'fi'
		printf 'exec %q merge --out %q/merged%s\n' "$covpipe" "$out" "$dirs"
	} >"$out/$kind-merge.sbatch"
	local array merge
	# shellcheck disable=SC2086
	array=$(sbatch --parsable ${SBATCH_ARGS:-} --array=0-$((shards - 1)) "$out/$kind-shard.sbatch") || exit 1
	array=${array%%;*}
	local wait=""
	if [ "${COVPIPE_WAIT:-0}" = 1 ]; then wait=--wait; fi
	echo "covpipe $kind: array job $array ($shards shards, logs in $out/logs); merge into $out/merged after it"
	local rc=0
	# shellcheck disable=SC2086
	merge=$(sbatch --parsable $wait ${SBATCH_ARGS:-} --dependency=afterany:"$array" "$out/$kind-merge.sbatch") || rc=$?
	echo "covpipe $kind: merge job ${merge%%;*}${wait:+, exit status $rc (its log: $out/logs/merge.log)}"
	return $rc
}
