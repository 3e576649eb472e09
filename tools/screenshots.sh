#!/usr/bin/env bash
# Refreshes the board explorer's screenshots in docs/ (explorer.png, on a
# desktop screen, and explorer-phone.png, 390 px wide): starts `kalah serve`
# on a loopback port with no database files and drives the page in headless
# Chromium with the browser test, crates/kalah-cli/tests/browser/explorer.mjs,
# which takes the pictures as it plays.
#
#   tools/screenshots.sh
#
# Needs Debian's chromium and `npm ci --prefix crates/kalah-cli/tests/browser`.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/release_kalah.sh
dbs=$(mktemp -d)
log=$(mktemp)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$dbs" "$log"' EXIT
KALAH_DB_DIR=$dbs "$kalah" serve --addr 127.0.0.1:0 --threads 2 2>"$log" &
server=$!
for _ in $(seq 50); do grep -q "serving on" "$log" && break; sleep 0.1; done
addr=$(sed -n 's|.*serving on \(http://[^/]*\)/.*|\1|p' "$log")
[ -n "$addr" ] || { cat "$log"; exit 1; }
node crates/kalah-cli/tests/browser/explorer.mjs "$addr" docs
ls -l docs/explorer.png docs/explorer-phone.png
