#!/usr/bin/env bash
# The tables of Kalah(h,s) values: both capture rules for h, s = 1..6
# (Kalah(6,6) with a time limit: bounds), and every other rule combination
# for h, s <= 4; written to data/tables/*.json and printed.
#
#   tools/table.sh [--time-limit SECONDS]
#
# Uses the default databases in $KALAH_DB_DIR (default data/db) when they
# exist (build them with `kalah db build`); Kalah(6,5) needs one to finish
# in minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p kalah-cli
kalah=target/release/kalah
limit=600
[ "${1:-}" = "--time-limit" ] && limit=$2
mkdir -p data/tables
start=$SECONDS
for capture in empty standard; do
  echo "== capture=$capture, h,s = 1..6"
  "$kalah" table --houses 1-6 --seeds 1-6 --capture "$capture" --time-limit "$limit" --json > "data/tables/capture-$capture.json"
done
for capture in standard empty; do for end in instant turn; do for leftovers in owner unscored emptier; do
  for sowing in ccw cw; do for relay in off on; do
    tag="$capture-$end-$leftovers-$sowing-relay$relay"
    echo "== $tag, h,s = 1..4"
    "$kalah" table --houses 1-4 --seeds 1-4 --capture "$capture" --end "$end" --leftovers "$leftovers" \
      --sowing "$sowing" --relay "$relay" --time-limit "$limit" --json > "data/tables/small-$tag.json"
  done; done
done; done; done
echo "all done in $(( SECONDS - start )) s"
