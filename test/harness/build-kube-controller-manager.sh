#!/usr/bin/env bash
# Builds kube-controller-manager (only its garbage collector is used: Argo CD prunes with foreground
# deletion, and nothing else removes the foregroundDeletion finalizer) from Go modules, at the
# Kubernetes version of build-kube-bins.sh, and caches it outside the repository. Prints the
# directory holding `kube-controller-manager` on its last line.
#
#   KUBE_CONTROLLER_MANAGER_ASSETS  use a directory already holding an executable kube-controller-manager
#   KUBE_TEST_BINS_CACHE            cache root (default: $XDG_CACHE_HOME/kube-test-bins or ~/.cache/kube-test-bins)
#   K8S_VERSION                     k8s.io/kubernetes version (default below, the same as build-kube-bins.sh)
#
# A module of its own (not another tool of build-kube-bins.sh's module), so that adding it does not
# invalidate the cached kube-apiserver; it starts from that module's go.mod and go.sum, so the
# versions are the same and the Go build cache is shared.
set -euo pipefail

if [ -n "${KUBE_CONTROLLER_MANAGER_ASSETS:-}" ]; then
  [ -x "$KUBE_CONTROLLER_MANAGER_ASSETS/kube-controller-manager" ] || {
    echo "KUBE_CONTROLLER_MANAGER_ASSETS=$KUBE_CONTROLLER_MANAGER_ASSETS has no executable kube-controller-manager" >&2; exit 1; }
  echo "$KUBE_CONTROLLER_MANAGER_ASSETS"; exit 0
fi

K8S_VERSION="${K8S_VERSION:-1.36.3}"
MINOR="$(echo "$K8S_VERSION" | cut -d. -f2)"
CACHE="${KUBE_TEST_BINS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-test-bins}"
SRC="$CACHE/src-kube-controller-manager-v$K8S_VERSION"
OUT="$CACHE/kube-controller-manager-v$K8S_VERSION"
export GOTOOLCHAIN=local CGO_ENABLED=0

cached() { [ -x "$OUT/kube-controller-manager" ]; }
if cached; then echo "$OUT"; exit 0; fi

command -v go >/dev/null || { echo "go is not installed: the Argo CD tests build kube-controller-manager with Go (or set KUBE_CONTROLLER_MANAGER_ASSETS)" >&2; exit 1; }

HERE="$(cd "$(dirname "$0")" && pwd)"
# The kube-apiserver module first (it flocks itself): its go.mod and go.sum are the starting point.
bash "$HERE/build-kube-bins.sh" >/dev/null
KSRC="$CACHE/src-v$K8S_VERSION"
[ -f "$KSRC/go.mod" ] || { echo "build-kube-bins.sh left no module in $KSRC (KUBE_TEST_ASSETS set? then set KUBE_CONTROLLER_MANAGER_ASSETS too)" >&2; exit 1; }

mkdir -p "$CACHE"
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.build-kube-controller-manager-v$K8S_VERSION.lock"
  flock 9
  if cached; then echo "$OUT"; exit 0; fi
fi

rm -rf "$OUT.tmp"
mkdir -p "$SRC" "$OUT.tmp"
start=$(date +%s)
echo "building kube-controller-manager v$K8S_VERSION into $OUT (first build takes minutes)" >&2
sed -e 's#^module .*#module local/kube-controller-manager#' -e '/^tool/,$d' "$KSRC/go.mod" > "$SRC/go.mod"
echo "tool k8s.io/kubernetes/cmd/kube-controller-manager" >> "$SRC/go.mod"
cp "$KSRC/go.sum" "$SRC/go.sum"
(cd "$SRC" && go mod tidy >&2)
LDF="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDF="$LDF -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$MINOR -X $p.gitTreeState=clean"
done
(cd "$SRC" && go build -trimpath -ldflags "$LDF" -o "$OUT.tmp/kube-controller-manager" k8s.io/kubernetes/cmd/kube-controller-manager >&2)
echo "kube-controller-manager: k8s.io/kubernetes@v$K8S_VERSION, built with $(go version | cut -d' ' -f3)" > "$OUT.tmp/SOURCE"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "built in $(( $(date +%s) - start ))s" >&2
echo "$OUT"
