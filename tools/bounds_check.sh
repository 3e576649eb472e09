#!/usr/bin/env bash
# Cross-checks the bounds `kalah table` proves for clockwise starts too
# large for retrograde analysis (searches over a smaller database) against
# the exact values retrograde analysis of every board gave in
# data/tables/other-*-cw-*.json: for each of the 24 clockwise rule sets,
# Kalah(3,4), (4,3), (4,4) and (5,2) over an 8-seed database, and with
# relay Kalah(5,3) over a 12-seed one, at most SECONDS each (default 10).
# Every bound must hold; prints how many met the value. Exit 1 on a bound
# that does not hold.
#
#   tools/bounds_check.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/release_kalah.sh
limit=${1:-10}
start=$SECONDS
checked=0 exact=0 bad=0
for capture in standard empty; do for end in instant turn; do for leftovers in owner unscored emptier; do for relay in off on; do
  tag="$capture-$end-$leftovers-cw-relay$relay"
  starts=("3 4 8" "4 3 8" "4 4 8" "5 2 8")
  [ "$relay" = on ] && starts+=("5 3 12")
  for config in "${starts[@]}"; do
    read -r h s db <<< "$config"
    want=$(jq ".entries[] | select(.houses == $h and .seeds == $s and .exact) | .value" "data/tables/other-$tag.json")
    [ -n "$want" ] || { echo "$tag: no exact Kalah($h,$s) in data/tables" >&2; exit 2; }
    read -r lower upper < <("$kalah" table --houses "$h" --seeds "$s" --db-seeds "$db" --capture "$capture" --end "$end" \
      --leftovers "$leftovers" --sowing cw --relay "$relay" --time-limit "$limit" --json | jq -r '.entries[0] | "\(.lower) \(.upper)"')
    checked=$((checked + 1))
    if [ "$lower" -le "$want" ] && [ "$want" -le "$upper" ]; then
      [ "$lower" = "$upper" ] && exact=$((exact + 1))
      echo "ok   $tag Kalah($h,$s) = $want: proven $lower..$upper"
    else
      bad=$((bad + 1))
      echo "BAD  $tag Kalah($h,$s) = $want: proven $lower..$upper"
    fi
  done
done; done; done; done
echo "$checked starts: every bound holds in $((checked - bad)), $exact exact; $(( SECONDS - start )) s"
[ "$bad" -eq 0 ]
