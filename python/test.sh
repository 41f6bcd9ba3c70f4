#!/bin/sh
# Tests covpipe from Python: builds libcovpipe into python/covpipe/_lib
# (build.sh) and the covpipe command into a temporary folder, runs the ABI's
# Go tests, then pytest on python/tests with Debian's Python (PYTHON,
# default /usr/bin/python3, with python3-numpy, python3-sklearn and
# python3-pytest). It installs nothing. Extra arguments go to pytest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-/usr/bin/python3}
"$here/build.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$here/.." && go build -o "$tmp/covpipe" ./cmd/covpipe && go test ./cmd/libcovpipe)
cd "$here"
COVPIPE_BIN="$tmp/covpipe" PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" "$python" -m pytest -q -p no:cacheprovider tests "$@"
