#!/usr/bin/env bash
# Makes sure Debian packages that tests or benchmarks start are installed:
#   scripts/ensure-packages.sh /usr/sbin/nginx=nginx [/usr/bin/promtool=prometheus ...]
# Each argument is FILE=PACKAGE: PACKAGE is installed with apt-get when FILE is missing. Does
# nothing when every FILE exists. Installs as root or with passwordless sudo, otherwise says how.
# A package's service is not left running (policy-rc.d denies starts in containers; where it does
# not, the caller stops it). Exits 0 when every FILE exists afterwards, 1 when not.
set -uo pipefail
say() { echo "ensure-packages: $*" >&2; }
missing=()
for arg in "$@"; do
  file=${arg%%=*}
  [ -e "$file" ] || missing+=("${arg#*=}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  say "no apt-get here; install: ${missing[*]}"
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  say "not root and no passwordless sudo; run: sudo apt-get install -y ${missing[*]}"
  exit 1
fi
say "installing ${missing[*]} with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt_get() { # retries while another apt-get holds the dpkg lock (up to about 5 minutes)
  local i
  for i in $(seq 1 30); do
    "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=10 "$@" >&2 && return 0
    sleep 1
  done
  return 1
}
if ! apt_get update -qq || ! apt_get install -y -qq --no-install-recommends "${missing[@]}"; then
  say "apt-get could not install ${missing[*]} (offline, or no such package on this distribution)"
  exit 1
fi
status=0
for arg in "$@"; do
  file=${arg%%=*}
  if [ ! -e "$file" ]; then
    say "apt-get finished but $file is still missing"
    status=1
  fi
done
exit $status
