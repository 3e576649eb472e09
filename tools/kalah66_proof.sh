#!/usr/bin/env bash
# The exact value of Kalah(6,6) (issues 37, 51): a search that takes hours,
# resumable. Runs (or resumes) `kalah solve 6 6 --capture CAPTURE
# --value-only` over the 32-seed database of that capture rule, keeping its
# journal in data/kalah-6-6/journal-CAPTURE/ (commit it as it grows: a later
# run, on any machine with the same database, goes on from it). Kill it at
# any time (kill -9 included); run the same command to go on. The answer
# goes to data/kalah-6-6/value-CAPTURE.json when the search ends; then
# tools/kalah66_result.py CAPTURE audits it and writes start-CAPTURE.json.
#
#   tools/kalah66_proof.sh empty|standard [SOLVE FLAGS...]
#
# Flags after the capture rule go to `kalah solve`: `--guess V` begins
# MTD(f) with the test "value >= V" (before the test the journal
# recorded), `--test V` runs that one test. Empty capture, whose value is
# published (+2): `--guess 4` ran "value >= +4", which failed, then
# "value >= +2", which held (2026-12-06). Standard capture, unpublished
# (Rawlings: at least +4, through opening 1-3): `--guess 4` runs "value >=
# +4", which should hold, and MTD(f) climbs from there until a test fails.
# `kalah journal show data/kalah-6-6/journal-CAPTURE` says where it is.
#
# The database of every board with up to 32 seeds (KALAH66_DB_SEEDS),
# packed (12.9 GiB), beside a 4 GiB transposition table (KALAH66_TT_MB,
# in MiB): on Kalah(6,5) the 32-seed database took 1.4 (empty capture)
# and 2.1 (standard) times fewer nodes than the 30-seed one (BENCHMARKS.md,
# "30 seeds or 32"), and an 8 GiB table does not fit beside it in 24 GiB
# with room for other work. Built, in about 10 minutes and 19.7 GiB of
# memory here, into $KALAH_DB_DIR (default data/db) if it is not there.
# A progress line goes to stderr every minute when it is not a terminal.
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
