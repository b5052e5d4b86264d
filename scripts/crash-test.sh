#!/usr/bin/env bash
# Crash tests at scale: SIGKILLs `ferry-torture writer` KILLS times and `ferry-torture syncer`
# KILLS/4 times (at least 15), checking after every kill (see Tests/FerryTests/Durability).
#   scripts/crash-test.sh [KILLS]      default 2000
# Environment: SEED (default: random, printed), FRESH_EVERY (a new writer store after this many
# kills, default 25). Exits non-zero on the first failing check; the seed to reproduce it with
# is printed in the failure and below.
set -euo pipefail
cd "$(dirname "$0")/.."
kills="${1:-2000}"
seed="${SEED:-$(( (RANDOM << 15) | RANDOM ))}"
sync_kills=$(( kills / 4 > 15 ? kills / 4 : 15 ))
echo "crash-test: $kills writer kills and $sync_kills syncer kills, seed $seed"
swift build --build-tests
status=0
FERRY_CRASH_KILLS="$kills" FERRY_CRASH_SEED="$seed" FERRY_CRASH_FRESH_EVERY="${FRESH_EVERY:-25}" \
    swift test --skip-build --filter 'StoreKillTests' || status=$?
FERRY_SYNC_KILLS="$sync_kills" FERRY_SYNC_SEED="$seed" \
    swift test --skip-build --filter 'SyncKillTests' || status=$?
if [ "$status" -ne 0 ]; then
    echo "crash-test: FAILED (seed $seed); rerun with SEED=$seed $0 $kills" >&2
    exit "$status"
fi
echo "crash-test: passed ($kills writer kills, $sync_kills syncer kills, seed $seed)"
