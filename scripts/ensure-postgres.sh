#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries are installed for the ledger's PostgreSQL test
# (PostgresLedgerIT, which starts its own throw-away cluster from them in a temporary folder on
# 127.0.0.1; no system service is used): Debian's `postgresql` package, binaries under
# /usr/lib/postgresql/VERSION/bin. Does nothing when initdb and pg_ctl are there; else installs the
# package (scripts/apt-install.sh). Exits 0 when the binaries are there afterwards, 1 when not.
# Run by .ci/run.
set -uo pipefail
have_postgres() {
  local bin
  for bin in /usr/lib/postgresql/*/bin; do
    if [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ]; then
      echo "$bin"
      return 0
    fi
  done
  return 1
}
if have_postgres >/dev/null; then
  exit 0
fi
bash "$(dirname "$0")/apt-install.sh" ensure-postgres postgresql || true
if bin=$(have_postgres); then
  echo "ensure-postgres: installed: $bin" >&2
  exit 0
fi
echo "ensure-postgres: no /usr/lib/postgresql/*/bin/initdb after trying; the ledger's PostgreSQL test is skipped without it (fails in CI)" >&2
exit 1
