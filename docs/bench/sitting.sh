#!/usr/bin/env bash
# The benchmark sitting behind docs/benchmarks.md: runs the library's
# `go test -bench` benchmarks and times whole covpipe processes, writing
# docs/runs/bench/GROUP.txt (benchmark output, each file headed by the
# commands that made it), from which `go run ./internal/tools/doctables
# render` makes the tables. Run it from the repository root on a machine
# otherwise idle:
#
#   docs/bench/sitting.sh [--count N] [--benchtime T] [--data DIR] [--before REV] [GROUP...]
#
# GROUPs: spd rsr svm lpp tsc method gabor describe processes model (the default:
# all of these) and slow (the shipped configs with TSC and the full
# dictionary sweep: about two CPU-hours) feret-tsc (FERET's TSC column
# alone: about ten CPU-minutes) and numpy (covpipe against
# docs/bench/feret_numpy.py, docs/bench/README.md) and means (spd's means
# against docs/bench/means_numpy.py on FERET's 600 training descriptors,
# the two sides alternating) and regions (FERET with one descriptor and
# with several per face) and python (covpipe from Python,
# docs/bench/feret_python.py, against the command, the NumPy script and,
# with PYRIEMANN set to a folder that holds pyRiemann's package,
# pyRiemann; docs/bench/README.md). --count defaults to 3 (each table
# cell shows the range over the runs), --benchtime to go test's default.
# Whole processes are timed with /usr/bin/time (wall, user + system CPU,
# peak RSS) after one untimed run that fills the descriptor cache; the
# "cold" ones run with --no-cache. Their lines follow the benchmark format:
#   BenchmarkProcess/NAME 1 WALL wall-s CPU cpu-s RSS peak-KB
set -euo pipefail
cd "$(dirname "$0")/../.."

count=3
benchtime=""
data=../shared/datasets
before=main
groups=()
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count=$2; shift 2 ;;
    --benchtime) benchtime=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --before) before=$2; shift 2 ;;
    -*) echo "sitting: unknown flag $1" >&2; exit 2 ;;
    *) groups+=("$1"); shift ;;
  esac
done
[ ${#groups[@]} -gt 0 ] || groups=(spd rsr svm lpp tsc method gabor describe processes model)

# The real-data benchmarks find the datasets through this variable.
if [ -d "$data" ]; then
  COVPIPE_SHARED_DATA=$(cd "$data" && pwd)
  export COVPIPE_SHARED_DATA
fi

outdir=docs/runs/bench
mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bt=()
[ -n "$benchtime" ] && bt=(-benchtime "$benchtime")

# quote ARGS...: the words as a shell would need them typed.
quote() {
  local out=() a
  for a in "$@"; do
    case "$a" in
      *[!A-Za-z0-9_./=:,+-]*|'') out+=("'${a//\'/\'\\\'\'}'") ;;
      *) out+=("$a") ;;
    esac
  done
  echo "${out[*]}"
}

# bench FILE ARGS...: go test -run '^$' -count N ARGS, appended to FILE.
bench() {
  local file=$1; shift
  local cmd=(go test -run '^$' -count "$count" "${bt[@]}" "$@")
  echo "# command: $(quote "${cmd[@]}")" >> "$file"
  echo "sitting: $(quote "${cmd[@]}")" >&2
  "${cmd[@]}" | tee -a "$file" >&2
}

# header FILE NAME COMMAND...: names the process NAME and its command in
# FILE, and runs it once, untimed.
header() {
  local file=$1 name=$2; shift 2
  local shown
  shown=$(quote "$@" | sed "s#$tmp/covpipe#covpipe#g; s#$tmp/#TMP/#g")
  echo "# process $name: $shown" >> "$file"
  echo "sitting: $name: $shown" >&2
  rm -rf "$tmp/out"
  "$@" > /dev/null 2>&1
}

# timed FILE NAME COMMAND...: times one run of COMMAND, appending its
# benchmark-format line to FILE and leaving its wall time in $wall; with
# items set, the line also gives the wall time per item in ms (unit
# ms/$item).
timed() {
  local file=$1 name=$2; shift 2
  rm -rf "$tmp/out"
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" > /dev/null 2> "$tmp/stderr" || { cat "$tmp/stderr" >&2; exit 1; }
  local user sys rss per=""
  read -r wall user sys rss < "$tmp/time"
  [ -n "${items:-}" ] && per=" $(awk "BEGIN { print $wall * 1000 / $items }") ms/${item:-item}"
  echo "BenchmarkProcess/$name 1 $wall wall-s $(awk "BEGIN { print $user + $sys }") cpu-s $rss peak-KB$per" >> "$file"
}

