#!/usr/bin/env bash
# The exact value of Kalah(6,6) (issue 37): a search that takes hours,
# resumable. Runs (or resumes) `kalah solve 6 6 --capture CAPTURE
# --value-only` over the 30-seed database of that capture rule, keeping its
# journal in data/kalah-6-6/journal-CAPTURE/ (commit it as it grows: a later
# run, on any machine with the same database, goes on from it). Kill it at
# any time (kill -9 included); run the same command to go on. The answer
# goes to data/kalah-6-6/value-CAPTURE.json when the search ends.
#
#   tools/kalah66_proof.sh empty|standard [SOLVE FLAGS...]
#
# Flags after the capture rule go to `kalah solve`: `--guess V` begins
# MTD(f) with the test "value >= V" (before the test the journal
# recorded), `--test V` runs that one test. Empty capture, whose value is
# published (+2): `--guess 4` runs "value >= +4", which must fail, then
# "value >= +2", which must hold: the fewest tests.
#
# The database of every board with up to 32 seeds (KALAH66_DB_SEEDS),
# packed (12.9 GiB), loaded into memory beside a 4 GiB transposition table
# (KALAH66_TT_MB, in MiB): on Kalah(6,5) the 32-seed database took 1.4
# times fewer nodes and 1.8 times less search time than the 30-seed one
# (BENCHMARKS.md, "Packed databases"), and an 8 GiB table does not fit
# beside it in 24 GiB with room for other work. Built, in about 10
# minutes and 19.7 GiB of memory here, into $KALAH_DB_DIR (default
# data/db) if it is not there. A progress line goes to stderr every
# minute when it is not a terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/write_to.sh
capture=${1:?usage: tools/kalah66_proof.sh empty|standard [SOLVE FLAGS...]}
shift
case $capture in empty|standard) ;; *) echo "capture: empty or standard, not $capture" >&2; exit 2 ;; esac
. tools/release_kalah.sh
seeds=${KALAH66_DB_SEEDS:-32}
db="${KALAH_DB_DIR:-data/db}/kalah-h6-n$seeds-$capture-instant-owner-ccw-relayoff.kdb"
[ -f "$db" ] || "$kalah" db build --houses 6 --max-seeds "$seeds" --capture "$capture" --packed
write_to "data/kalah-6-6/value-$capture.json" "$kalah" solve 6 6 --capture "$capture" --value-only --tt-mb "${KALAH66_TT_MB:-4096}" \
  --db "$db" --journal "data/kalah-6-6/journal-$capture" --json "$@"
cat "data/kalah-6-6/value-$capture.json"
