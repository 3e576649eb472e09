#!/usr/bin/env bash
# The opening book this project carries (issue 53): data/book/book.kbk,
# format in the `kalah` library's `book` module. For each game below,
# every position within its plies with every move's exact value and a
# line of best play, by `kalah book build` over the default database of
# its rules (built first if there is none: 24 seeds for six houses).
# Resumable: the book is written whole every minute; run this again after
# a kill and it goes on (a deeper ply count goes on from a shallower one).
# Then rebuild kalah, which carries the book in its binary.
#
#   tools/book.sh [GAME...]    GAME as H:S:CAPTURE:PLIES, default all below
#
# Then check it: kalah book verify --all (every entry proven again).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/release_kalah.sh
book=${KALAH_BOOK:-data/book/book.kbk}
games=("$@")
if [ ${#games[@]} -eq 0 ]; then
  # The explorer's and `kalah play`'s default game first, under both
  # capture rules; then the smaller games people start with.
  games=(6:4:standard:4 6:4:empty:4 6:3:standard:6 6:3:empty:6 4:4:standard:8 4:4:empty:8 4:3:standard:8 4:3:empty:8)
fi
for game in "${games[@]}"; do
  IFS=: read -r h s capture plies <<<"$game"
  # Six houses: the 24-seed database, named (a larger one of the folder,
  # such as the Kalah(6,6) proof's 30 seeds, would be mapped, not loaded,
  # and a machine short of memory would read it from disk at every probe).
  dbflag=()
  if [ "$h" -eq 6 ]; then
    db="${KALAH_DB_DIR:-data/db}/kalah-h6-n24-$capture-instant-owner-ccw-relayoff.kdb"
    [ -f "$db" ] || "$kalah" db build 6 24 --capture "$capture"
    dbflag=(--db "$db")
  fi
  echo "== Kalah($h,$s) $capture, every position within $plies plies"
  # shellcheck disable=SC2086
  "$kalah" book build "$h" "$s" --capture "$capture" --plies "$plies" -o "$book" "${dbflag[@]}" ${KALAH_BOOK_FLAGS:-}
done
"$kalah" book info -f "$book"
