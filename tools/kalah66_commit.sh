#!/usr/bin/env bash
# Commits the Kalah(6,6) proof's journal as it grows (issue 63: at least
# every 30 minutes), beside a running `tools/kalah66_proof.sh CAPTURE`:
# every few minutes, if data/kalah-6-6/journal-CAPTURE/journal.kj changed
# (the search rewrites it whole, under a temporary name then renamed),
# a commit of that file alone, "Kalah(6,6) CAPTURE: journal of HH:MM"
# (UTC); and when the proven bounds moved (the root's, the test's, an
# opening turn's), bounds-CAPTURE.json written again
# (tools/kalah66_bounds.sh) and committed with it. Nothing
# else of the checkout is committed, whatever is staged. It ends after
# the proof's process does, with a last commit of what it wrote at its
# stop.
#
#   tools/kalah66_commit.sh empty|standard [SECONDS]   (default: 180)
#
# Run it in the background: `nohup tools/kalah66_commit.sh standard &`.
set -euo pipefail
cd "$(dirname "$0")/.."
capture=${1:?usage: tools/kalah66_commit.sh empty|standard [SECONDS]}
every=${2:-180}
case $capture in empty|standard) ;; *) echo "capture: empty or standard, not $capture" >&2; exit 2 ;; esac
case $every in '' | *[!0-9]*) echo "seconds: a whole number, not $every" >&2; exit 2 ;; esac
. tools/release_kalah.sh
journal=data/kalah-6-6/journal-$capture/journal.kj
bounds=data/kalah-6-6/bounds-$capture.json

# What is proven, from a journal-show object (the journal) or the bounds
# file: the root's bounds and test, each opening turn's bounds.
proven_of() {
  python3 -c 'import json, sys; b = json.load(sys.stdin); print(json.dumps([b["lower"], b["upper"], b["value"], b["testing"], [[t["turn"], t["lower"], t["upper"]] for t in b["turns"]]]))'
}

commit_once() {
  git diff --quiet -- "$journal" && return 0
  local paths=("$journal")
  local now was
  now=$("$kalah" journal show "data/kalah-6-6/journal-$capture" --json | proven_of)
  was=$(proven_of <"$bounds" 2>/dev/null || echo none)
  if [ "$now" != "$was" ]; then
    tools/kalah66_bounds.sh "$capture" >/dev/null
    paths+=("$bounds")
  fi
  # Another commit in the checkout at the same moment holds the index
  # lock: try again next round.
  if git commit -q -m "Kalah(6,6) $capture: journal of $(date -u +%H:%M)" -- "${paths[@]}"; then
    echo "$(date -u +%H:%M:%S) committed ${paths[*]} (proven: $now)"
  fi
}

running() {
  pgrep -f "kalah solve 6 6 --capture $capture" >/dev/null
}

running || echo "no proof of $capture capture runs now: one round, then the end" >&2
while running; do
  commit_once
  sleep "$every"
done
commit_once
