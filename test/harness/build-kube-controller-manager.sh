#!/usr/bin/env bash
# Builds kube-controller-manager from Go modules (no prebuilt downloads) and caches it next to the
# binaries of build-kube-bins.sh. Prints the directory holding it on its last line. Tests run it with
# only the controllers they need (e.g. `--controllers=endpointslicemirroring`), to see what Kubernetes
# itself does to the objects mirrorc writes.
#
#   KUBE_TEST_ASSETS      use a kube-controller-manager already there; nothing is built
#   KUBE_TEST_BINS_CACHE  cache root (default: $XDG_CACHE_HOME/kube-test-bins or ~/.cache/kube-test-bins)
#   K8S_VERSION           k8s.io/kubernetes version to build (default: the one build-kube-bins.sh builds)
set -euo pipefail

if [ -n "${KUBE_TEST_ASSETS:-}" ]; then
  [ -x "$KUBE_TEST_ASSETS/kube-controller-manager" ] || { echo "KUBE_TEST_ASSETS=$KUBE_TEST_ASSETS has no executable kube-controller-manager" >&2; exit 1; }
  echo "$KUBE_TEST_ASSETS"; exit 0
fi

K8S_VERSION="${K8S_VERSION:-1.36.3}"
MINOR="$(echo "$K8S_VERSION" | cut -d. -f2)"
CACHE="${KUBE_TEST_BINS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-test-bins}"
SRC="$CACHE/src-kcm-v$K8S_VERSION"
OUT="$CACHE/v$K8S_VERSION"
export GOTOOLCHAIN=local CGO_ENABLED=0

cached() {
  [ -x "$OUT/kube-controller-manager" ] || return 1
  local v; v="$("$OUT/kube-controller-manager" --version 2>/dev/null)" || return 1
  [ "$v" = "Kubernetes v$K8S_VERSION" ]
}
if cached; then echo "$OUT"; exit 0; fi

# The apiserver's wrapper module (its go.mod: k8s.io/kubernetes plus its staging replacements) comes first.
K8S_VERSION="$K8S_VERSION" bash "$(dirname "$0")/build-kube-bins.sh" >/dev/null
command -v go >/dev/null || { echo "go is not installed: kube-controller-manager is built with Go (or set KUBE_TEST_ASSETS)" >&2; exit 1; }

mkdir -p "$CACHE"
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.build-kcm-v$K8S_VERSION.lock"
  flock 9
  if cached; then echo "$OUT"; exit 0; fi
fi

start=$(date +%s)
echo "building kube-controller-manager v$K8S_VERSION into $OUT" >&2
mkdir -p "$SRC"
# Same requirements and replacements as the apiserver's module, another tool.
sed -e 's#^module .*#module local/kube-test-kcm#' -e '/^tool (/,/^)/d' "$CACHE/src-v$K8S_VERSION/go.mod" > "$SRC/go.mod"
printf 'tool k8s.io/kubernetes/cmd/kube-controller-manager\n' >> "$SRC/go.mod"
cp "$CACHE/src-v$K8S_VERSION/go.sum" "$SRC/go.sum"
(cd "$SRC" && go mod tidy >&2)
LDF="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDF="$LDF -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$MINOR -X $p.gitTreeState=clean"
done
(cd "$SRC" && go build -trimpath -ldflags "$LDF" -o "$OUT/" k8s.io/kubernetes/cmd/kube-controller-manager >&2)
"$OUT/kube-controller-manager" --version >&2
echo "built in $(( $(date +%s) - start ))s" >&2
echo "$OUT"
