#!/usr/bin/env bash
# The tables of Kalah(h,s) values, written to data/tables/*.json and printed:
#   - both capture rules (other options as RULES.md's defaults), h, s = 1..6;
#     Kalah(6,6) and anything else not solved within the time limit shows
#     the bounds proven in it;
#   - every other rule combination for s <= 4: h <= 6 with counter-
#     clockwise sowing (a shorter time limit per entry; without relay,
#     Kalah(6,s) is searched with a 24-seed database built for the rules,
#     about 30 s, and the main time limit); with clockwise
#     sowing (retrograde analysis of every board) h <= 4, Kalah(5,1..3)
#     and Kalah(6,1), merged into one file with jq, and bounds on the
#     larger starts up to s = 4 proven by searches over the largest of
#     these databases (the other time limit each). Kalah(5,3) is 848
#     million boards, 4.7 GB and 5 to 8 minutes a rule set (before the
#     solver got twice as fast; skip it with --no-cw-5-3); Kalah(6,2) is
#     1.25 billion boards, at most 9.4 GB and 5 to 12 minutes a rule set,
#     so it only runs with --cw-6-2 (about 3 hours for all 24); Kalah(5,4)
#     is 10.3 billion boards and 13.4 GiB without relay (52.3 GiB with
#     it), so --cw-5-4 runs it for the 12 rule sets without relay only;
#     the exact Kalah(6,3) and beyond do not fit.
#
#   tools/table.sh [--time-limit SECONDS] [--other-time-limit SECONDS] [--only main|other] [--no-cw-5-3] [--cw-6-2] [--cw-5-4]
#
# Uses the default databases in $KALAH_DB_DIR (default data/db) when they
# exist (build them with `kalah db build`); Kalah(6,5) needs one of 24
# seeds or more to finish in minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/write_to.sh
. tools/release_kalah.sh
limit=600
other=60
only=""
cw53=yes
cw62=no
cw54=no
while [ $# -gt 0 ]; do
  case "$1" in
    --no-cw-5-3) cw53=no; shift ;;
    --cw-6-2) cw62=yes; shift ;;
    --cw-5-4) cw54=yes; shift ;;
    --time-limit) limit=$2; shift 2 ;;
    --other-time-limit) other=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "usage: tools/table.sh [--time-limit SECONDS] [--other-time-limit SECONDS] [--only main|other] [--no-cw-5-3] [--cw-6-2] [--cw-5-4]" >&2; exit 2 ;;
  esac
done
mkdir -p data/tables
start=$SECONDS
for capture in empty standard; do
  [ "$only" = other ] && break
  t0=$SECONDS
  echo "== capture=$capture, h,s = 1..6, at most $limit s each"
  write_to "data/tables/capture-$capture.json" "$kalah" table --houses 1-6 --seeds 1-6 --capture "$capture" --time-limit "$limit" --json
  echo "   ($(( SECONDS - t0 )) s)"
done
for capture in standard empty; do for end in instant turn; do for leftovers in owner unscored emptier; do
  [ "$only" = main ] && break 3
  for sowing in ccw cw; do for relay in off on; do
    tag="$capture-$end-$leftovers-$sowing-relay$relay"
    [ "$tag" = "$capture-instant-owner-ccw-relayoff" ] && continue   # the tables above
    rules=(--capture "$capture" --end "$end" --leftovers "$leftovers" --sowing "$sowing" --relay "$relay" --json)
    t0=$SECONDS
    if [ "$sowing" = ccw ] && [ "$relay" = on ]; then
      echo "== $tag, h = 1..6, s = 1..4, at most $other s each"
      write_to "data/tables/other-$tag.json" "$kalah" table --houses 1-6 --seeds 1-4 "${rules[@]}" --time-limit "$other"
    elif [ "$sowing" = ccw ]; then
      echo "== $tag, h = 1..5, s = 1..4, at most $other s each; Kalah(6,1..4) with a 24-seed database, at most $limit s each"
      "$kalah" table --houses 1-5 --seeds 1-4 "${rules[@]}" --time-limit "$other" > "data/tables/other-$tag.json.1"
      "$kalah" table --houses 6 --seeds 1-4 --db-seeds 24 "${rules[@]}" --time-limit "$limit" > "data/tables/other-$tag.json.2"
      write_to "data/tables/other-$tag.json" jq -cs '.[0] + {entries: (.[0].entries + .[1].entries)}' \
        "data/tables/other-$tag.json".{1,2}
      rm "data/tables/other-$tag.json".{1,2}
    else
      # Exact up to Kalah(5,five) and Kalah(6,six) (every board up to their
      # seeds by retrograde analysis); the starts above get bounds proven by
      # searches over that database, at most $other s each.
      five=2; [ "$cw53" = yes ] && five=3
      # Kalah(5,4) fits only without relay (13.4 GiB; 52.3 GiB with relay).
      [ "$cw54" = yes ] && [ "$relay" = off ] && five=4
      six=1; [ "$cw62" = yes ] && six=2
      bounds="Kalah(6,$((six + 1))..4)"; [ "$five" -lt 4 ] && bounds="Kalah(5,$((five + 1))..4), $bounds"
      echo "== $tag, h = 1..4 with s = 1..4, Kalah(5,1..$five), Kalah(6,1..$six); bounds on $bounds"
      "$kalah" table --houses 1-4 --seeds 1-4 "${rules[@]}" --time-limit "$other" > "data/tables/other-$tag.json.1"
      "$kalah" table --houses 5 --seeds 1-4 --db-seeds $((10 * five)) "${rules[@]}" --time-limit "$other" > "data/tables/other-$tag.json.2"
      "$kalah" table --houses 6 --seeds 1-4 --db-seeds $((12 * six)) "${rules[@]}" --time-limit "$other" > "data/tables/other-$tag.json.3"
      write_to "data/tables/other-$tag.json" jq -s '.[0] + {entries: (.[0].entries + .[1].entries + .[2].entries)}' \
        "data/tables/other-$tag.json".{1,2,3}
      rm "data/tables/other-$tag.json".{1,2,3}
    fi
    echo "   ($(( SECONDS - t0 )) s)"
  done; done
done; done; done
echo "all done in $(( SECONDS - start )) s"
