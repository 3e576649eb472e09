#!/usr/bin/env bash
# Kalah(6,6) within a stated budget (issue 4): the bounds this machine proves
# on the start value and on each opening turn of South (extra-move chains
# included), under both capture rules, with the largest default database of
# each (30 seeds: kalah db build --houses 6 --max-seeds 30 --capture C).
# Written to data/kalah-6-6/budget-{start,openings}-CAPTURE.json and printed.
#
#   tools/kalah66.sh [START_SECONDS [TURN_SECONDS]]   (defaults 300 and 30)
#
# The searches bracket the value from far to near, so what a budget proves
# is an interval around the value; none of it is exact.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/write_to.sh
. tools/release_kalah.sh
start_limit=${1:-300}
turn_limit=${2:-30}
mkdir -p data/kalah-6-6
begin=$SECONDS
for capture in standard empty; do
  t0=$SECONDS
  echo "== kalah table --houses 6 --seeds 6 --capture $capture --time-limit $start_limit"
  write_to "data/kalah-6-6/budget-start-$capture.json" "$kalah" table --houses 6 --seeds 6 --capture "$capture" --time-limit "$start_limit" --json
  echo "   $(grep -o '"lower":[^,]*' "data/kalah-6-6/budget-start-$capture.json") $(grep -o '"upper":[^,]*' "data/kalah-6-6/budget-start-$capture.json") ($(( SECONDS - t0 )) s)"
  t0=$SECONDS
  echo "== kalah solve 6 6 --capture $capture --openings --time-limit $turn_limit"
  write_to "data/kalah-6-6/budget-openings-$capture.json" "$kalah" solve 6 6 --capture "$capture" --openings --time-limit "$turn_limit" --json
  echo "   ($(( SECONDS - t0 )) s)"
done
echo "all done in $(( SECONDS - begin )) s"
