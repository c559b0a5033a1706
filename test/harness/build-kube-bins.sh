#!/usr/bin/env bash
# Builds kube-apiserver, kubectl and etcd from Go modules (no prebuilt downloads) and caches them
# outside the repository. Prints the directory holding the binaries on its last line.
#
#   KUBE_TEST_ASSETS      use binaries already there (kube-apiserver, etcd, kubectl); nothing is built
#                         (Go is then not needed)
#   KUBE_TEST_BINS_CHECK_ONLY  when set: print the folder if already built, else exit 3 without building
#   KUBE_TEST_BINS_CACHE  cache root (default: $XDG_CACHE_HOME/kube-test-bins or ~/.cache/kube-test-bins)
#   K8S_VERSION           k8s.io/kubernetes version to build (default below)
set -euo pipefail

if [ -n "${KUBE_TEST_ASSETS:-}" ]; then
  for b in kube-apiserver etcd kubectl; do
    [ -x "$KUBE_TEST_ASSETS/$b" ] || { echo "KUBE_TEST_ASSETS=$KUBE_TEST_ASSETS has no executable $b" >&2; exit 1; }
  done
  echo "$KUBE_TEST_ASSETS"; exit 0
fi

K8S_VERSION="${K8S_VERSION:-1.36.3}"
STAGING_VERSION="0.${K8S_VERSION#1.}"
MINOR="$(echo "$K8S_VERSION" | cut -d. -f2)"
CACHE="${KUBE_TEST_BINS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-test-bins}"
SRC="$CACHE/src-v$K8S_VERSION"
OUT="$CACHE/v$K8S_VERSION"
export GOTOOLCHAIN=local CGO_ENABLED=0

cached() {
  [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ] && [ -x "$OUT/kubectl" ] || return 1
  local v; v="$("$OUT/kube-apiserver" --version 2>/dev/null)" || return 1
  [ "$v" = "Kubernetes v$K8S_VERSION" ]
}
# The cache check comes first: cached binaries need no Go.
if cached; then echo "$OUT"; exit 0; fi
if [ -n "${KUBE_TEST_BINS_CHECK_ONLY:-}" ]; then echo "kube-apiserver, etcd and kubectl not built in $OUT: run bash $0" >&2; exit 3; fi

command -v go >/dev/null || { echo "go is not installed: the test harness builds kube-apiserver and etcd with Go (or set KUBE_TEST_ASSETS)" >&2; exit 1; }

# Several test processes may call this at once: one builds, the others wait and then reuse it.
mkdir -p "$CACHE"
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.build-v$K8S_VERSION.lock"
  flock 9
  if cached; then echo "$OUT"; exit 0; fi
fi

mkdir -p "$SRC" "$OUT"
start=$(date +%s)
echo "building kube-apiserver, kubectl and etcd v$K8S_VERSION into $OUT (first build takes a while)" >&2

# k8s.io/kubernetes's own go.mod lists its staging modules; we replace each by its published tag.
KMOD="$(cd "$SRC" && go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/.*"GoMod": "\([^"]*\)".*/\1/p')"
[ -f "$KMOD" ] || { echo "could not download the go.mod of k8s.io/kubernetes@v$K8S_VERSION" >&2; exit 1; }
GOLINE="$(sed -n 's/^go \(.*\)$/\1/p' "$KMOD")"
GODEBUGLINE="$(grep '^godebug ' "$KMOD" || true)"
STAGING="$(sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\) => \./staging/src/.*#\1#p' "$KMOD")"

{
  echo "module local/kube-test-bins"; echo
  echo "go $GOLINE"; [ -n "$GODEBUGLINE" ] && echo "$GODEBUGLINE"; echo
  echo "require k8s.io/kubernetes v$K8S_VERSION"; echo
  echo "replace ("
  for m in $STAGING; do printf '\t%s => %s v%s\n' "$m" "$m" "$STAGING_VERSION"; done
  echo ")"; echo
  echo "tool ("
  printf '\tk8s.io/kubernetes/cmd/kube-apiserver\n'
  printf '\tk8s.io/kubernetes/cmd/kubectl\n'
  printf '\tgo.etcd.io/etcd/server/v3\n'
  echo ")"
} > "$SRC/go.mod"
(cd "$SRC" && go mod tidy >&2)

LDF="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDF="$LDF -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$MINOR -X $p.gitTreeState=clean"
done
(cd "$SRC" && go build -trimpath -ldflags "$LDF" -o "$OUT/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl >&2)
(cd "$SRC" && go build -trimpath -ldflags "-s -w" -o "$OUT/etcd" go.etcd.io/etcd/server/v3 >&2)
"$OUT/kube-apiserver" --version >&2
echo "built in $(( $(date +%s) - start ))s" >&2
echo "$OUT"
