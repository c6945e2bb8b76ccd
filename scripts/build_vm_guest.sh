#!/usr/bin/env bash
# Builds the test guest: a small Debian VM image that serves the OSWorld VM server routes on port 5000.
#
#   bash scripts/build_vm_guest.sh [CACHE_DIR]   # prints the folder with guest.qcow2, vmlinuz, initrd.img
#
# Debian (debootstrap --variant=minbase from Debian's mirror) with systemd, the cloud kernel, Xvfb,
# openbox, dbus, sudo, python3, and the project's OSWorld server double (tests/support/osworld_vm_server.py
# over the sandbox package, its Python packages from PyPI) as the service `osworld-server` running as
# `user` (password `password`, in the sudo group, as on OSWorld's image). The kernel and initrd sit beside
# the image for qemu's direct kernel boot (the image is one ext4 file system, no boot loader). The image
# is cached under CACHE_DIR (default ~/.cache/stateact/vm-guest) by the content hash of this script and of
# the files copied in, so a second build is free. Needs root (debootstrap, chroot), debootstrap, qemu-img.
# For a guest with OSWorld's real server, see docs/osworld.md.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cache_root="${1:-${STATEACT_VM_CACHE:-$HOME/.cache/stateact/vm-guest}}"
mirror="${STATEACT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite="${STATEACT_DEBIAN_SUITE:-bookworm}"
python="${PYTHON:-$repo/.venv/bin/python}"
[ -x "$python" ] || python=python3

# What the guest holds of the project: the server double and the package it runs over (not the pools,
# which run on the host), with the modules the office toolkit would otherwise install at every lease.
mapfile -d '' server_files < <(
  cd "$repo" && find -L stateact/__init__.py stateact/sandbox tests/support/__init__.py \
    tests/support/osworld_vm_server.py -type f -not -path '*/__pycache__/*' -not -name 'pool*.py' -print0 \
    | LC_ALL=C sort -z
)
server_packages=(httpx pexpect rich pillow pyautogui python3-xlib)
office_packages=(python-docx openpyxl python-pptx)
guest_packages=(
  systemd-sysv udev linux-image-cloud-amd64 initramfs-tools sudo dbus dbus-user-session procps
  xvfb openbox xdotool wmctrl x11-utils xauth python3 python3-tk ca-certificates fonts-dejavu-core
  libglib2.0-bin dconf-gsettings-backend dconf-service gsettings-desktop-schemas
)

digest="$(
  {
    sha256sum <"$0"
    cd "$repo" && sha256sum "${server_files[@]}"
  } | sha256sum | cut -c1-16
)"
out="$cache_root/$digest"
if [ -f "$out/guest.qcow2" ]; then
  echo "$out"
  exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/stateact-guest.XXXXXX")"
root="$work/root"
cleanup() {
  for sub in proc sys dev; do umount -l "$root/$sub" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
started=$SECONDS

echo "building the test guest ($suite from $mirror) in $work" >&2
debootstrap --variant=minbase --include="$(IFS=,; echo "${guest_packages[*]}")" "$suite" "$root" "$mirror" \
  >"$work/debootstrap.log" 2>&1 || { tail -30 "$work/debootstrap.log" >&2; exit 1; }

# The system: hostname, root file system, DHCP on the first network card, qemu's DNS, the user.
echo osworld >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 osworld\n' >"$root/etc/hosts"
echo '/dev/vda / ext4 defaults,noatime 0 1' >"$root/etc/fstab"
printf '[Match]\nName=en* eth*\n[Network]\nDHCP=yes\n' >"$root/etc/systemd/network/50-dhcp.network"
echo 'nameserver 10.0.2.3' >"$root/etc/resolv.conf"
echo "deb $mirror $suite main" >"$root/etc/apt/sources.list"
chroot "$root" useradd --create-home --shell /bin/bash --groups sudo user
echo 'user:password' | chroot "$root" chpasswd
echo 'root:password' | chroot "$root" chpasswd
# The image's home folders (sandbox/settings.py IMAGE_FOLDERS), as on OSWorld's image.
chroot "$root" su user -c 'cd && mkdir Desktop Documents Downloads Music Pictures Public Templates Videos'
chroot "$root" systemctl enable systemd-networkd >/dev/null 2>&1
chroot "$root" systemctl mask systemd-timesyncd e2scrub_reap apt-daily.timer apt-daily-upgrade.timer \
  >/dev/null 2>&1 || true

# The server double and its Python packages, installed by this machine's pip (its Python has the guest's
# minor version: both are Debian's).
site="$root/opt/osworld-server"
mkdir -p "$site/src"
(cd "$repo" && tar -ch "${server_files[@]}") | tar -x -C "$site/src"
pip_install() {
  "$python" -m pip install -q --target "$1" "${@:2}" >>"$work/pip.log" 2>&1 || { tail -30 "$work/pip.log" >&2; exit 1; }
}
pip_install "$site/lib" "${server_packages[@]}"
guest_python="$(chroot "$root" python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
pip_install "$root/usr/local/lib/python$guest_python/dist-packages" "${office_packages[@]}"
chroot "$root" python3 -m compileall -q /opt/osworld-server /usr/local/lib >/dev/null  # not at each boot
cat >"$root/etc/systemd/system/osworld-server.service" <<'EOF'
[Unit]
Description=OSWorld VM server (the project's double) on port 5000
After=network.target

[Service]
User=user
WorkingDirectory=/opt/osworld-server/src
Environment=PYTHONPATH=/opt/osworld-server/src:/opt/osworld-server/lib
ExecStart=/usr/bin/python3 -m tests.support.osworld_vm_server 5000 /home/user 0.0.0.0
Restart=on-failure

[Install]
WantedBy=multi-user.target
EOF
chroot "$root" systemctl enable osworld-server >/dev/null 2>&1

# A package to install offline (the guest's apt also reaches the mirror through qemu's network when
# the host does): /opt/debs/hello.deb.
mkdir -p "$root/opt/debs"
(cd "$work" && apt-get download -q hello >/dev/null 2>&1 && mv hello_*.deb "$root/opt/debs/hello.deb") \
  || echo "note: no hello.deb for the guest (apt-get download failed)" >&2

# Smaller: no package cache, documentation or translations.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* \
  "$root"/usr/share/man/* "$root"/usr/share/locale/*

mkdir -p "$work/image"
cp "$root"/boot/vmlinuz-* "$work/image/vmlinuz"
cp "$root"/boot/initrd.img-* "$work/image/initrd.img"
chmod 644 "$work/image/vmlinuz" "$work/image/initrd.img"
size_mb=$(( $(du -sm "$root" | cut -f1) * 3 / 2 + 1024 ))
mkfs.ext4 -q -L root -d "$root" "$work/root.raw" "${size_mb}M"
qemu-img convert -O qcow2 "$work/root.raw" "$work/image/guest.qcow2"
mkdir -p "$cache_root"
rm -rf "$out"
mv "$work/image" "$out"
# Guests of older sources go, but the newest few stay (other checkouts may use them).
ls -1dt "$cache_root"/*/ | tail -n +4 | xargs -r rm -rf
echo "built $out/guest.qcow2 ($(du -sh "$out/guest.qcow2" | cut -f1)) in $((SECONDS - started)) s" >&2
echo "$out"
