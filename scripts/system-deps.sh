#!/usr/bin/env bash
# Installs the Debian packages assay's verifiers use, when running as root and they are missing.
# Not root: prints what is missing and carries on (the features that need them say so loudly).
set -euo pipefail
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
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