# proc FILE NAME COMMAND...: times COMMAND count times after one untimed
# run, appending benchmark-format lines to FILE.
proc() {
  header "$@"
  for _ in $(seq "$count"); do
    timed "$@"
  done
}

# pair FILE NAME_A COMMAND_A... -- NAME_B COMMAND_B...: times the two
# commands count times each, after an untimed run of each, alternating
# A B, B A, A B, ..., and appends to FILE a line per pair with the ratio
# of B's wall time to A's: BenchmarkRatio/NAME_B-vs-NAME_A 1 R ×.
pair() {
  local file=$1 a=() b=()
  shift
  while [ "$1" != "--" ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  header "$file" "${a[@]}"
  header "$file" "${b[@]}"
  local ratios=() i wa wb r
  for i in $(seq "$count"); do
    if [ $((i % 2)) -eq 1 ]; then
      timed "$file" "${a[@]}"; wa=$wall
      timed "$file" "${b[@]}"; wb=$wall
    else
      timed "$file" "${b[@]}"; wb=$wall
      timed "$file" "${a[@]}"; wa=$wall
    fi
    ratios+=("$(awk "BEGIN { print $wb / $wa }")")
  done
  for r in "${ratios[@]}"; do
    echo "BenchmarkRatio/${b[0]}-vs-${a[0]} 1 $r ×" >> "$file"
  done
}

covpipe() {
  if [ ! -x "$tmp/covpipe" ]; then
    go build -o "$tmp/covpipe" ./cmd/covpipe
  fi
  echo "$tmp/covpipe"
}

for g in "${groups[@]}"; do
  f="$tmp/$g.txt"
  : > "$f"
  case "$g" in
    spd)
      bench "$f" -bench 'SteinEntry|^BenchmarkAIRM$|AnchorAIRM|AIRMTargets|LogDet43|SteinBlockSmall|^BenchmarkSteinBlock$|^BenchmarkDistance$' -cpu 1 ./spd
      bench "$f" -bench 'GramSym600|SteinSymBlock|KMeans|SteinMean' -cpu 2 ./spd ;;
    kernels)
      # Both sides' test binaries, built once; then count rounds of one
      # run of each, alternating which goes first, so that both see the
      # same load.
      rev=$(git rev-parse --short "$before")
      mkdir -p "$tmp/before" "$tmp/bin"
      git archive "$rev" | tar -x -C "$tmp/before"
      pkgs=(spd internal/dense internal/roofline)
      res=('SteinEntry|SteinBlockSmall|^BenchmarkSteinBlock$|^BenchmarkAIRM$|AnchorAIRM|AIRMTargets|LogDet43' 'AIRMStages' 'PeakFMA')
      for side in before after; do
        dir=.
        [ "$side" = before ] && dir=$tmp/before
        for pkg in "${pkgs[@]}"; do
          if [ -d "$dir/$pkg" ]; then
            (cd "$dir" && go test -c -o "$tmp/bin/$side-${pkg//\//-}" "./$pkg")
          fi
        done
      done
      echo "# command: docs/bench/sitting.sh --count $count${benchtime:+ --benchtime $benchtime} --before $rev kernels" >> "$f"
      echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" >> "$f"
      for i in $(seq "$count"); do
        order=(before after)
        [ $((i % 2)) -eq 0 ] && order=(after before)
        for side in "${order[@]}"; do
          for k in "${!pkgs[@]}"; do
            b=$tmp/bin/$side-${pkgs[$k]//\//-}
            [ -x "$b" ] || continue
            echo "sitting: kernels: $side ${pkgs[$k]} round $i" >&2
            (cd "${pkgs[$k]}" && "$b" -test.run '^$' -test.bench "${res[$k]}" -test.cpu 1 -test.count 1 ${benchtime:+-test.benchtime "$benchtime"}) |
              sed -E "s#^(Benchmark[^ \t]+)#\1/$side#" | tee -a "$f" >&2
          done
        done
      done ;;
    rsr)
      bench "$f" -bench Lasso -cpu 1 ./rsr
      bench "$f" -bench LearnIteration -cpu 2 ./rsr ;;
    svm) bench "$f" -bench . -cpu 1 -benchmem ./svm ;;
    lpp) bench "$f" -bench FitProject -cpu 2 ./lpp ;;
    tsc) bench "$f" -bench Code -cpu 1 ./tsc ;;
    method) bench "$f" -bench 'TSCSynthetic|RSRSynthetic|LogESRSynthetic|NNAIRMSynthetic|PCAGram|RLPP' -cpu 2 ./method ;;
    gabor) bench "$f" -bench 'Magnitudes(32|64)$|Engines' -cpu 1 ./gabor ;;
    describe)
      bench "$f" -bench 'TextureGrid256|FaceWhole64|ReidWhole32x64' -cpu 2 ./describe
      bench "$f" -bench DescribeMiniMars -cpu 2 -benchtime 3x ./describe ;;
    processes)
      bin=$(covpipe)
      echo "# command: docs/bench/sitting.sh --count $count processes" >> "$f"
      echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" >> "$f"
      go run ./internal/tools/doctables config reid-dense > "$tmp/reid.yaml"
      cache="$tmp/cache"
      proc "$f" synthetic "$bin" run configs/synthetic.yaml --methods rsr,logE-SR,nn-airm,nn-stein,stein-svm --out "$tmp/out" --cache "$cache"
      proc "$f" feret-quick "$bin" run configs/feret.yaml --quick --data "$data" --out "$tmp/out" --cache "$cache"
      proc "$f" feret-quick-cold "$bin" run configs/feret.yaml --quick --data "$data" --out "$tmp/out" --no-cache
      proc "$f" feret-64-quick "$bin" run configs/feret-64.yaml --quick --data "$data" --out "$tmp/out" --cache "$cache"
      proc "$f" feret-64-quick-cold "$bin" run configs/feret-64.yaml --quick --data "$data" --out "$tmp/out" --no-cache
      proc "$f" brodatz-mosaics "$bin" run configs/brodatz-mosaics.yaml --data "$data" --out "$tmp/out" --cache "$cache"
      proc "$f" reid "$bin" run configs/reid.yaml --data "$data" --out "$tmp/out" --cache "$cache"
      proc "$f" reid-cold "$bin" run configs/reid.yaml --data "$data" --out "$tmp/out" --no-cache
      proc "$f" reid-paper "$bin" run configs/reid.yaml --methods rsr,hpe,sdalf,rlpp,logE-SR,nn-airm,nn-stein,stein-svm,best --data "$data" --out "$tmp/out" --cache "$cache"
      proc "$f" reid-cross-camera "$bin" run configs/reid-cross-camera.yaml --data "$data" --out "$tmp/out" --cache "$cache"
      for m in rsr sdalf hpe; do
        proc "$f" "reid-$m" "$bin" run configs/reid.yaml --methods "$m" --data "$data" --out "$tmp/out" --cache "$cache"
      done
      proc "$f" reid-dense "$bin" run "$tmp/reid.yaml" --methods rsr --repeats 1 --data "$data" --out "$tmp/out" --cache "$cache"
      proc "$f" dictionary-synthetic "$bin" run configs/dictionary-synthetic.yaml --out "$tmp/out"
      proc "$f" dictionary-brodatz-quick "$bin" run configs/dictionary-brodatz.yaml --quick --data "$data" --out "$tmp/out" --cache "$cache"
      proc "$f" scale "$bin" run configs/scale.yaml --out "$tmp/out"
      proc "$f" describe-mini-mars "$bin" describe --features reid --resize 32x64 --out "$tmp/out" "mars:$data/mini-mars" ;;
    model)
      bin=$(covpipe)
      echo "# command: docs/bench/sitting.sh --count $count model" >> "$f"
      echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" >> "$f"
      proc "$f" fit-feret "$bin" fit --config configs/feret.yaml --method rsr --where pose=ba,bj,bk --out "$tmp/out" "feret:$data/feret-b-32"
      rm -rf "$tmp/model" && mv "$tmp/out" "$tmp/model"
      items=800 item=image proc "$f" predict-feret "$bin" predict --model "$tmp/model" --workers 2 --where pose=bg,bf,be,bd --out "$tmp/out" "feret:$data/feret-b-32"
      bench "$f" -bench PredictFERET -cpu 2 ./model ;;
    slow)
      bin=$(covpipe)
      echo "# command: docs/bench/sitting.sh --count $count slow" >> "$f"
      echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" >> "$f"
      cache="$tmp/cache"
      proc "$f" synthetic-all "$bin" run configs/synthetic.yaml --out "$tmp/out" --cache "$cache"
      proc "$f" dictionary-brodatz "$bin" run configs/dictionary-brodatz.yaml --data "$data" --out "$tmp/out" --cache "$cache"
      proc "$f" feret "$bin" run configs/feret.yaml --data "$data" --out "$tmp/out" --cache "$cache"
      proc "$f" feret-64 "$bin" run configs/feret-64.yaml --data "$data" --out "$tmp/out" --cache "$cache" ;;
    numpy)
      # covpipe against docs/bench/feret_numpy.py on the same computation
      # (docs/bench/README.md); needs Debian's python3-numpy, -scipy,
      # -sklearn and -pil under /usr/bin/python3.
      bin=$(covpipe)
      echo "# command: docs/bench/sitting.sh --count $count numpy" >> "$f"
      echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" >> "$f"
      sed -e '/^quick:/d' -e '/^methods:/q' configs/feret.yaml > "$tmp/feret-rsr.yaml"
      echo '  - {name: rsr, sigma: 0.5, lambda: 0.1, tolerance: 1e-4}' >> "$tmp/feret-rsr.yaml"
      proc "$f" feret-rsr-covpipe "$bin" run "$tmp/feret-rsr.yaml" --data "$data" --methods rsr --no-cache --out "$tmp/out"
      proc "$f" feret-rsr-numpy /usr/bin/python3 docs/bench/feret_numpy.py --data "$data/feret-b-32" --threads 2 ;;
    python)
      # covpipe's Python package on FERET-32 against the command (fit and
      # predict of configs/feret.yaml's rsr) and against the NumPy script
      # (fixed sigma and lambda), each pair alternating; then covpipe's
      # classifiers against pyRiemann's on the same descriptors, timed in
      # one process (docs/bench/README.md).
      bin=$(covpipe)
      python/build.sh >&2
      echo "# command: docs/bench/sitting.sh --count $count python" >> "$f"
      echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" >> "$f"
      feret="feret:$data/feret-b-32"
      cat > "$tmp/fit-predict.sh" <<EOF
