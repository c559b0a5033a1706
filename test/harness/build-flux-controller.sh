#!/usr/bin/env bash
# Builds Flux's kustomize-controller from Go modules (no prebuilt downloads) and caches it outside
# the repository, next to the CRDs it needs (its own Kustomization CRD and every source CRD, copied
# from the downloaded modules). Prints the directory holding `kustomize-controller` and `crds/` on
# its last line.
#
#   FLUX_TEST_ASSETS      use a directory already holding an executable kustomize-controller and a
#                         crds/ folder; nothing is built (Go is then not needed)
#   KUBE_TEST_BINS_CHECK_ONLY  when set: print the folder if already built, else exit 3 without building
#   KUBE_TEST_BINS_CACHE  cache root (default: $XDG_CACHE_HOME/kube-test-bins or ~/.cache/kube-test-bins)
#   FLUX_KC_VERSION       kustomize-controller version to build (default below)
#
# Why a wrapper module: `go install github.com/fluxcd/kustomize-controller@v1.9.6` is refused because
# its go.mod has replace directives. A module that requires it and repeats those replaces builds it.
# v1.9.6 is the newest that builds with Go 1.26: v1.10.x requires Go >= 1.27.
set -euo pipefail

need_assets() {
  [ -x "$1/kustomize-controller" ] && [ -f "$1/crds/kustomize.toolkit.fluxcd.io_kustomizations.yaml" ] \
    && [ -f "$1/crds/source.toolkit.fluxcd.io_gitrepositories.yaml" ]
}

if [ -n "${FLUX_TEST_ASSETS:-}" ]; then
  need_assets "$FLUX_TEST_ASSETS" || {
    echo "FLUX_TEST_ASSETS=$FLUX_TEST_ASSETS has no executable kustomize-controller and crds/ (kustomizations and source CRDs)" >&2; exit 1; }
  echo "$FLUX_TEST_ASSETS"; exit 0
fi

VERSION="${FLUX_KC_VERSION:-1.9.6}"
MODULE=github.com/fluxcd/kustomize-controller
CACHE="${KUBE_TEST_BINS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-test-bins}"
SRC="$CACHE/src-flux-kustomize-controller-v$VERSION"
OUT="$CACHE/flux-kustomize-controller-v$VERSION"
export GOTOOLCHAIN=local CGO_ENABLED=0

# The binary is written last, so its presence means a finished build.
cached() { need_assets "$OUT"; }
# The cache check comes first: a cached controller needs no Go.
if cached; then echo "$OUT"; exit 0; fi
if [ -n "${KUBE_TEST_BINS_CHECK_ONLY:-}" ]; then echo "kustomize-controller not built in $OUT: run bash $0" >&2; exit 3; fi

command -v go >/dev/null || { echo "go is not installed: the Flux tests build kustomize-controller with Go (or set FLUX_TEST_ASSETS)" >&2; exit 1; }

# Several test processes may call this at once: one builds, the others wait and then reuse it.
mkdir -p "$CACHE"
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.build-flux-kustomize-controller-v$VERSION.lock"
  flock 9
  if cached; then echo "$OUT"; exit 0; fi
fi

rm -rf "$OUT.tmp"
mkdir -p "$SRC/download" "$OUT.tmp/crds"
start=$(date +%s)
echo "building Flux kustomize-controller v$VERSION into $OUT (first build takes 5-20 minutes)" >&2

# Downloads run in an empty folder outside any module: module@version lookups only.
dir_of() { (cd "$SRC/download" && go mod download -json "$1" | sed -n 's/.*"Dir": "\([^"]*\)".*/\1/p'); }
KDIR="$(dir_of "$MODULE@v$VERSION")"
[ -f "$KDIR/go.mod" ] || { echo "could not download $MODULE@v$VERSION" >&2; exit 1; }
KMOD="$KDIR/go.mod"

# The wrapper repeats the controller's replace directives; its ./api replace points at the
# published api module of the same version.
GOLINE="$(sed -n 's/^go \(.*\)$/\1/p' "$KMOD")"
REPLACES="$(awk '
  /^replace \(/ { inblock = 1; next }
  inblock && /^\)/ { inblock = 0; next }
  inblock && /=>/ { print; next }
  /^replace .*=>/ { sub(/^replace /, ""); print }
' "$KMOD" | sed "s#=> \./api\$#=> $MODULE/api v$VERSION#" | sed 's/^[[:space:]]*//')"
{
  echo "module local/flux-kustomize-controller"; echo
  echo "go $GOLINE"; echo
  echo "require $MODULE v$VERSION"; echo
  echo "replace ("
  printf '%s\n' "$REPLACES" | sed 's/^/\t/'
  echo ")"; echo
  echo "tool $MODULE"
} > "$SRC/go.mod"
# Start from the controller's own checksums so tidy resolves the versions it was released with;
# -e: a few test-only dependencies of its dependencies are refused by the module proxy.
cp "$KDIR/go.sum" "$SRC/go.sum"
chmod u+w "$SRC/go.sum"
(cd "$SRC" && go mod tidy -e >&2)
(cd "$SRC" && go build -trimpath -ldflags "-s -w" -o "$OUT.tmp/kustomize-controller" "$MODULE" >&2)

# CRDs: the controller's Kustomization and every source kind it watches (it exits at start-up with
# `no matches for kind "OCIRepository"` when one is missing), from the source-controller release
# whose api module the controller requires.
cp "$KDIR"/config/crd/bases/*.yaml "$OUT.tmp/crds/"
SCVERSION="$(cd "$SRC" && go list -m -f '{{.Version}}' github.com/fluxcd/source-controller/api)"
SDIR="$(dir_of "github.com/fluxcd/source-controller@$SCVERSION")"
[ -d "$SDIR/config/crd/bases" ] || { echo "could not download github.com/fluxcd/source-controller@$SCVERSION for its CRDs" >&2; exit 1; }
cp "$SDIR"/config/crd/bases/*.yaml "$OUT.tmp/crds/"
chmod -R u+w "$OUT.tmp"
echo "kustomize-controller $MODULE@v$VERSION; CRDs from it and github.com/fluxcd/source-controller@$SCVERSION" > "$OUT.tmp/SOURCE"

rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "built in $(( $(date +%s) - start ))s" >&2
echo "$OUT"
