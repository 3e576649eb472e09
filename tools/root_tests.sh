#!/usr/bin/env bash
# The root tests `kalah solve` is told to run (issue 51), on the boards too
# slow for the test suite (tests/journal.rs has the quick ones): on each
# start with a published value V (data/published.csv), `--test V` must
# hold, `--test V+2` must fail with a bound of at most V, and `--guess V+2`
# and `--guess V-2` must give V. Prints each answer's nodes and seconds;
# exit code 1 on any wrong answer.
#
#   tools/root_tests.sh     (Kalah(5,5) empty capture, Kalah(6,4) under both rules)
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/release_kalah.sh
export KALAH_DB_DIR=${KALAH_DB_DIR:-$(mktemp -d)}
failed=0
# houses seeds capture published-value
for case in "5 5 empty 2" "6 4 empty 10" "6 4 standard 8"; do
  set -- $case
  h=$1 s=$2 capture=$3 v=$4
  for ask in "--test $v" "--test $((v + 2))" "--guess $((v + 2))" "--guess $((v - 2))"; do
    # shellcheck disable=SC2086
    out=$("$kalah" solve "$h" "$s" --capture "$capture" --value-only --no-memory --db-seeds 16 $ask --json 2>/dev/null)
    python3 - "$out" "$v" "$ask" "Kalah($h,$s) $capture" <<'PY' || failed=1
import json, sys
a, v, ask, name = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
kind, x = ask.split()
x = int(x)
if kind == "--test":
    t = a["test"]
    ok = t["holds"] == (v >= x) and (v >= t["bound"] >= x if t["holds"] else v <= t["bound"] < x)
    said = f"{'holds' if t['holds'] else 'fails'}, bound {t['bound']:+}"
else:
    ok = a["value"] == v
    said = f"value {a['value']:+}"
print(f"{name} {ask:<10} {said:<20} {a['nodes']:>13,} nodes {a['seconds']:6.2f} s {'ok' if ok else 'WRONG (published ' + str(v) + ')'}")
sys.exit(0 if ok else 1)
PY
  done
done
exit $failed
