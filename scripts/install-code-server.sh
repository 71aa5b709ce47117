#!/usr/bin/env bash
# Install code-server (VS Code in the browser, from the npm registry) into a folder the project owns,
# outside the repository. Called by install-system.sh; safe to re-run (it exits at once when present).
#
# code-server's install runs `npm install` inside its bundled VS Code, whose dependencies fetch things
# from outside the package registries; this script supplies each of them locally:
#   * @vscode/ripgrep downloads a ripgrep release from GitHub unless the release archive is already in
#     its download cache ($TMPDIR/vscode-ripgrep-cache-<version>/); we put Debian's /usr/bin/rg there.
#   * node-gyp downloads Node's headers unless told where they are (Debian's nodejs ships them).
#   * argon2's prebuilt download fails and it falls back to building from source (build tools needed).
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
RIPGREP_PACKAGE_VERSION=1.15.11   # the @vscode/ripgrep version code-server 4.100.3's VS Code pins
RIPGREP_RELEASE=v13.0.0-10        # the ripgrep-prebuilt release that package version downloads
dir="${ASIL_CODE_SERVER_DIR:-$HOME/.cache/asil/code-server}"
entry="$dir/node_modules/code-server/out/node/entry.js"

if [ -f "$entry" ] && [ -f "$dir/.installed-$CODE_SERVER_VERSION" ]; then
  exit 0
fi
for tool in npm node rg make g++ python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "code-server's install needs '$tool' (see scripts/install-system.sh)." >&2
    exit 1
  fi
done
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" != "20" ]; then
  echo "code-server $CODE_SERVER_VERSION needs Node 20; this machine has Node $node_major." >&2
  exit 1
fi

case "$(uname -m)" in
  x86_64) rg_target=x86_64-unknown-linux-musl ;;
  aarch64) rg_target=aarch64-unknown-linux-musl ;;
  *) echo "code-server install: no ripgrep mapping for $(uname -m)." >&2; exit 1 ;;
esac

# A private temporary folder, so the seeded ripgrep cache and build leftovers stay ours.
tmp="$dir/tmp"
mkdir -p "$tmp/vscode-ripgrep-cache-$RIPGREP_PACKAGE_VERSION" "$tmp/rg-stage"
cp "$(command -v rg)" "$tmp/rg-stage/rg"
tar czf "$tmp/vscode-ripgrep-cache-$RIPGREP_PACKAGE_VERSION/ripgrep-$RIPGREP_RELEASE-$rg_target.tar.gz" \
  -C "$tmp/rg-stage" rg

nodedir=/usr
if [ ! -f "$nodedir/include/node/node.h" ]; then
  echo "code-server install: Node's headers are missing from $nodedir/include/node (apt-get install libnode-dev)." >&2
  exit 1
fi

echo "Installing code-server@$CODE_SERVER_VERSION into $dir (builds native modules; takes minutes)"
export TMPDIR="$tmp"
export npm_config_unsafe_perm=true   # we may be root; its postinstall must still run
export npm_config_yes=true
export npm_config_nodedir="$nodedir" # node-gyp: use the local headers instead of downloading them
export npm_config_update_notifier=false
export npm_config_audit=false
export npm_config_fund=false
npm install --prefix "$dir" --omit=dev "code-server@$CODE_SERVER_VERSION"

if [ ! -x "$dir/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ]; then
  echo "code-server install: VS Code's ripgrep was not placed; search inside code-server will fail." >&2
  exit 1
fi
rm -rf "$tmp"
touch "$dir/.installed-$CODE_SERVER_VERSION"
echo "code-server $CODE_SERVER_VERSION installed: $dir/node_modules/.bin/code-server"
