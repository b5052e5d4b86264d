#!/usr/bin/env bash
# Crash tests at scale (see Tests/FerryTests/Durability), checking the store after every kill:
#   - `ferry-torture writer` SIGKILLed KILLS times (StoreKillTests),
#   - two writers sharing one store, both killed, KILLS/4 times (SharedStoreKillTests),
#   - `ferry-torture syncer` SIGKILLed mid-sync KILLS/10 times, at least 15 (SyncKillTests).
#   scripts/crash-test.sh [KILLS]      default 1000 (about 15 minutes here)
# Environment: SEED (default: random, printed), FRESH_EVERY (a new writer store after this many
# kills, default 25). Exits non-zero if any check fails; failures name the seed and kill, and
# SEED=<seed> reproduces the same sequence of writes and kill delays.
set -euo pipefail
cd "$(dirname "$0")/.."
kills="${1:-1000}"
seed="${SEED:-$(( (RANDOM << 15) | RANDOM ))}"
shared_kills=$(( kills / 4 > 10 ? kills / 4 : 10 ))
sync_kills=$(( kills / 10 > 15 ? kills / 10 : 15 ))
echo "crash-test: $kills writer kills, $shared_kills shared-store double kills, $sync_kills syncer kills, seed $seed"
swift build --build-tests
status=0
FERRY_CRASH_KILLS="$kills" FERRY_CRASH_SEED="$seed" FERRY_CRASH_FRESH_EVERY="${FRESH_EVERY:-25}" \
    swift test --skip-build --filter 'FerryTests\.StoreKillTests' || status=$?
FERRY_SHARED_KILLS="$shared_kills" FERRY_CRASH_SEED="$seed" \
    swift test --skip-build --filter 'FerryTests\.SharedStoreKillTests' || status=$?
FERRY_SYNC_KILLS="$sync_kills" FERRY_SYNC_SEED="$seed" \
    swift test --skip-build --filter 'FerryTests\.SyncKillTests' || status=$?
if [ "$status" -ne 0 ]; then
    echo "crash-test: FAILED (seed $seed); rerun with SEED=$seed $0 $kills" >&2
    exit "$status"
fi
echo "crash-test: passed ($kills + $shared_kills x 2 + $sync_kills kills, seed $seed)"
