#!/usr/bin/env bash
# Builds actionlint (the GitHub Actions workflow linter) from the Go module proxy and caches it
# outside the repository, like build-kube-bins.sh. Prints the directory holding `actionlint` on its
# last line.
#
#   ACTIONLINT_BIN        use this executable as it is; nothing is built (Go is then not needed)
#   KUBE_TEST_BINS_CACHE  cache root (default: $XDG_CACHE_HOME/kube-test-bins or ~/.cache/kube-test-bins)
#   ACTIONLINT_VERSION    version to build (default below)
set -euo pipefail

if [ -n "${ACTIONLINT_BIN:-}" ]; then
  [ -x "$ACTIONLINT_BIN" ] || { echo "ACTIONLINT_BIN=$ACTIONLINT_BIN is not an executable" >&2; exit 1; }
  dirname "$ACTIONLINT_BIN"; exit 0
fi

VERSION="${ACTIONLINT_VERSION:-1.7.12}"
CACHE="${KUBE_TEST_BINS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-test-bins}"
OUT="$CACHE/actionlint-v$VERSION"
export GOTOOLCHAIN=local CGO_ENABLED=0

# The binary is moved into place last, so its presence means a finished build; no Go needed then.
if [ -x "$OUT/actionlint" ]; then echo "$OUT"; exit 0; fi
command -v go >/dev/null || { echo "go is not installed: the workflow tests build actionlint with Go (or set ACTIONLINT_BIN)" >&2; exit 1; }

mkdir -p "$CACHE"
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.build-actionlint-v$VERSION.lock"
  flock 9
  if [ -x "$OUT/actionlint" ]; then echo "$OUT"; exit 0; fi
fi

start=$(date +%s)
echo "building actionlint v$VERSION into $OUT" >&2
rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp"
# `go install module@version` builds in module mode from the proxy, ignoring any go.mod around.
GOBIN="$OUT.tmp" go install -trimpath -ldflags "-s -w" "github.com/rhysd/actionlint/cmd/actionlint@v$VERSION" >&2
echo "github.com/rhysd/actionlint/cmd/actionlint@v$VERSION" > "$OUT.tmp/SOURCE"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "built in $(( $(date +%s) - start ))s" >&2
echo "$OUT"
