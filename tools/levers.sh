#!/usr/bin/env bash
# The proof's levers measured on its own kind of position (issue 63):
# Kalah(6,5) under standard capture over 27 seeds (about 44% of the seeds
# covered, as 34 of Kalah(6,6)'s 72 are not: 47%), one thread, no book, no
# search memory, a 1 GiB table. Each case runs one null-window test and
# prints its nodes and seconds; nodes do not depend on what else runs, the
# seconds do (run it with the machine quiet, the proof stopped, and run it
# twice to alternate).
#
#   tools/levers.sh [KALAH...]
#
# With several `kalah` binaries (built from variants of the code), every
# case runs under each in turn, alternating, and is labelled with the
# binary's name. `seconds` is the whole answer's, `load` the part of it
# spent copying the database into memory and checking it. The databases (27 seeds: exact, packed; and the same in
# windows of 4 and 3 bits) are built into $KALAH_DB_DIR (default
# /tmp/kalah-levers) if they are not there: about 3.9 GiB of memory for
# a few minutes. The cases:
#   start >= +10     holds (Rawlings: +10), searched as it comes and with
#                    the book's line first (--first, the book's best line)
#   start >= +12     fails
#   2-6 >= -10       South's second move 2-6 (issue 63's position)
# LEVERS_CASES (default "hold first fail 2-6") and LEVERS_DBS (default
# "exact w4 w3") choose some of them.
set -euo pipefail
cd "$(dirname "$0")/.."
binaries=("$@")
if [ ${#binaries[@]} -eq 0 ]; then
  . tools/release_kalah.sh
  binaries=("$kalah")
fi
kalah=${binaries[0]}
dir=${KALAH_DB_DIR:-/tmp/kalah-levers}
mkdir -p "$dir"
exact="$dir/kalah-h6-n27-standard-exact.kdb"
[ -f "$exact" ] || "$kalah" db build 6 27 --capture standard --bits 5 -o "$exact" >/dev/null
for bits in 4 3; do
  [ -f "$dir/kalah-h6-n27-standard-w$bits.kdb" ] || "$kalah" db repack "$exact" --bits "$bits" -o "$dir/kalah-h6-n27-standard-w$bits.kdb" >/dev/null
done
# The book's line of best play from the start, first moves of it.
line=$("$kalah" solve 6 5 --capture standard --json | python3 -c 'import json,sys; a=json.load(sys.stdin); print(",".join(str(m["house"]) for m in a["pv"][:4]))')
two_six="5,0,6,6,6,0,2,6,6,6,6,6,5,0 N"
printf '%-28s %-8s %-22s %14s %9s %9s\n' binary db case nodes seconds load
run() {
  local bin=$1 db=$2 label=$3
  shift 3
  out=$("$bin" solve --capture standard --db "$dir/kalah-h6-n27-standard-$db.kdb" --no-book --no-memory --threads 1 --tt-mb 1024 --json "$@")
  python3 -c 'import json,sys; a=json.loads(sys.argv[1]); d=a["database"] or {}; print("%-28s %-8s %-22s %14s %9.2f %9.2f" % (sys.argv[2], sys.argv[3], sys.argv[4], format(a["nodes"], ","), a["seconds"], d.get("load_seconds") or 0))' \
    "$out" "$(basename "$bin")" "$db" "$label"
}
for db in ${LEVERS_DBS:-exact w4 w3}; do
  for case in ${LEVERS_CASES:-hold first fail 2-6}; do
    for bin in "${binaries[@]}"; do
      case $case in
        hold) run "$bin" "$db" "start >= +10" 6 5 --test 10 ;;
        first) run "$bin" "$db" "start >= +10, $line" 6 5 --test 10 --first "$line" ;;
        fail) run "$bin" "$db" "start >= +12" 6 5 --test 12 ;;
        2-6) run "$bin" "$db" "2-6 >= -10" --position "$two_six" --test -10 ;;
      esac
    done
  done
done
