#!/usr/bin/env bash
# Makes sure headless Chromium and its WebDriver are installed for the HTML report's browser test
# (HtmlReportBrowserIT, CompareHtmlBrowserIT, ProxyDashboardBrowserIT, through testkit/HeadlessChromium): Debian's `chromium` and `chromium-driver` packages, at /usr/bin/chromium
# and /usr/bin/chromedriver. Does nothing when both are there. Installs them with apt-get when run
# as root or with passwordless sudo (scripts/apt-install.sh); otherwise says how. Exits 0 when both are installed
# afterwards, 1 when not. Run by .ci/run and by Maven (pre-integration-test, never failing there).
set -uo pipefail
browser=/usr/bin/chromium
driver=/usr/bin/chromedriver
if [ -x "$browser" ] && [ -x "$driver" ]; then
  exit 0
fi
say() { echo "ensure-chromium: $*" >&2; }
# about 100 MB, once
bash "$(dirname "$0")/apt-install.sh" ensure-chromium chromium chromium-driver || exit 1
if [ -x "$browser" ] && [ -x "$driver" ]; then
  say "installed: $("$browser" --version 2>/dev/null | head -n 1)"
  exit 0
fi
say "apt-get finished but $browser or $driver is still missing"
exit 1
