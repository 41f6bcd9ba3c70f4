#!/bin/sh
# Builds covpipe's C ABI into the Python package: python/covpipe/_lib/libcovpipe.so.
# Needs Go (and a C compiler for cgo); run from anywhere.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
CGO_ENABLED=1 go build -trimpath -buildmode=c-shared -o python/covpipe/_lib/libcovpipe.so ./cmd/libcovpipe
rm -f python/covpipe/_lib/libcovpipe.h
echo "built $here/covpipe/_lib/libcovpipe.so"
