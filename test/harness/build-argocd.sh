#!/usr/bin/env bash
# Builds a real Argo CD (one `argocd` binary that is the repo-server, the application-controller
# and the applicationset-controller: Argo CD's own commands behind argocd-main/main.go next to this
# file, which links only those, not the API server, CLI, Dex or notifications) from Go modules, plus what its container image bundles and the
# repo-server execs: kustomize, git-verify-wrapper.sh and gpg-wrapper.sh; and copies Argo CD's own
# manifests/install.yaml. Caches it all outside the repository. Prints the directory holding
# `argocd`, `kustomize`, the two wrapper scripts and `install.yaml` on its last line.
#
#   ARGOCD_ASSETS         use a directory already holding those files; nothing is built
#   KUBE_TEST_BINS_CHECK_ONLY  when set: print the folder if already built, else exit 3 without building
#   KUBE_TEST_BINS_CACHE  cache root (default: $XDG_CACHE_HOME/kube-test-bins or ~/.cache/kube-test-bins)
#   ARGOCD_VERSION        github.com/argoproj/argo-cd/v3 version (default below)
#   ARGOCD_GOTOOLCHAIN    Go toolchain for it (default below: Argo CD 3.6 needs Go >= 1.27; the go
#                         command fetches that toolchain through the module proxy)
#   KUSTOMIZE_VERSION     sigs.k8s.io/kustomize/kustomize/v5 version (default below: Argo CD 3.6.1 pins
#                         5.8.3, one of whose dependencies' pseudo-versions the module proxy refuses)
#
# Why a main of our own: Argo CD's cmd/main.go links every component; the harness runs three. Linking
# only those cuts the cold build (the API server alone pulls in Dex, the UI assets and the notifications
# engine). The main's hash is part of the cache key: a changed main.go is a new build folder.
#
# Why a wrapper module: `go install github.com/argoproj/argo-cd/v3/cmd@v3.6.1` is refused because
# argo-cd's go.mod has replace directives (one of them to its local ./gitops-engine folder). A module
# that requires it and repeats those replaces builds it; the ./gitops-engine replace becomes the
# published github.com/argoproj/argo-cd/gitops-engine/v3 of the same version (3.6), or is dropped so
# that the pseudo-version argo-cd requires is used. That makes 3.5 and 3.4 unbuildable here: they
# require github.com/argoproj/argo-cd/gitops-engine v0.7.1-0.20250908182407-97ad5b59a627, which the
# module proxy refuses (403 "This module version is not available"; docs/argocd.md, "Argo CD versions").
set -euo pipefail

need_assets() {
  local f
  for f in argocd kustomize git-verify-wrapper.sh gpg-wrapper.sh; do [ -x "$1/$f" ] || return 1; done
  [ -f "$1/install.yaml" ]
}

if [ -n "${ARGOCD_ASSETS:-}" ]; then
  need_assets "$ARGOCD_ASSETS" || {
    echo "ARGOCD_ASSETS=$ARGOCD_ASSETS needs executable argocd, kustomize, git-verify-wrapper.sh, gpg-wrapper.sh and install.yaml" >&2; exit 1; }
  echo "$ARGOCD_ASSETS"; exit 0
fi

VERSION="${ARGOCD_VERSION:-3.6.1}"
KVERSION="${KUSTOMIZE_VERSION:-5.8.2}"
MODULE=github.com/argoproj/argo-cd/v3
HERE="$(cd "$(dirname "$0")" && pwd)"
MAIN="$HERE/argocd-main/main.go"
MAINKEY="$(sha256sum "$MAIN" | cut -c1-12)"
CACHE="${KUBE_TEST_BINS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-test-bins}"
SRC="$CACHE/src-argocd-v$VERSION-main-$MAINKEY"
OUT="$CACHE/argocd-v$VERSION-main-$MAINKEY-kustomize-v$KVERSION"
export GOTOOLCHAIN="${ARGOCD_GOTOOLCHAIN:-go1.27.3}" CGO_ENABLED=0

# The binaries are moved into place last, so a present OUT means a finished build.
cached() { need_assets "$OUT"; }
# The cache check comes first: a cached Argo CD needs no Go.
if cached; then echo "$OUT"; exit 0; fi
if [ -n "${KUBE_TEST_BINS_CHECK_ONLY:-}" ]; then echo "Argo CD not built in $OUT: run bash $0" >&2; exit 3; fi

