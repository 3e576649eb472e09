#!/usr/bin/env bash
# What the Kalah(6,6) proof has proven so far (issue 63): writes
# data/kalah-6-6/bounds-CAPTURE.json from the proof's journal, the
# `kalah journal show --json --depth 1` object: the root's proven `lower`
# and `upper` bounds (null where none is proven yet), the test it is
# running, nodes and seconds over all sessions, and each opening turn's
# proven bounds (South's turns at the start, each valued for South, as
# the root is). Commit it with the journal: each bound holds over any
# database, and a root bound is a result before the value is exact.
#
#   tools/kalah66_bounds.sh empty|standard
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/write_to.sh
capture=${1:?usage: tools/kalah66_bounds.sh empty|standard}
case $capture in empty|standard) ;; *) echo "capture: empty or standard, not $capture" >&2; exit 2 ;; esac
. tools/release_kalah.sh
write_to "data/kalah-6-6/bounds-$capture.json" "$kalah" journal show "data/kalah-6-6/journal-$capture" --depth 1 --json
python3 - "data/kalah-6-6/bounds-$capture.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
bound = lambda lo, hi: f"{lo:+d}" if lo is not None and lo == hi else f"{'?' if lo is None else f'{lo:+d}'}..{'?' if hi is None else f'{hi:+d}'}"
testing = "" if b["testing"] is None or b["value"] is not None else f" (testing >= {b['testing']:+d})"
start = f"{b['value']:+d}" if b["value"] is not None else bound(b["lower"], b["upper"])
print(f"{sys.argv[1]}: the start (for South) {start}{testing}, {b['nodes'] / 1e9:.1f} G nodes, {b['seconds'] / 3600:.1f} h")
for t in b["turns"]:
    if t["lower"] is not None or t["upper"] is not None:
        exact = f"{t['value']:+d}" if t["value"] is not None else bound(t["lower"], t["upper"])
        print(f"  {'-'.join(map(str, t['turn']))}: {exact}")
PY
