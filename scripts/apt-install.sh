#!/usr/bin/env bash
# Installs Debian packages with apt-get for a test prerequisite: `bash scripts/apt-install.sh WHO PKG...`
# (WHO names the caller in messages). As root it runs apt-get directly, with passwordless sudo
# through sudo; otherwise, or without apt-get, it says what to run. Exits 0 when apt-get installed
# the packages, 1 when not. The caller checks afterwards that what it needs is there.
set -uo pipefail
who=${1:-apt-install}
shift || true
say() { echo "$who: $*" >&2; }
if [ $# = 0 ]; then
  say "usage: scripts/apt-install.sh WHO PACKAGE..."
  exit 2
fi
if ! command -v apt-get >/dev/null 2>&1; then
  say "no apt-get here; install the packages $* by other means"
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  say "not root and no passwordless sudo; run: sudo apt-get install -y $*"
  exit 1
fi
say "installing $* with apt-get (once)"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get update -qq >&2 \
    || ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "$@" >&2; then
  say "apt-get could not install $* (offline, or no such package on this distribution)"
  exit 1
fi
