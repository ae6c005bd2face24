#!/usr/bin/env bash
# Installs the Debian packages assay's verifiers use, when running as root and they are missing.
# Not root: prints what is missing and carries on (the features that need them say so loudly).
set -euo pipefail
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
# code sandbox: libseccomp builds its seccomp filters (through the pyseccomp binding)
if command -v ldconfig >/dev/null 2>&1 && ! ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2'; then
  need+=(libseccomp2)
fi
# code domain, languages beyond Python: compilers and runtimes under /usr (the sandbox sees only
# /usr), from Debian: gcc/g++ (c, cpp), a headless JDK (java), golang-go, rustc, nodejs (javascript),
# node-typescript (tsc), bash
for tool in gcc:gcc g++:g++ javac:openjdk-17-jdk-headless go:golang-go rustc:rustc node:nodejs tsc:node-typescript bash:bash; do
  [ -x "/usr/bin/${tool%%:*}" ] || need+=("${tool#*:}")
done
# assay eval's report test renders the HTML in headless Chromium (Debian's package)
[ -x /usr/bin/chromium ] || need+=(chromium)
# mesh domain: open3d's shared libraries, and headless GL for pyrender (Mesa's EGL with its
# software device, or OSMesa as the fallback)
if command -v dpkg >/dev/null 2>&1; then
  for pkg in libgl1 libegl1 libegl-mesa0 libgl1-mesa-dri libosmesa6 libglx0 libx11-6 libusb-1.0-0 libudev1 libgomp1; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "system-deps: missing Debian packages: ${need[*]} (run as root to install)" >&2
  exit 0
fi
echo "system-deps: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
  apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
}
