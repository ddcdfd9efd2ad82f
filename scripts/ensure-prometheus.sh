#!/usr/bin/env bash
# Makes sure Prometheus and promtool are installed for the metrics tests (PrometheusProxyMetricsTest
# runs `promtool check metrics`, PrometheusScrapeIT starts a real server that scrapes /metrics):
# Debian's `prometheus` package, at /usr/bin/prometheus and /usr/bin/promtool. Does nothing when both
# are there. Installs the package with apt-get when run as root or with passwordless sudo; otherwise
# says how. The tests start their own server in a temporary folder, so the package's service must
# not run: while installing, a policy-rc.d that refuses every start is put in place (a container
# without systemd would otherwise start it through its init script, or fail in postinst), and a
# server the install started anyway is stopped. Exits 0 when both binaries are installed afterwards,
# 1 when not. Run by .ci/run.
set -uo pipefail
server=/usr/bin/prometheus
tool=/usr/bin/promtool
if [ -x "$server" ] && [ -x "$tool" ]; then
  exit 0
fi
say() { echo "ensure-prometheus: $*" >&2; }
if ! command -v apt-get >/dev/null 2>&1; then
  say "no apt-get here; install Prometheus so that $server and $tool exist (the metrics tests that need them are skipped without them)"
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  say "not root and no passwordless sudo; run: sudo apt-get install -y prometheus (then stop its service)"
  exit 1
fi
policy=/usr/sbin/policy-rc.d
placed_policy=
if [ ! -e "$policy" ]; then
  # invoke-rc.d asks this hook before starting a service; 101 means "action forbidden".
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null && "${as_root[@]}" chmod 755 "$policy" \
    && placed_policy=1
fi
restore_policy() {
  if [ -n "$placed_policy" ]; then
    "${as_root[@]}" rm -f "$policy"
  fi
}
trap restore_policy EXIT
say "installing prometheus with apt-get (once; about 30 MB); its service is not started"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get update -qq >&2 \
    || ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends prometheus >&2; then
  say "apt-get could not install prometheus (offline, or no such package on this distribution)"
  exit 1
fi
# A server the package started despite the policy (systemd present, say) listens on :9090 with the
# package's configuration; the tests never use it. Stop the service where there is one to stop.
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  "${as_root[@]}" systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
for pidfile in /run/prometheus/prometheus.pid /run/prometheus.pid; do
  if [ -s "$pidfile" ]; then
    pid=$(cat "$pidfile")
    if [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$server" ]; then
      say "stopping the prometheus service the package started (pid $pid)"
      "${as_root[@]}" kill "$pid" 2>/dev/null || true
    fi
  fi
done
if [ -x "$server" ] && [ -x "$tool" ]; then
  say "installed: $("$server" --version 2>&1 | head -n 1)"
  exit 0
fi
say "apt-get finished but $server or $tool is still missing"
exit 1
