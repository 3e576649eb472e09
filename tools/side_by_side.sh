#!/usr/bin/env bash
# This project beside Geoffrey Irving's 2000 program (github girving/kalah)
# on the same machine, in alternation, so that both see the same load
# (issues 3 and 8 set their targets as multiples of that program's times).
#
# The program is not part of this repository and this script neither
# fetches nor builds it. Build it yourself, outside the repository, e.g.
# with gcc 12:
#
#   make serial CFLAGS="-O3 -funroll-loops -fgnu89-inline -w"
#   printf '4\nc 20\ns\nq\n' | ./generator eg20.dat    # its 20-seed database
#   printf '4\nc 24\ns\nq\n' | ./generator eg24.dat    # 24 seeds (optional)
#
# then run
#
#   tools/side_by_side.sh IRVING_DIR [ROUNDS] [CAPTURE]
#
# ROUNDS defaults to 3, CAPTURE (the capture rule) to empty, the only rule
# Irving's program plays. With `standard`, IRVING_DIR must hold a copy of
# his program changed to standard capture, and databases made by that
# copy's generator (BENCHMARKS.md, "Standard capture beside Irving's
# program", says what to change; this script changes nothing).
#
# Each round runs Irving's serial `kalah-s` on Kalah(6,4) with eg20.dat and
# `kalah solve 6 4 --capture CAPTURE --best-move` with this project's
# 20-seed database (both report the value and a best move); and, if
# IRVING_DIR holds eg24.dat, the same for Kalah(6,5) with the 24-seed
# databases. This project's databases are the default files of
# `kalah db build --houses 6 --max-seeds N --capture CAPTURE`, built
# first if missing. Prints every time (wall clock, whole process) and the
# medians with their ratio.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 3 ] || ! [[ ${2:-3} =~ ^[1-9][0-9]*$ ]] || ! [[ ${3:-empty} =~ ^(empty|standard)$ ]]; then
  echo "usage: tools/side_by_side.sh IRVING_DIR [ROUNDS] [CAPTURE]   (ROUNDS a positive number, default 3; CAPTURE empty (default) or standard)" >&2
  exit 2
fi
irving=$1
rounds=${2:-3}
capture=${3:-empty}
[ -x "$irving/kalah-s" ] || { echo "no executable $irving/kalah-s (build Irving's program first, see this script's comments)" >&2; exit 2; }
[ -f "$irving/eg20.dat" ] || { echo "no $irving/eg20.dat (make it with Irving's generator, see this script's comments)" >&2; exit 2; }
irving=$(cd "$irving" && pwd)
cd "$(dirname "$0")/.."
. tools/release_kalah.sh
db_dir=${KALAH_DB_DIR:-data/db}

# The default file of the database of N seeds, built if missing.
database() {
  local file="$db_dir/kalah-h6-n$1-$capture-instant-owner-ccw-relayoff.kdb"
  if [ ! -f "$file" ]; then
    echo "building $file (kalah db build --houses 6 --max-seeds $1 --capture $capture)" >&2
    "$kalah" db build --houses 6 --max-seeds "$1" --capture "$capture" --json > /dev/null
  fi
  echo "$file"
}

# Wall-clock seconds of a command; its output is kept in $out.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
timed() {
  local start end
  start=$(date +%s.%N)
  "$@" > "$out" 2>&1
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
}

median() {
  tr ' ' '\n' | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# compare SEEDS N IRVING_DATABASE IRVING_TABLE_BITS: rounds of both
# programs, then the medians. The table sizes are those of BENCHMARKS.md.
compare() {
  local seeds=$1 n=$2 eg=$3 bits=$4 db theirs=() ours=() t
  db=$(database "$n")
  echo "== Kalah(6,$seeds), $capture capture, $n-seed databases, $rounds rounds"
  for ((r = 1; r <= rounds; r++)); do
    t=$(cd "$irving" && timed ./kalah-s -t "$bits" -e "$n" -E "$eg" s "$seeds")
    theirs+=("$t")
    echo "   Irving: $t s ($(grep -o 'Move:.*' "$out") (houses from 0), $(grep -o 'Nodes searched: *[0-9]*' "$out" | tr -s ' '))"
    t=$(timed "$kalah" solve 6 "$seeds" --capture "$capture" --db "$db" --best-move --no-book --no-memory --json)
    ours+=("$t")
    echo "   kalah:  $t s (value $(grep -o '"value":-\?[0-9]*' "$out" | cut -d: -f2), best move $(grep -o '"best_move":[^,]*' "$out" | cut -d: -f2), $(grep -o '"nodes":[0-9]*' "$out" | cut -d: -f2) nodes)"
  done
  local a b
  a=$(echo "${theirs[*]}" | median)
  b=$(echo "${ours[*]}" | median)
  echo "   medians: Irving $a s, kalah $b s: $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", a / b }')x"
}

compare 4 20 eg20.dat 24
# A generator still at work has written only the header of its file.
if [ -f "$irving/eg24.dat" ] && [ "$(stat -c %s "$irving/eg24.dat")" -gt "$(stat -c %s "$irving/eg20.dat")" ]; then
  compare 5 24 eg24.dat 26
fi
