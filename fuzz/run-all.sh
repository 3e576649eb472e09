#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 630) one after the other, on
# one core, logging to fuzz/logs/<target>.log (see RELIABILITY.md).
set -u
cd "$(dirname "$0")"
seconds=${1:-630}
shift || true
targets=${*:-position rule_args database}
for t in $targets; do
  case $t in
    database) max_len=70000 ;;
    *) max_len=256 ;;
  esac
  mkdir -p corpus/$t logs
  cargo +nightly fuzz run $t corpus/$t seeds/$t -- \
    -max_total_time=$seconds -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    >logs/$t.log 2>&1
  echo "$t: exit $?" >>logs/summary.log
done
