#!/usr/bin/env bash
# One-command set-up on Debian/Ubuntu: system packages, then the project in .venv.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  python3 python3-venv python3-pip python3-tk
  xvfb xdotool x11-utils xclip wmctrl openbox scrot tmux
  libreoffice-calc libreoffice-writer libreoffice-impress
  chromium fonts-dejavu-core fonts-liberation sqlite3 poppler-utils bubblewrap passt socat
  dbus-daemon dconf-service dconf-gsettings-backend gsettings-desktop-schemas xdg-user-dirs xterm
  gnome-shell-common gnome-settings-daemon-common dconf-cli ffmpeg
  gimp vlc thunderbird totem
  qemu-system-x86 qemu-utils debootstrap  # the qemu VM slots and the test guest (scripts/build_vm_guest.sh)
)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
# The sandbox's own Python (toolkit, probes, GUI actions inside the isolated sandbox).
.venv/bin/python -c "from stateact.sandbox.runtime import build_runtime; print('sandbox Python:', build_runtime())"
# The command on PATH, so README's commands work from any folder.
if [ "$(id -u)" -eq 0 ]; then bin_dir=/usr/local/bin; else bin_dir="$HOME/.local/bin"; fi
mkdir -p "$bin_dir"
ln -sf "$PWD/.venv/bin/stateact" "$bin_dir/stateact"
case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *) echo "note: add $bin_dir to PATH to run \`stateact\` from any folder" ;;
esac
echo "set-up done: \`stateact doctor\` checks the machine"
