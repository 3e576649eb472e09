#!/usr/bin/env bash
# Refreshes the board explorer's screenshots in docs/ (explorer.png, on a
# desktop screen, explorer-phone.png, 390 px wide, explorer-play.png, a game
# against the perfect player, and explorer-background.png, bounds closing
# in the background): starts `kalah serve`
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
slow_dbs=$(mktemp -d)
log=$(mktemp)
slow_log=$(mktemp)
trap 'kill "$server" "$slow" 2>/dev/null || true; rm -rf "$dbs" "$slow_dbs" "$log" "$slow_log"' EXIT
KALAH_DB_DIR=$dbs "$kalah" serve --addr 127.0.0.1:0 --threads 2 2>"$log" &
server=$!
# A server whose searches end with bounds, for the picture of bounds closing in the background.
KALAH_DB_DIR=$slow_dbs "$kalah" serve --addr 127.0.0.1:0 --threads 1 --time-limit 0.005 --no-book --background-time 60 2>"$slow_log" &
slow=$!
address() {
  for _ in $(seq 50); do grep -q "serving on" "$1" && break; sleep 0.1; done
  sed -n 's|.*serving on \(http://[^/]*\)/.*|\1|p' "$1"
}
addr=$(address "$log")
slow_addr=$(address "$slow_log")
[ -n "$addr" ] && [ -n "$slow_addr" ] || { cat "$log" "$slow_log"; exit 1; }
BACKGROUND_BASE=$slow_addr node crates/kalah-cli/tests/browser/explorer.mjs "$addr" docs
ls -l docs/explorer.png docs/explorer-phone.png docs/explorer-play.png docs/explorer-background.png
