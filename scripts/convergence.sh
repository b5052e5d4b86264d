#!/usr/bin/env bash
# Convergence at scale: SEEDS seeded runs of 3-5 replicas making random edits and syncing in
# random topologies under a random policy (see Tests/FerryTests/Sync/ConvergenceTests.swift).
#   scripts/convergence.sh [SEEDS]     default 500 (x ROUNDS rounds each); about 3 s a seed here
# Environment: FIRST (first seed, default: random, printed), ROUNDS (rounds per seed, default 10).
# Exits non-zero if any seed fails; each failure names its seed, which reproduces it with
#   FERRY_CONVERGENCE_SEED=<seed> FERRY_CONVERGENCE_SEEDS=1 swift test --filter ConvergenceTests
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-500}"
first="${FIRST:-$(( (RANDOM << 15) | RANDOM ))}"
rounds="${ROUNDS:-10}"
echo "convergence: $seeds seeds from $first, $rounds rounds each ($(( seeds * rounds )) rounds)"
swift build --build-tests
if ! FERRY_CONVERGENCE_SEEDS="$seeds" FERRY_CONVERGENCE_SEED="$first" FERRY_CONVERGENCE_ROUNDS="$rounds" \
    swift test --skip-build --filter 'ConvergenceTests'; then
    echo "convergence: FAILED (seeds $first..$(( first + seeds - 1 ))); see the seeds named above" >&2
    exit 1
fi
echo "convergence: passed ($seeds seeds from $first, $(( seeds * rounds )) rounds)"
