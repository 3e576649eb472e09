#!/usr/bin/env bash
# Kill-and-resume figures for the journal (issue 37, BENCHMARKS.md): one
# uninterrupted `kalah solve ARGS --value-only --json`, then the same with
# `--journal` killed with SIGKILL KILLS times at random moments (uniform in
# 10-90% of the uninterrupted run's time), then run to the end. Prints the
# value of each and the nodes of all the pieces against the one run (a
# killed piece's nodes after its journal's last write are not counted:
# with --journal-every E, at most E seconds' worth each).
#
#   tools/journal_kills.sh KILLS EVERY MIN_NODES ARGS...
#   tools/journal_kills.sh 5 1 100000 5 5 --capture empty --no-db
set -euo pipefail
cd "$(dirname "$0")/.."
kills=$1 every=$2 min_nodes=$3
shift 3
kalah="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/kalah"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
t0=$(date +%s.%N)
"$kalah" solve "$@" --value-only --no-memory --json >"$dir/whole.json" 2>/dev/null
whole=$(python3 -c "print($(date +%s.%N) - $t0)")
journal=(--journal "$dir/j" --journal-every "$every" --journal-min-nodes "$min_nodes")
for i in $(seq "$kills"); do
  delay=$(python3 -c "import random; print(round($whole * random.uniform(0.1, 0.9), 2))")
  "$kalah" solve "$@" --value-only --json "${journal[@]}" >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  if kill -KILL "$pid" 2>/dev/null; then echo "kill $i after $delay s"; else echo "run $i finished within $delay s"; fi
  wait "$pid" 2>/dev/null || true
done
"$kalah" solve "$@" --value-only --json "${journal[@]}" >"$dir/last.json" 2>/dev/null
python3 - "$dir/whole.json" "$dir/last.json" "$whole" <<'PY'
import json, sys
whole, last, secs = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), float(sys.argv[3])
j = last["journal"]
pieces = j["earlier_nodes"] + last["nodes"]
print(f"uninterrupted: value {whole['value']}, {whole['nodes']:,} nodes, {secs:.1f} s")
print(f"resumed: value {last['value']} after {j['earlier_sessions']} sessions; pieces {pieces:,} nodes = {pieces / whole['nodes']:.3f} of one run; journal {j['entries']:,} boards")
sys.exit(0 if whole["value"] == last["value"] else 1)
PY