rm -rf "$tmp/model" "$tmp/out" &&
"$bin" fit --config configs/feret.yaml --method rsr --where pose=ba,bj,bk --out "$tmp/model" "$feret" &&
"$bin" predict --model "$tmp/model" --where pose=bg,bf,be,bd --out "$tmp/out" "$feret"
EOF
      echo "# TMP/fit-predict.sh: $(sed "s#$tmp/covpipe#covpipe#g; s#$tmp/#TMP/#g" "$tmp/fit-predict.sh" | tr '\n' ' ')" >> "$f"
      py=(env PYTHONPATH=python /usr/bin/python3 docs/bench/feret_python.py)
      pair "$f" feret-cli sh "$tmp/fit-predict.sh" -- feret-python "${py[@]}" cli --data "$data/feret-b-32"
      pair "$f" feret-cli sh "$tmp/fit-predict.sh" -- feret-python-core "${py[@]}" cli --core --data "$data/feret-b-32"
      # One more run of each Python side, its accuracies and stage times.
      "${py[@]}" cli --data "$data/feret-b-32" | sed 's/^/# feret-python: /' >> "$f"
      "${py[@]}" cli --core --data "$data/feret-b-32" | sed 's/^/# feret-python-core: /' >> "$f"
      pair "$f" feret-rsr-python "${py[@]}" numpy --data "$data/feret-b-32" -- \
        feret-rsr-numpy /usr/bin/python3 docs/bench/feret_numpy.py --data "$data/feret-b-32" --threads 2
      "${py[@]}" numpy --data "$data/feret-b-32" | sed 's/^/# feret-rsr-python: /' >> "$f"
      /usr/bin/python3 docs/bench/feret_numpy.py --data "$data/feret-b-32" --threads 2 | sed 's/^/# feret-rsr-numpy: /' >> "$f"
      if [ -n "${PYRIEMANN:-}" ]; then
        echo "# command: PYTHONPATH=python:\$PYRIEMANN /usr/bin/python3 docs/bench/feret_python.py pyriemann --data $data/feret-b-32 --repeats $count" >> "$f"
        PYTHONPATH="python:$PYRIEMANN" /usr/bin/python3 docs/bench/feret_python.py pyriemann --data "$data/feret-b-32" --repeats "$count" | tee -a "$f" >&2
      else
        echo "sitting: python: PYRIEMANN is not set: pyRiemann's comparison left out" >&2
      fi ;;
    means)
      # spd's six means (BenchmarkMean, on FERET-32's training
      # descriptors through COVPIPE_SHARED_DATA) against
      # docs/bench/means_numpy.py on the same descriptors, described by
      # covpipe into a .npy, in one sitting: the two sides alternate,
      # count times each (docs/bench/README.md). Needs Debian's
      # python3-numpy, -scipy and -sklearn under /usr/bin/python3.
      bin=$(covpipe)
      echo "# command: docs/bench/sitting.sh --count $count means" >> "$f"
      echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" >> "$f"
      { echo path,label; for p in "$data"/feret-b-32/*b[ajk].png; do echo "$p,$(basename "$p" | cut -c1-5)"; done; } > "$tmp/train.csv"
      "$bin" describe --features face --ridge 1e-4 --ridge-kind trace-ridge --out "$tmp/feret-train" "csv:$tmp/train.csv" > /dev/null 2>&1
      gocmd=(go test -run '^$' -count 1 "${bt[@]}" -bench '^BenchmarkMean$' -cpu 2 ./spd)
      pycmd=(/usr/bin/python3 docs/bench/means_numpy.py --npy "$tmp/feret-train/descriptors.npy" --threads 2 --repeat 1)
      for _ in $(seq "$count"); do
        echo "# command: $(quote "${gocmd[@]}")" >> "$f"
        echo "sitting: $(quote "${gocmd[@]}")" >&2
        "${gocmd[@]}" | tee -a "$f" >&2
        echo "# command: /usr/bin/python3 docs/bench/means_numpy.py --npy TMP/feret-train/descriptors.npy --threads 2 --repeat 1" >> "$f"
        echo "sitting: ${pycmd[*]}" >&2
        "${pycmd[@]}" | tee -a "$f" >&2
      done ;;
    regions)
      # FERET-32 with one descriptor per face, with the nine 16×16 windows
      # of grid:3x3:16 fused by the sum rule alone, and configs/
      # feret-regions.yaml as shipped (ten regions, rule chosen by
      # cross-validation), each with the descriptors in the cache.
      bin=$(covpipe)
      echo "# command: docs/bench/sitting.sh --count $count regions" >> "$f"
      echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" >> "$f"
      sed -e 's/^    regions: .*/    regions: grid:3x3:16/' -e 's/^    fusion: .*/    fusion: [sum]/' configs/feret-regions.yaml > "$tmp/feret-nine.yaml"
      proc "$f" feret-one "$bin" run configs/feret.yaml --methods rsr,logE-SR,nn-stein --data "$data" --out "$tmp/out" --cache "$tmp/cache"
      proc "$f" feret-nine-sum "$bin" run "$tmp/feret-nine.yaml" --data "$data" --out "$tmp/out" --cache "$tmp/cache"
      proc "$f" feret-regions "$bin" run configs/feret-regions.yaml --data "$data" --out "$tmp/out" --cache "$tmp/cache" ;;
    feret-tsc)
      bin=$(covpipe)
      echo "# command: docs/bench/sitting.sh --count $count feret-tsc" >> "$f"
      echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" >> "$f"
      proc "$f" feret-tsc "$bin" run configs/feret.yaml --methods tsc --data "$data" --out "$tmp/out" --cache "$tmp/cache" ;;
    *) echo "sitting: unknown group $g" >&2; exit 2 ;;
  esac
  mv "$f" "$outdir/$g.txt"
  echo "sitting: wrote $outdir/$g.txt" >&2
done
