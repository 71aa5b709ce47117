#!/usr/bin/env bash
# Install the real applications ASIL drives, from Debian/Ubuntu packages, when they are missing.
# Called by `make demo` and `make test`; safe to run again (it only checks when all is present).
set -euo pipefail

packages=()
command -v soffice >/dev/null 2>&1 || packages+=(libreoffice-calc-nogui)
[ -f /usr/lib/libreoffice/program/libswlo.so ] || packages+=(libreoffice-writer-nogui)
[ -f /usr/lib/libreoffice/program/libsdlo.so ] || packages+=(libreoffice-impress-nogui)
command -v pdftoppm >/dev/null 2>&1 || packages+=(poppler-utils)
[ -f /usr/lib/libreoffice/program/pythonscript.py ] || packages+=(libreoffice-script-provider-python)
[ -f /usr/lib/python3/dist-packages/uno.py ] || packages+=(python3-uno)
python3 -c "import ensurepip, venv" >/dev/null 2>&1 || packages+=(python3-venv)
fc-list 2>/dev/null | grep -qi dejavu || packages+=(fonts-dejavu-core)
command -v bwrap >/dev/null 2>&1 || packages+=(bubblewrap)
command -v unzip >/dev/null 2>&1 || packages+=(unzip)
command -v chromium >/dev/null 2>&1 || packages+=(chromium)  # renders draw.io pages (with mxgraph from npm)
command -v npm >/dev/null 2>&1 || packages+=(npm)
command -v inkscape >/dev/null 2>&1 || packages+=(inkscape)
command -v blender >/dev/null 2>&1 || packages+=(blender)  # the Blender adapter runs a headless blender -b
command -v gimp-console >/dev/null 2>&1 || packages+=(gimp)  # the GIMP adapter runs a warm gimp-console (Script-Fu server)
# Gitea: no Debian package exists; the gitea adapter talks to a server named by ASIL_GITEA_URL/ASIL_GITEA_TOKEN.
command -v melt >/dev/null 2>&1 || packages+=(melt)  # the Kdenlive adapter renders MLT projects with melt
command -v ffprobe >/dev/null 2>&1 || packages+=(ffmpeg)  # ffprobe measures media and rendered videos
command -v nautilus >/dev/null 2>&1 && command -v dbus-run-session >/dev/null 2>&1 && [ -x /usr/libexec/gvfsd-trash ] && command -v Xvfb >/dev/null 2>&1 || packages+=(nautilus gvfs dbus xvfb)  # the Nautilus adapter
command -v thunderbird >/dev/null 2>&1 || packages+=(thunderbird)  # the Thunderbird adapter drives it over Marionette
[ -x /usr/sbin/dovecot ] || packages+=(dovecot-imapd)  # ... against a private Dovecot IMAP server

renderer="$(dirname "$0")/install-drawio-renderer.sh"

if [ ${#packages[@]} -eq 0 ]; then
  exec "$renderer"
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ASIL needs these system packages: ${packages[*]}" >&2
  echo "Install them with: sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages[*]}" >&2
  exit 1
fi
echo "Installing system packages: ${packages[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}"
"$renderer"
