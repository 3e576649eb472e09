#!/usr/bin/env bash
# Strongly solves every Kalah(h,s) with s <= 6 whose full database (every
# board with up to 2hs seeds) has at most 2 billion boards (h <= 4; h = 5,
# s <= 3; h = 6, s <= 2; h = 7 and 8, s = 1), for both capture
# rules, and writes data/strong-manifest.csv (rules, file, size, SHA-256,
# start value, won/drawn/lost counts, reachable positions).
#
#   tools/strong.sh [extra kalah flags]
#
# Databases go to $KALAH_DB_DIR (default data/db): about 9 GiB in all.
# Check them later, byte for byte: kalah db verify --manifest data/strong-manifest.csv
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/release_kalah.sh
manifest=data/strong-manifest.csv
configs=""
for h in 1 2 3 4; do for s in 1 2 3 4 5 6; do configs+=" $h,$s"; done; done
configs+=" 5,1 5,2 5,3 6,1 6,2 7,1 8,1"
start=$SECONDS
for capture in standard empty; do
  for c in $configs; do
    h=${c%,*}; s=${c#*,}
    t0=$SECONDS
    echo "== kalah strong $h $s --capture $capture $*"
    "$kalah" strong "$h" "$s" --capture "$capture" --manifest "$manifest" "$@"
    echo "   ($(( SECONDS - t0 )) s)"
  done
done
echo "all done in $(( SECONDS - start )) s; manifest: $manifest"
