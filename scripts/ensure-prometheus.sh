#!/usr/bin/env bash
# Makes sure Prometheus and promtool are installed for the metrics tests (ExpositionLintTest runs
# `promtool check metrics`, PrometheusScrapeIT starts a real server that scrapes /metrics, LiveExportIT one
# that scrapes a running bench --metrics-port):
# Debian's `prometheus` package, at /usr/bin/prometheus and /usr/bin/promtool. Does nothing when both
# are there. Installs the package with apt-get when run as root or with passwordless sudo
# (scripts/apt-install.sh); otherwise says how. The tests start their own server in a temporary
# folder, so the package's service must not run: while installing, a policy-rc.d that refuses
# every start is put in place (a container without systemd would otherwise start it through its
# init script, or fail in postinst), and a server the install started anyway is stopped. Exits 0
# when both binaries are installed afterwards, 1 when not. Run by .ci/run.
set -uo pipefail
server=/usr/bin/prometheus
tool=/usr/bin/promtool
if [ -x "$server" ] && [ -x "$tool" ]; then
  exit 0
fi
say() { echo "ensure-prometheus: $*" >&2; }
# Root for the policy-rc.d below; scripts/apt-install.sh finds its own way and says what to run
# when there is none.
as_root=()
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
fi
policy=/usr/sbin/policy-rc.d
placed_policy=
if [ ! -e "$policy" ]; then
  # invoke-rc.d asks this hook before starting a service; 101 means "action forbidden".
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null 2>&1 \
    && "${as_root[@]}" chmod 755 "$policy" && placed_policy=1
fi
restore_policy() {
  if [ -n "$placed_policy" ]; then
    "${as_root[@]}" rm -f "$policy"
  fi
}
trap restore_policy EXIT
# about 30 MB, once; its service is not started
bash "$(dirname "$0")/apt-install.sh" ensure-prometheus prometheus || exit 1
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
