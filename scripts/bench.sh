#!/usr/bin/env bash
# Runs padd's benchmarks at the sizes docs/PERFORMANCE.md reports, one
# package at a time so they do not compete for the 2 cores. Each 100k
# benchmark builds its own generated workspace first (a minute or two).
#   scripts/bench.sh            all of them
#   scripts/bench.sh storage    one area: storage, search, views, rest, mcp, padctl
set -euo pipefail
export GOTOOLCHAIN=local
cd "$(dirname "$0")/.."
area="${1:-all}"
run() { echo "== $*"; go test -run '^$' "$@" 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)' ; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
case "$area" in all|storage)
  run -bench 'BulkLoad100k' -benchtime=1x ./storage/
  run -bench 'Create100k$|ConcurrentCreates100k|GetByRef100k|ListFilteredPage100k|ListNonTerminalPage100k|ListSorted100k' -benchtime=2000x ./storage/
  run -bench 'ChangesSince1000' ./storage/ ;;
esac
case "$area" in all|views)
  run -bench 'Dashboard|Next|Ready|Stale|Bootstrap|ItemContext' -benchtime=300x ./storage/views/ ;;
esac
case "$area" in all|search)
  run -bench 'IndexFromScratch100k' -benchtime=1x ./searchindex/
  run -bench 'Query100k' -benchtime=500x ./searchindex/
  run -bench 'CatchUp1000' -benchtime=1x ./searchindex/ ;;
esac
case "$area" in all|rest)
  run -bench 'REST100k' -benchtime=500x ./e2e/
  run -bench 'StartAndRSS100k' -benchtime=1x ./e2e/ ;;
esac
case "$area" in all|mcp)
  run -bench '.' -benchtime=300x ./mcpstdio/ ;;
esac
case "$area" in all|padctl)
  PADCTL_BENCH_ITEMS=100000 run -bench 'ColdPadctl' -benchtime=50x ./cli/ ;;
esac
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
