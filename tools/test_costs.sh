#!/usr/bin/env bash
# What one root test costs under each capture rule (issue 51): on starts
# with a published value V (data/published.csv), the failing test "value
# >= V+2" and the holding test "value >= V", each from nothing (one thread,
# no search memory, no book, a 1 GiB table), under empty and under
# standard capture, over packed databases of the seeds given, which are
# built first into $KALAH_DB_DIR (default /tmp/kalah-test-costs) if they
# are not there. Prints each test's nodes and seconds, and for each board
# how many times the failing test's nodes under empty capture it took
# under standard capture: the measure behind the estimate of what the
# Kalah(6,6) standard-capture proof needs (BENCHMARKS.md, "What a test
# costs under each capture rule"). Exit code 1 if a test disagrees with
# the published value.
# Node counts do not depend on what else runs; the seconds do.
#
#   tools/test_costs.sh [HOUSES,SEEDS,DB_SEEDS ...]
#     (default: 6,4,21 6,5,27: about 44% of the seeds covered, as 32 of
#     Kalah(6,6)'s 72 are; 6,5,27 takes about 5 minutes and 3.7 GiB)
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/release_kalah.sh
export KALAH_DB_DIR=${KALAH_DB_DIR:-/tmp/kalah-test-costs}
mkdir -p "$KALAH_DB_DIR"
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(6,4,21 6,5,27)
printf '%-10s %-4s %-9s %-8s %15s %9s %s\n' board db capture test nodes seconds answer
for case in "${cases[@]}"; do
  IFS=, read -r h s n <<<"$case"
  declare -A fail_nodes=()
  for capture in empty standard; do
    v=$(awk -F, -v h="$h" -v s="$s" -v c="$capture" '$1==h && $2==s && $3==c && $4=="instant" && $5=="owner" {print $6}' data/published.csv)
    [[ $v =~ ^-?[0-9]+$ ]] || { echo "no published value of Kalah($h,$s) under $capture capture in data/published.csv (found \"$v\")" >&2; exit 2; }
    db="$KALAH_DB_DIR/kalah-h$h-n$n-$capture-instant-owner-ccw-relayoff.kdb"
    [ -f "$db" ] || "$kalah" db build --houses "$h" --max-seeds "$n" --capture "$capture" --packed --output "$db" >/dev/null
    for t in $((v + 2)) "$v"; do
      out=$("$kalah" solve "$h" "$s" --capture "$capture" --db "$db" --no-book --no-memory --threads 1 --tt-mb 1024 --test "$t" --json)
      read -r nodes seconds holds < <(python3 -c 'import json,sys; a=json.loads(sys.argv[1]); print(format(a["nodes"], ","), round(a["seconds"], 1), a["test"]["holds"])' "$out")
      expected=$([ "$t" -le "$v" ] && echo True || echo False)
      [ "$holds" = "$expected" ] || { echo "Kalah($h,$s) $capture: the test >= $t answered holds=$holds against the published $v" >&2; exit 1; }
      printf 'Kalah(%s,%s) %-4s %-9s >= %+-5d %15s %9s %s\n' "$h" "$s" "$n" "$capture" "$t" "$nodes" "$seconds" "$([ "$holds" = True ] && echo holds || echo fails)"
      [ "$holds" = True ] || fail_nodes[$capture]=${nodes//,/}
    done
  done
  python3 -c 'import sys; e, s = int(sys.argv[1]), int(sys.argv[2]); print(f"Kalah({sys.argv[3]}) over {sys.argv[4]} seeds: the failing test took {s / e:.2f} times the nodes under standard capture")' \
    "${fail_nodes[empty]}" "${fail_nodes[standard]}" "$h,$s" "$n"
done
