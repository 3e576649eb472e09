#!/usr/bin/env bash
# The tables of Kalah(h,s) values, written to data/tables/*.json and printed:
#   - both capture rules (other options as RULES.md's defaults), h, s = 1..6;
#     Kalah(6,6) and anything else not solved within the time limit shows
#     the bounds proven in it;
#   - every other rule combination for s <= 4: h <= 6 with counter-
#     clockwise sowing (a shorter time limit per entry), h <= 4 with
#     clockwise sowing (retrograde analysis of every board; Kalah(5,3) fits
#     in 15 GiB but takes long, Kalah(5,4) would need 140 GiB; for one
#     such entry run `kalah table --houses 5 --seeds 3 --sowing cw ...`).
#
#   tools/table.sh [--time-limit SECONDS] [--other-time-limit SECONDS] [--only main|other]
#
# Uses the default databases in $KALAH_DB_DIR (default data/db) when they
# exist (build them with `kalah db build`); Kalah(6,5) needs one of 24
# seeds or more to finish in minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p kalah-cli
kalah=target/release/kalah
limit=600
other=20
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --time-limit) limit=$2; shift 2 ;;
    --other-time-limit) other=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "usage: tools/table.sh [--time-limit SECONDS] [--other-time-limit SECONDS] [--only main|other]" >&2; exit 2 ;;
  esac
done
mkdir -p data/tables
start=$SECONDS
for capture in empty standard; do
  [ "$only" = other ] && break
  t0=$SECONDS
  echo "== capture=$capture, h,s = 1..6, at most $limit s each"
  "$kalah" table --houses 1-6 --seeds 1-6 --capture "$capture" --time-limit "$limit" --json > "data/tables/capture-$capture.json"
  echo "   ($(( SECONDS - t0 )) s)"
done
for capture in standard empty; do for end in instant turn; do for leftovers in owner unscored emptier; do
  [ "$only" = main ] && break 3
  for sowing in ccw cw; do for relay in off on; do
    tag="$capture-$end-$leftovers-$sowing-relay$relay"
    [ "$tag" = "$capture-instant-owner-ccw-relayoff" ] && continue   # the tables above
    houses=1-6
    [ "$sowing" = cw ] && houses=1-4
    t0=$SECONDS
    echo "== $tag, h = $houses, s = 1..4, at most $other s each"
    "$kalah" table --houses "$houses" --seeds 1-4 --capture "$capture" --end "$end" --leftovers "$leftovers" \
      --sowing "$sowing" --relay "$relay" --time-limit "$other" --json > "data/tables/other-$tag.json"
    echo "   ($(( SECONDS - t0 )) s)"
  done; done
done; done; done
echo "all done in $(( SECONDS - start )) s"
