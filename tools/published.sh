#!/usr/bin/env bash
# Checks the rows of data/published.csv that the test suite leaves out
# (the suite covers h <= 4, Kalah(5,1..3) and Kalah(6,1..3)): Kalah(5,4..6)
# and Kalah(6,4..5) under empty capture, Kalah(6,4..5) under standard
# capture. Kalah(6,6) is beyond one machine (see BENCHMARKS.md); it is
# shown with the bounds proven in the time limit.
#
#   tools/published.sh [--time-limit SECONDS]
#
# Kalah(6,5) needs an endgame database to finish in minutes: build them
# first (a few minutes each, 1.2 GiB each):
#   kalah db build --houses 6 --max-seeds 24 --capture empty
#   kalah db build --houses 6 --max-seeds 24 --capture standard
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/release_kalah.sh
limit=3600
[ "${1:-}" = "--time-limit" ] && limit=$2
start=$SECONDS
"$kalah" table --capture empty --houses 5 --seeds 4-6 --time-limit "$limit"
"$kalah" table --capture empty --houses 6 --seeds 4-6 --time-limit "$limit"
"$kalah" table --capture standard --houses 6 --seeds 4-6 --time-limit "$limit"
echo "all done in $(( SECONDS - start )) s"
