#!/usr/bin/env bash
# Install the draw.io renderer's JavaScript (the mxgraph npm package, the engine draw.io is built on)
# into a folder the project owns, outside the repository. Called by install-system.sh; safe to re-run.
set -euo pipefail

MXGRAPH_VERSION=4.2.2
dir="${ASIL_DRAWIO_RENDERER_DIR:-$HOME/.cache/asil/drawio-renderer}"
client="$dir/node_modules/mxgraph/javascript/mxClient.min.js"

if [ -f "$client" ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "The draw.io renderer needs npm (apt-get install npm) to fetch mxgraph@$MXGRAPH_VERSION." >&2
  exit 1
fi
mkdir -p "$dir"
echo "Installing mxgraph@$MXGRAPH_VERSION into $dir"
npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts --silent "mxgraph@$MXGRAPH_VERSION"
