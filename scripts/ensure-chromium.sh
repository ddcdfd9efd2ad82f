#!/usr/bin/env bash
# Makes sure headless Chromium and its WebDriver are installed for the HTML report's browser test
# (HtmlReportBrowserIT, CompareHtmlBrowserIT, through testkit/HeadlessChromium): Debian's `chromium` and `chromium-driver` packages, at /usr/bin/chromium
# and /usr/bin/chromedriver. Does nothing when both are there. Installs them with apt-get when run
# as root or with passwordless sudo; otherwise says how. Exits 0 when both are installed
# afterwards, 1 when not. Run by .ci/run and by Maven (pre-integration-test, never failing there).
set -uo pipefail
browser=/usr/bin/chromium
driver=/usr/bin/chromedriver
if [ -x "$browser" ] && [ -x "$driver" ]; then
  exit 0
fi
say() { echo "ensure-chromium: $*" >&2; }
if ! command -v apt-get >/dev/null 2>&1; then
  say "no apt-get here; install Chromium and its WebDriver so that $browser and $driver exist (the browser test of report.html is skipped without them)"
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  say "not root and no passwordless sudo; run: sudo apt-get install -y chromium chromium-driver"
  exit 1
fi
say "installing chromium and chromium-driver with apt-get (once; about 100 MB)"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get update -qq >&2 \
    || ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium chromium-driver >&2; then
  say "apt-get could not install chromium chromium-driver (offline, or no such package on this distribution)"
  exit 1
fi
if [ -x "$browser" ] && [ -x "$driver" ]; then
  say "installed: $("$browser" --version 2>/dev/null | head -n 1)"
  exit 0
fi
say "apt-get finished but $browser or $driver is still missing"
exit 1
