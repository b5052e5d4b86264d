#!/usr/bin/env bash
# Attacks ferry serve on loopback while a normal client reads and writes (issue 21); see
# scripts/attack-test.py for the attacks and what passing means.
#   scripts/attack-test.sh            # builds ferry (debug) unless FERRY_BIN is set
set -euo pipefail
cd "$(dirname "$0")/.."
FERRY="${FERRY_BIN:-}"
if [ -z "$FERRY" ]; then
    swift build --product ferry >/dev/null
    FERRY="$(swift build --show-bin-path)/ferry"
fi
[ -x "$FERRY" ] || { echo "attack-test: no ferry binary at $FERRY" >&2; exit 1; }
exec timeout 900 python3 scripts/attack-test.py "$FERRY"
