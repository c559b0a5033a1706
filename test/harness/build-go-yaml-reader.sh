#!/usr/bin/env bash
# Builds go-yaml-reader (go-yaml-reader/main.go next to this file: Go's YAML readers, gopkg.in/yaml.v3
# and sigs.k8s.io/yaml, asked how they read a plain scalar) at the versions pinned in its go.mod and
# go.sum, and caches it outside the repository. Prints the directory holding `go-yaml-reader` on its
# last line. A cold build (module downloads included) took 52 s here.
#
#   KUBE_TEST_BINS_CACHE  cache root (default: $XDG_CACHE_HOME/kube-test-bins or ~/.cache/kube-test-bins)
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)/go-yaml-reader"
# The program's sources are the cache key: a changed main.go, go.mod or go.sum is rebuilt.
KEY="$(cat "$HERE/main.go" "$HERE/go.mod" "$HERE/go.sum" | sha256sum | cut -c1-12)"
CACHE="${KUBE_TEST_BINS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-test-bins}"
OUT="$CACHE/go-yaml-reader-$KEY"
export CGO_ENABLED=0

cached() { [ -x "$OUT/go-yaml-reader" ]; }
if cached; then echo "$OUT"; exit 0; fi

command -v go >/dev/null || export PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || { echo "go is not installed: the YAML writer's test builds Go's YAML readers with Go" >&2; exit 1; }

mkdir -p "$CACHE"
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.build-go-yaml-reader-$KEY.lock"
  flock 9
  if cached; then echo "$OUT"; exit 0; fi
fi

rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp"
start=$(date +%s)
echo "building go-yaml-reader into $OUT" >&2
# -mod=readonly: the pinned go.sum is the truth; a module that does not match it fails the build.
(cd "$HERE" && go build -mod=readonly -trimpath -ldflags "-s -w" -o "$OUT.tmp/go-yaml-reader" . >&2)
echo "go-yaml-reader: gopkg.in/yaml.v3 and sigs.k8s.io/yaml as pinned in go.mod, built with $(go version | cut -d' ' -f3)" > "$OUT.tmp/SOURCE"

rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "built in $(( $(date +%s) - start ))s" >&2
echo "$OUT"