command -v go >/dev/null || { echo "go is not installed: the Argo CD tests build Argo CD with Go (or set ARGOCD_ASSETS)" >&2; exit 1; }

# Several test processes may call this at once: one builds, the others wait and then reuse it.
mkdir -p "$CACHE"
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.build-argocd-v$VERSION-main-$MAINKEY-kustomize-v$KVERSION.lock"
  flock 9
  if cached; then echo "$OUT"; exit 0; fi
fi

rm -rf "$OUT.tmp"
mkdir -p "$SRC/download" "$OUT.tmp"
start=$(date +%s)
echo "building Argo CD v$VERSION and kustomize v$KVERSION into $OUT (a cold build takes tens of minutes)" >&2

# Downloads run in an empty folder outside any module: module@version lookups only.
ADIR="$(cd "$SRC/download" && go mod download -json "$MODULE@v$VERSION" | sed -n 's/.*"Dir": "\([^"]*\)".*/\1/p')"
[ -f "$ADIR/go.mod" ] || { echo "could not download $MODULE@v$VERSION" >&2; exit 1; }
for f in hack/git-verify-wrapper.sh hack/gpg-wrapper.sh manifests/install.yaml; do
  [ -f "$ADIR/$f" ] || { echo "$MODULE@v$VERSION has no $f" >&2; exit 1; }
done

GOLINE="$(sed -n 's/^go \(.*\)$/\1/p' "$ADIR/go.mod")"
REPLACES="$(awk '
  /^replace \(/ { inblock = 1; next }
  inblock && /^\)/ { inblock = 0; next }
  inblock && /=>/ { print; next }
  /^replace .*=>/ { sub(/^replace /, ""); print }
' "$ADIR/go.mod" | sed 's/^[[:space:]]*//' \
  | sed 's#^github.com/argoproj/argo-cd/gitops-engine/v3 => \./gitops-engine$#github.com/argoproj/argo-cd/gitops-engine/v3 => github.com/argoproj/argo-cd/gitops-engine/v3 v'"$VERSION"'#' \
  | grep -v '=> \./gitops-engine$' || true)"
{
  echo "module local/argocd"; echo
  echo "go $GOLINE"; echo
  echo "require $MODULE v$VERSION"; echo
  echo "replace ("
  printf '%s\n' "$REPLACES" | sed 's/^/\t/'
  echo ")"
} > "$SRC/go.mod"
cp "$MAIN" "$SRC/main.go"
chmod u+w "$SRC/main.go"
# Start from Argo CD's own checksums so tidy resolves the versions it was released with;
# -e: a few test-only dependencies of its dependencies are refused by the module proxy.
cp "$ADIR/go.sum" "$SRC/go.sum"
chmod u+w "$SRC/go.sum"
(cd "$SRC" && go mod tidy -e >&2)
(cd "$SRC" && go build -trimpath -ldflags "-s -w -X $MODULE/common.version=$VERSION" -o "$OUT.tmp/argocd" . >&2)

# kustomize: a plain module without replace directives; built in its own empty folder so
# `go install module@version` resolves it alone.
(cd "$SRC/download" && GOBIN="$OUT.tmp" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kustomize/kustomize/v5@v$KVERSION" >&2)

cp "$ADIR/hack/git-verify-wrapper.sh" "$ADIR/hack/gpg-wrapper.sh" "$ADIR/manifests/install.yaml" "$OUT.tmp/"
chmod -R u+w "$OUT.tmp"
chmod +x "$OUT.tmp/git-verify-wrapper.sh" "$OUT.tmp/gpg-wrapper.sh"
echo "argocd: test/harness/argocd-main/main.go ($MAINKEY) over $MODULE@v$VERSION cmd/{argocd-repo-server,argocd-application-controller,argocd-applicationset-controller,argocd-git-ask-pass}/commands (gitops-engine: github.com/argoproj/argo-cd/gitops-engine/v3@v$VERSION), built with $(go version | cut -d' ' -f3); kustomize: sigs.k8s.io/kustomize/kustomize/v5@v$KVERSION; git-verify-wrapper.sh, gpg-wrapper.sh, install.yaml: from $MODULE@v$VERSION" > "$OUT.tmp/SOURCE"

rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "built in $(( $(date +%s) - start ))s" >&2
echo "$OUT"
