#!/usr/bin/env bash
# Builds argocd-resource-filter (argocd-resource-filter/main.go next to this file: Argo CD's own
# util/settings code reading argocd-cm from a cluster) against Argo CD's Go module, and caches it
# outside the repository. Prints the directory holding `argocd-resource-filter` on its last line.
#
#   ARGOCD_TEST_ASSETS    use a directory already holding an executable argocd-resource-filter; nothing is built
#   KUBE_TEST_BINS_CACHE  cache root (default: $XDG_CACHE_HOME/kube-test-bins or ~/.cache/kube-test-bins)
#   ARGOCD_VERSION        github.com/argoproj/argo-cd/v3 version (default below)
#   ARGOCD_GOTOOLCHAIN    Go toolchain for it (default below: Argo CD 3.6 needs Go >= 1.27; the go
#                         command fetches that toolchain through the module proxy)
set -euo pipefail

if [ -n "${ARGOCD_TEST_ASSETS:-}" ]; then
  [ -x "$ARGOCD_TEST_ASSETS/argocd-resource-filter" ] || { echo "ARGOCD_TEST_ASSETS=$ARGOCD_TEST_ASSETS has no executable argocd-resource-filter" >&2; exit 1; }
  echo "$ARGOCD_TEST_ASSETS"; exit 0
fi

VERSION="${ARGOCD_VERSION:-3.6.1}"
MODULE=github.com/argoproj/argo-cd/v3
HERE="$(cd "$(dirname "$0")" && pwd)"
MAIN="$HERE/argocd-resource-filter/main.go"
# The program's own hash is part of the cache key: a changed main.go is rebuilt.
KEY="v$VERSION-$(sha256sum "$MAIN" | cut -c1-12)"
CACHE="${KUBE_TEST_BINS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-test-bins}"
SRC="$CACHE/src-argocd-resource-filter-$KEY"
OUT="$CACHE/argocd-resource-filter-$KEY"
export GOTOOLCHAIN="${ARGOCD_GOTOOLCHAIN:-go1.27.3}" CGO_ENABLED=0

cached() { [ -x "$OUT/argocd-resource-filter" ]; }
if cached; then echo "$OUT"; exit 0; fi

command -v go >/dev/null || { echo "go is not installed: the Argo CD settings test builds Argo CD's settings code with Go (or set ARGOCD_TEST_ASSETS)" >&2; exit 1; }

mkdir -p "$CACHE"
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.build-argocd-resource-filter-$KEY.lock"
  flock 9
  if cached; then echo "$OUT"; exit 0; fi
fi

rm -rf "$OUT.tmp"
mkdir -p "$SRC/download" "$OUT.tmp"
start=$(date +%s)
echo "building argocd-resource-filter against $MODULE@v$VERSION into $OUT (first build takes minutes)" >&2

ADIR="$(cd "$SRC/download" && go mod download -json "$MODULE@v$VERSION" | sed -n 's/.*"Dir": "\([^"]*\)".*/\1/p')"
[ -f "$ADIR/go.mod" ] || { echo "could not download $MODULE@v$VERSION" >&2; exit 1; }

# Argo CD's go.mod replaces its gitops-engine with ./gitops-engine: the published module of the same
# version stands in for it; every other replace is repeated as it is.
GOLINE="$(sed -n 's/^go \(.*\)$/\1/p' "$ADIR/go.mod")"
REPLACES="$(awk '
  /^replace \(/ { inblock = 1; next }
  inblock && /^\)/ { inblock = 0; next }
  inblock && /=>/ { print; next }
  /^replace .*=>/ { sub(/^replace /, ""); print }
' "$ADIR/go.mod" | sed 's#=> \./gitops-engine$#=> github.com/argoproj/argo-cd/gitops-engine/v3 v'"$VERSION"'#' | sed 's/^[[:space:]]*//')"
{
  echo "module local/argocd-resource-filter"; echo
  echo "go $GOLINE"; echo
  echo "require $MODULE v$VERSION"; echo
  echo "replace ("
  printf '%s\n' "$REPLACES" | sed 's/^/\t/'
  echo ")"
} > "$SRC/go.mod"
cp "$MAIN" "$SRC/main.go"
cp "$ADIR/go.sum" "$SRC/go.sum"
chmod u+w "$SRC/go.sum" "$SRC/main.go"
(cd "$SRC" && go mod tidy -e >&2)
(cd "$SRC" && go build -trimpath -ldflags "-s -w" -o "$OUT.tmp/argocd-resource-filter" . >&2)
echo "argocd-resource-filter: $MODULE@v$VERSION util/settings, built with $(go version | cut -d' ' -f3)" > "$OUT.tmp/SOURCE"

rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "built in $(( $(date +%s) - start ))s" >&2
echo "$OUT"
