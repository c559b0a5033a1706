#!/usr/bin/env bash
# Installs a Node.js major from the npm registry's `node` package (its binary comes in the
# node-<platform>-<arch> package that `node` depends on: no download from anywhere else) and caches
# it outside the repository. Prints the path of the `node` binary on its last line.
#
#   install-node.sh <major>          e.g. 22, 24, 18
#   MIRRORC_TEST_NODE_CACHE          cache root (default: $XDG_CACHE_HOME/mirrorc-test-node or ~/.cache/mirrorc-test-node)
set -euo pipefail
MAJOR="${1:?usage: install-node.sh <major>}"
case "$MAJOR" in *[!0-9]*) echo "install-node.sh: the major must be a number, not $MAJOR" >&2; exit 2 ;; esac
CACHE="${MIRRORC_TEST_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mirrorc-test-node}"
DIR="$CACHE/$MAJOR"
BIN="$DIR/node_modules/node/bin/node"

cached() { [ -x "$BIN" ] && [ "$("$BIN" -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = "$MAJOR" ]; }
if cached; then echo "$BIN"; exit 0; fi

# Several test processes may call this at once: one installs, the others wait and then reuse it.
mkdir -p "$CACHE"
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.install-$MAJOR.lock"
  flock 9
  if cached; then echo "$BIN"; exit 0; fi
fi
rm -rf "$DIR"
mkdir -p "$DIR"
echo '{"name":"mirrorc-test-node","private":true}' > "$DIR/package.json"
# The `node` package's install script installs node-<platform>-<arch>@<version> with npm itself.
(cd "$DIR" && npm install --no-audit --no-fund --no-save "node@$MAJOR" >&2)
cached || { echo "install-node.sh: node@$MAJOR from the npm registry did not give a working Node $MAJOR at $BIN" >&2; exit 1; }
echo "$BIN"
