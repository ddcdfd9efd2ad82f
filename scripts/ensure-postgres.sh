#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries are installed for the ledger's PostgreSQL test
# (PostgresLedgerIT, which starts its own throw-away cluster from them in a temporary folder on
# 127.0.0.1; no system service is used): Debian's `postgresql` package, binaries under
# /usr/lib/postgresql/VERSION/bin. Does nothing when initdb and pg_ctl are there. Installs the
# package with apt-get when run as root or with passwordless sudo; otherwise says how. Exits 0 when
# the binaries are installed afterwards, 1 when not. Run by .ci/run.
set -uo pipefail
have_postgres() {
  local bin
  for bin in /usr/lib/postgresql/*/bin; do
    if [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ]; then
      return 0
    fi
  done
  return 1
}
if have_postgres; then
  exit 0
fi
say() { echo "ensure-postgres: $*" >&2; }
if ! command -v apt-get >/dev/null 2>&1; then
  say "no apt-get here; install the PostgreSQL server so that /usr/lib/postgresql/*/bin/initdb exists (the ledger's PostgreSQL test is skipped without it)"
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  say "not root and no passwordless sudo; run: sudo apt-get install -y postgresql"
  exit 1
fi
say "installing postgresql with apt-get (once; about 50 MB)"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get update -qq >&2 \
    || ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends postgresql >&2; then
  say "apt-get could not install postgresql (offline, or no such package on this distribution)"
  exit 1
fi
if have_postgres; then
  say "installed: $(ls -d /usr/lib/postgresql/*/bin | tail -n 1)"
  exit 0
fi
say "apt-get finished but no /usr/lib/postgresql/*/bin/initdb is there"
exit 1
