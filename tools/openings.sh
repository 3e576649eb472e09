#!/usr/bin/env bash
# Opening turns, the pie rule and seed shifts (issue 5), for Kalah(6,4) and
# Kalah(6,5) under both capture rules: every opening turn of South (extra-
# move chains included) with its exact value and the value of the game
# under the pie rule; and, for Kalah(6,4), the value of each of North's 144
# one-seed shifts. Written to data/openings/*.json and printed.
#
#   tools/openings.sh [--time-limit SECONDS]   (per opening turn; default: none)
#
# Uses the default databases in $KALAH_DB_DIR (default data/db) when they
# exist; Kalah(6,5) needs a large one (24 seeds or more) to finish in
# minutes per turn: kalah db build --houses 6 --max-seeds 30 --capture empty
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/write_to.sh
. tools/release_kalah.sh
limit=()
[ "${1:-}" = "--time-limit" ] && limit=(--time-limit "$2")
mkdir -p data/openings
start=$SECONDS
dbdir=${KALAH_DB_DIR:-data/db}
for capture in empty standard; do
  # Kalah(6,4) is solved in about a second with the 24-seed database, which
  # loads in one; a larger default one would take longer to load (10 s for
  # 30 seeds from the page cache, minutes from a slow disk) than to use.
  db64=()
  db24="$dbdir/kalah-h6-n24-$capture-instant-owner-ccw-relayoff.kdb"
  [ -f "$db24" ] && db64=(--db "$db24")
  for s in 4 5; do
    t0=$SECONDS
    db=()
    [ "$s" = 4 ] && db=("${db64[@]}")
    echo "== kalah solve 6 $s --capture $capture --pie ${db[*]}"
    write_to "data/openings/pie-6-$s-$capture.json" "$kalah" solve 6 "$s" --capture "$capture" --pie "${db[@]}" "${limit[@]}" --json
    echo "   $(grep -o '"pie_value":[^,]*' "data/openings/pie-6-$s-$capture.json") ($(( SECONDS - t0 )) s)"
  done
  t0=$SECONDS
  echo "== kalah solve 6 4 --capture $capture --shift ${db64[*]}"
  write_to "data/openings/shift-6-4-$capture.json" "$kalah" solve 6 4 --capture "$capture" --shift "${db64[@]}" --json
  echo "   $(grep -o '"shift_value":[^,]*' "data/openings/shift-6-4-$capture.json") ($(( SECONDS - t0 )) s)"
done
echo "all done in $(( SECONDS - start )) s"
