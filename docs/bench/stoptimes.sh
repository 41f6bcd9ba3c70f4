#!/usr/bin/env bash
# How fast covpipe stops on SIGTERM, command by command and stage by stage:
# each case starts a covpipe, waits until it is in the stage named (its
# progress log line "msg=start stage=..."), lets it work for a moment,
# sends SIGTERM and times the signal to the process's exit, which must be
# status 143 with "covpipe: interrupted (SIGTERM)". It writes
# docs/runs/bench/stop.txt in `go test -bench` format,
#   BenchmarkStop/CASE 1 NANOSECONDS ns/op
# from which `go run ./internal/tools/doctables render` makes the table
# "Stopping" of docs/benchmarks.md. Run it from the repository root:
#
#   docs/bench/stoptimes.sh [--count N] [--data DIR] [--bin COVPIPE] [CASE...]
#
# CASEs: describe merge learn encode run-rsr run-tsc feret-pairwise
# reid-rlpp (the default: all). --count (default 3) repeats each case; the
# table shows the range. The inputs (descriptor folders, shards, a
# dictionary, the descriptor cache of FERET and reid) are made first,
# untimed; the data root defaults to ../shared/datasets.
set -euo pipefail
cd "$(dirname "$0")/../.."

count=3
data=../shared/datasets
bin=""
cases=()
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    -*) echo "stoptimes: unknown flag $1" >&2; exit 2 ;;
    *) cases+=("$1"); shift ;;
  esac
done
[ ${#cases[@]} -gt 0 ] || cases=(describe merge learn encode run-rsr run-tsc feret-pairwise reid-rlpp)
data=$(cd "$data" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
  go build -o "$tmp/covpipe" ./cmd/covpipe
  bin=$tmp/covpipe
fi
out=docs/runs/bench/stop.txt
mkdir -p "$(dirname "$out")"
lines=$tmp/stop.txt

# stop CASE TRIGGER DELAY ARGS...: runs covpipe ARGS, waits until its
# stderr has a line matching the extended regular expression TRIGGER
# ("" for none), sleeps DELAY seconds, sends SIGTERM and prints the time
# from the signal to its exit as a benchmark line. With CASE "-" it only
# stops the process (a warm-up that fills the descriptor cache).
stop() {
  local name=$1 trigger=$2 delay=$3
  shift 3
  local err=$tmp/stderr
  rm -rf "$tmp/o"
  "$bin" "$@" --out "$tmp/o" >/dev/null 2>"$err" &
  local pid=$!
  if [ -n "$trigger" ]; then
    until grep -qE "$trigger" "$err"; do
      if ! kill -0 "$pid" 2>/dev/null; then
        echo "stoptimes: $name: covpipe $* ended before /$trigger/:" >&2
        tail -5 "$err" >&2
        return 1
      fi
      sleep 0.01
    done
  fi
  sleep "$delay"
  local t0 t1 status=0
  t0=$(date +%s%N)
  if ! kill -TERM "$pid" 2>/dev/null; then
    echo "stoptimes: $name: covpipe $* ended before the signal" >&2
    return 1
  fi
  wait "$pid" || status=$?
  t1=$(date +%s%N)
  [ "$name" = - ] && return 0
  if [ "$status" -ne 143 ] || ! grep -q "covpipe: interrupted (SIGTERM)" "$err"; then
    echo "stoptimes: $name: covpipe $* exited with status $status, not 143 (interrupted by SIGTERM):" >&2
    tail -5 "$err" >&2
    return 1
  fi
  echo "BenchmarkStop/$name 1 $((t1 - t0)) ns/op"
}

desc=$tmp/desc
mars=(mars:"$data/mini-mars")
reid=(--features reid --resize 32x64)
need() {
  case "$1" in
    desc) [ -d "$desc" ] || "$bin" describe "${reid[@]}" --out "$desc" "${mars[@]}" >/dev/null 2>&1 ;;
    shards)
      for i in 0 1; do
        [ -d "$tmp/shard-$i" ] || "$bin" describe "${reid[@]}" --regions blocks:20:16 --seed 1 --shard "$i/2" --out "$tmp/shard-$i" "${mars[@]}" >/dev/null 2>&1
      done ;;
    dict) need desc; [ -d "$tmp/dict" ] || "$bin" learn --atoms 64 --iters 1 --out "$tmp/dict" "$desc" >/dev/null 2>&1 ;;
  esac
}

{
  echo "# command: docs/bench/stoptimes.sh --count $count ${cases[*]}"
  echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
} >"$lines"
# note TEXT: a comment line above a case's first result.
note() { [ "$k" -gt 1 ] || echo "# stop $*" >>"$lines"; }
for c in "${cases[@]}"; do
  for k in $(seq "$count"); do
    case "$c" in
      describe)
        note "describe: covpipe describe ${reid[*]} --out DIR mars:DATA/mini-mars, SIGTERM 1 s into extraction"
        stop describe 'msg=start stage=describe' 1 describe "${reid[@]}" "${mars[@]}" >>"$lines" ;;
      merge)
        need shards
        note "merge: covpipe merge --out DIR of 2 shards of 111,440 17×17 descriptors (258 MB), SIGTERM 0.2 s after the start"
        stop merge '' 0.2 merge "$tmp/shard-0" "$tmp/shard-1" >>"$lines" ;;
      learn)
        need desc
        note "learn: covpipe learn --atoms 64 --out DIR (mini-mars reid descriptors), SIGTERM 1 s into dictionary learning"
        stop learn 'msg=start stage="?dictionary learning' 1 learn --atoms 64 "$desc" >>"$lines" ;;
      encode)
        need dict
        need shards
        note "encode: covpipe encode --dict DICT --out DIR of 55,720 17×17 descriptors against 64 atoms, SIGTERM 1 s after the start"
        stop encode '' 1 encode --dict "$tmp/dict" "$tmp/shard-0" >>"$lines" ;;
      run-rsr)
        note "run-rsr: covpipe run configs/synthetic.yaml --methods rsr, SIGTERM 1 s into the first task"
        stop run-rsr 'msg=start stage="?easy' 1 run configs/synthetic.yaml --methods rsr >>"$lines" ;;
      run-tsc)
        note "run-tsc: covpipe run configs/synthetic.yaml --methods tsc, SIGTERM 1 s into the first task"
        stop run-tsc 'msg=start stage="?easy' 1 run configs/synthetic.yaml --methods tsc >>"$lines" ;;
      feret-pairwise)
        feret=(run configs/feret.yaml --quick --data "$data" --cache "$tmp/cache")
        stop - 'msg=start stage="?bg' 0 "${feret[@]}"
        note "feret-pairwise: covpipe run configs/feret.yaml --quick --data DATA (cached descriptors), SIGTERM 50 ms into the first task, in its pairwise Stein divergences"
        stop feret-pairwise 'msg=start stage="?bg' 0.05 "${feret[@]}" >>"$lines" ;;
      reid-rlpp)
        rlpp=(run configs/reid.yaml --methods rlpp --data "$data" --cache "$tmp/cache")
        stop - 'msg=start stage=' 0 "${rlpp[@]}"
        note "reid-rlpp: covpipe run configs/reid.yaml --methods rlpp --data DATA (cached descriptors), SIGTERM 1 s into the first task"
        stop reid-rlpp 'msg=start stage=' 1 "${rlpp[@]}" >>"$lines" ;;
      *) echo "stoptimes: unknown case $c" >&2; exit 2 ;;
    esac
  done
done
mv "$lines" "$out"
echo "wrote $out"
