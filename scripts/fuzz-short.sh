#!/usr/bin/env bash
# Runs every Go fuzz target in the module for a short time (FUZZTIME, default 5s).
# CI runs it briefly; run it longer by hand: FUZZTIME=10m scripts/fuzz-short.sh
set -euo pipefail
export GOTOOLCHAIN=local
cd "$(dirname "$0")/.."
t="${FUZZTIME:-5s}"
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for fz in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "fuzz $pkg $fz ($t)"
    go test -run '^$' -fuzz "^${fz}\$" -fuzztime "$t" "$pkg" >/dev/null
  done
done
