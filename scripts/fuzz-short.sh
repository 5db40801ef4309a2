#!/usr/bin/env bash
# Runs every Go fuzz target in the module for a short time (FUZZTIME, default 5s).
# CI runs it briefly; run it longer by hand: FUZZTIME=10m scripts/fuzz-short.sh
#
# A failing input fails the run at once (Go writes it under testdata/fuzz; commit
# it with the fix). A run that fails without one is the fuzzing engine itself (a
# worker that did not answer in time on a loaded machine, reported as "context
# deadline exceeded"): its output is shown and the target runs again, five
# attempts in all.
#
# New interesting inputs are minimized for at most 500 runs each
# (-fuzzminimizetime 500x), not Go's default of 60 s: a minimization still
# running when the fuzz time ends was the commonest way the engine missed
# its deadline (FuzzReadInfo's workers sat in minimization from its fifth
# second on, and failed every first attempt). It still happens now and
# then, hence the attempts. Minimizing only keeps the corpus small; a
# failing input is reported either way.
set -euo pipefail
export GOTOOLCHAIN=local
cd "$(dirname "$0")/.."
t="${FUZZTIME:-5s}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fuzz() { go test -run '^$' -fuzz "^$2\$" -fuzztime "$t" -fuzzminimizetime 500x "$1" >"$log" 2>&1; }
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for fz in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "fuzz $pkg $fz ($t)"
    for attempt in 1 2 3 4 5; do
      fuzz "$pkg" "$fz" && continue 2
      if grep -q 'Failing input written to' "$log" || [ "$attempt" = 5 ]; then
        cat "$log"
        exit 1
      fi
      echo "fuzz $pkg $fz: the fuzzing engine failed without a failing input (attempt $attempt of 5). Its output:"
      tail -n 8 "$log"
    done
  done
done
