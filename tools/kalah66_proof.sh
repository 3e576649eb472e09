#!/usr/bin/env bash
# The exact value of Kalah(6,6) (issues 37, 51): a search that takes hours,
# resumable. Runs (or resumes) `kalah solve 6 6 --capture CAPTURE
# --value-only` over the database of that capture rule (below), keeping its
# journal in data/kalah-6-6/journal-CAPTURE/ (commit it as it grows: a later
# run, on any machine with the same database, goes on from it). Stop it
# with `pkill -TERM -f 'kalah solve 6 6'`: the search writes its journal
# and table snapshot first (a minute or two), then exits, losing nothing;
# kill -9 at any time loses the work since the last write. Run the same
# command to go on. The answer
# goes to data/kalah-6-6/value-CAPTURE.json when the search ends; then
# tools/kalah66_result.py CAPTURE audits it and writes start-CAPTURE.json.
#
#   tools/kalah66_proof.sh empty|standard [SOLVE FLAGS...]
#
# Flags after the capture rule go to `kalah solve`: `--guess V` begins
# MTD(f) with the test "value >= V" (before the test the journal
# recorded), `--test V` runs that one test, `--first 1,3` searches that
# line first. Empty capture, whose value is
# published (+2): `--guess 4` ran "value >= +4", which failed, then
# "value >= +2", which held (2026-12-06). Standard capture, unpublished
# (Rawlings: at least +4, through opening 1-3): `--guess 4 --first 1,3`
# runs "value >= +4", which should hold, searching 1-3 first, and MTD(f)
# climbs from there until a test fails.
# `kalah journal show data/kalah-6-6/journal-CAPTURE` says where it is.
#
# The database: standard capture (issue 63), every board with up to 34
# seeds in a window of 3 bits a board (13.6 GiB: the 6 values most boards
# of each level and mover's seeds take, bounds outside them, which the
# search expands), built one level at a time within 20 GiB from the
# 32-seed packed file when it is there (the levels below 33 copied), 44
# minutes here from nothing (docs/benchmarks/databases.md); empty capture, whose proof is done, the 32-seed packed
# file (12.9 GiB, about 10 minutes and 19.7 GiB). KALAH66_DB_SEEDS and
# KALAH66_DB_BITS (3, 4, 5 or 8) choose another; KALAH66_TT_MB the
# transposition table, in MiB (4 GiB: an 8 GiB table does not fit beside
# the database in 24 GiB with room for other work). Databases go to
# $KALAH_DB_DIR (default data/db). A progress line goes to stderr every
# minute when it is not a terminal. The database is copied into memory
# (`--db-load copied`: 1.09-1.24 times the nodes a second of the file
# read through its mapping, BENCHMARKS.md); KALAH66_DB_LOAD=mapped leaves
# it mapped, where 18 GiB is too much to take. The search asks the
# kernel to kill something else first when memory runs out
# (oom_score_adj -500, where this user may lower it: not in every
# container, where the kernel's own choice stands): a kill loses up to
# 20 minutes of proof.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/write_to.sh
capture=${1:?usage: tools/kalah66_proof.sh empty|standard [SOLVE FLAGS...]}
shift
case $capture in empty|standard) ;; *) echo "capture: empty or standard, not $capture" >&2; exit 2 ;; esac
. tools/release_kalah.sh
if [ "$capture" = standard ]; then default_seeds=34 default_bits=3; else default_seeds=32 default_bits=5; fi
seeds=${KALAH66_DB_SEEDS:-$default_seeds}
bits=${KALAH66_DB_BITS:-$default_bits}
dir=${KALAH_DB_DIR:-data/db}
db="$dir/kalah-h6-n$seeds-$capture-instant-owner-ccw-relayoff.kdb"
packed32="$dir/kalah-h6-n32-$capture-instant-owner-ccw-relayoff.kdb"
if [ ! -f "$db" ]; then
  from=()
  [ "$seeds" -gt 32 ] && [ -f "$packed32" ] && from=(--from "$packed32")
  "$kalah" db build --houses 6 --max-seeds "$seeds" --capture "$capture" --bits "$bits" --memory 20GiB "${from[@]}"
fi
echo -500 2>/dev/null > /proc/self/oom_score_adj || true
write_to "data/kalah-6-6/value-$capture.json" "$kalah" solve 6 6 --capture "$capture" --value-only --tt-mb "${KALAH66_TT_MB:-4096}" \
  --db "$db" --db-load "${KALAH66_DB_LOAD:-copied}" --journal "data/kalah-6-6/journal-$capture" --json "$@"
cat "data/kalah-6-6/value-$capture.json"
# While it runs, `tools/kalah66_commit.sh CAPTURE` beside it commits the
# journal (and the root's bounds when they move) as it grows.
