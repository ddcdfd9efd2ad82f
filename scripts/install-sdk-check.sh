#!/usr/bin/env bash
# Installs the official Node SDKs of the APIs the simulator serves (openai, @anthropic-ai/sdk,
# @google/genai, ollama; versions pinned by tokenmeter-cli/src/test/sdk/package-lock.json, with their integrity
# hashes) and the check scripts into ${1:-tokenmeter-cli/target/sdk-check}, for SdkCompatIT and ApiSdkCompatIT. A second run
# with the SDK present does nothing. Needs node and npm, and the npm registry (or npm's cache).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-tokenmeter-cli/target/sdk-check}"
mkdir -p "$out"
cp tokenmeter-cli/src/test/sdk/package.json tokenmeter-cli/src/test/sdk/package-lock.json tokenmeter-cli/src/test/sdk/check.mjs tokenmeter-cli/src/test/sdk/check-apis.mjs "$out/"
if [ -f "$out/node_modules/openai/package.json" ] && cmp -s tokenmeter-cli/src/test/sdk/package-lock.json "$out/.installed-lock"; then
  exit 0
fi
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install-sdk-check: $tool not found; install Node.js 18+ and npm (apt-get install nodejs npm)" >&2
    exit 1
  fi
done
echo "install-sdk-check: installing the Node SDKs openai, @anthropic-ai/sdk, @google/genai and ollama (pinned, src/test/sdk/package-lock.json) from the npm registry into $out (once)"
(cd "$out" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) || {
  echo "install-sdk-check: npm ci failed in $out (is the npm registry reachable?)" >&2
  exit 1
}
cp tokenmeter-cli/src/test/sdk/package-lock.json "$out/.installed-lock"
