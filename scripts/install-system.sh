#!/usr/bin/env bash
# Install the real applications ASIL drives, from Debian/Ubuntu packages, when they are missing.
# Called by `make demo` and `make test`; safe to run again (it only checks when all is present).
set -euo pipefail

packages=()
# The GUI builds (not the -nogui ones): the GUI participant shows a real window (libvclplug_genlo.so, the X11
# plugin); the adapters still run them --headless. Installing them replaces any -nogui package of the same version.
[ -f /usr/lib/libreoffice/program/libvclplug_genlo.so ] || packages+=(libreoffice-core libreoffice-draw)
dpkg -s libreoffice-calc >/dev/null 2>&1 || packages+=(libreoffice-calc)
dpkg -s libreoffice-writer >/dev/null 2>&1 || packages+=(libreoffice-writer)
dpkg -s libreoffice-impress >/dev/null 2>&1 || packages+=(libreoffice-impress)
command -v xdotool >/dev/null 2>&1 || packages+=(xdotool)  # the GUI participant's mouse and keyboard (XTEST)
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
command -v melt >/dev/null 2>&1 || packages+=(melt)  # the Kdenlive adapter renders MLT projects with melt
command -v kdenlive >/dev/null 2>&1 || packages+=(kdenlive)  # Kdenlive's own window, for its GUI tasks
command -v ffprobe >/dev/null 2>&1 || packages+=(ffmpeg)  # media clips, rendered videos and recording durations
command -v audacity >/dev/null 2>&1 || packages+=(audacity)  # the Audacity adapter scripts it (mod-script-pipe)
command -v obs >/dev/null 2>&1 || packages+=(obs-studio)  # the OBS adapter (obs-websocket 5 is built in)
dpkg -s libgl1-mesa-dri >/dev/null 2>&1 || packages+=(libgl1-mesa-dri)  # software OpenGL for OBS under Xvfb
command -v thunderbird >/dev/null 2>&1 || packages+=(thunderbird)  # driven over Marionette, headless
[ -x /usr/sbin/dovecot ] || packages+=(dovecot-imapd)  # the real IMAP server Thunderbird reads
command -v nautilus >/dev/null 2>&1 || packages+=(nautilus)
[ -x /usr/libexec/gvfsd-trash ] || packages+=(gvfs)  # the trash Nautilus uses
command -v dbus-run-session >/dev/null 2>&1 || packages+=(dbus)
[ -x /usr/libexec/at-spi-bus-launcher ] || packages+=(at-spi2-core)  # the accessibility bus: Nautilus's selection
ls /usr/lib/*/gtk-2.0/modules/libatk-bridge.so >/dev/null 2>&1 || packages+=(libatk-adaptor)  # GTK 2 (GIMP) widgets on the accessibility bus
command -v Xvfb >/dev/null 2>&1 || packages+=(xvfb)  # Audacity, OBS and Nautilus need a display; ASIL starts private ones
# Apps onboarded from an interface profile (src/asil/onboard/profiles): no adapter module, the real program
command -v dia >/dev/null 2>&1 || packages+=(dia)  # Dia (file pattern): .dia XML, rewritten and rendered by dia --export
command -v syncthing >/dev/null 2>&1 || packages+=(syncthing)  # Syncthing (service pattern): its REST API
command -v freecadcmd >/dev/null 2>&1 || packages+=(freecad-python3)  # FreeCAD (script pattern): freecadcmd, no GUI
# Gitea: no Debian package exists; the gitea adapter talks to a server named by ASIL_GITEA_URL/ASIL_GITEA_TOKEN.
# code-server (from npm, by install-code-server.sh): Node 20, Debian's ripgrep for VS Code's search, and the
# build tools and headers its native modules compile against
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v rg >/dev/null 2>&1 || packages+=(ripgrep)
command -v make >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 || packages+=(build-essential)
command -v pkg-config >/dev/null 2>&1 || packages+=(pkg-config)
command -v python3 >/dev/null 2>&1 || packages+=(python3)
[ -f /usr/include/krb5.h ] || packages+=(libkrb5-dev)
[ -f /usr/include/X11/Xlib.h ] || packages+=(libx11-dev)
[ -f /usr/include/X11/extensions/XKBfile.h ] || packages+=(libxkbfile-dev)
[ -f /usr/include/libsecret-1/libsecret/secret.h ] || packages+=(libsecret-1-dev)

renderer="$(dirname "$0")/install-drawio-renderer.sh"
code_server="$(dirname "$0")/install-code-server.sh"

if [ ${#packages[@]} -eq 0 ]; then
  "$renderer"
  exec "$code_server"
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
"$code_server"
