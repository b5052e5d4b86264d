#!/usr/bin/env bash
# Load test of `ferry serve`: 100 concurrent clients syncing against one store for 60 seconds
# with wrk (installed from Debian's packages when missing), on loopback only. Prints requests
# per second, p50/p99 latency and the server's memory (VmRSS from /proc) before and after, and
# fails on any error (a non-2xx answer, a refused or dropped connection, a timeout).
#
#   scripts/load-test.sh [--clients 100] [--seconds 60]     # FERRY_BIN=… to skip the build
#
# Not part of `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS=100
SECONDS_TO_RUN=60
while [ $# -gt 0 ]; do
    case "$1" in
        --clients) CLIENTS=$2; shift 2 ;;
        --seconds) SECONDS_TO_RUN=$2; shift 2 ;;
        *) echo "usage: scripts/load-test.sh [--clients N] [--seconds S]" >&2; exit 2 ;;
    esac
done
log() { printf 'load-test: %s\n' "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

if ! command -v wrk >/dev/null 2>&1; then
    log "installing wrk from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null
fi
if [ -n "${FERRY_BIN:-}" ]; then
    FERRY="$FERRY_BIN"
else
    log "building ferry (release)"
    swift build -c release --product ferry >/dev/null
    FERRY="$(swift build -c release --show-bin-path)/ferry"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ferry-load.XXXXXX")
SERVE_PID=""
cleanup() {
    if [ -n "$SERVE_PID" ]; then kill -TERM "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/stores"
"$FERRY" serve "$WORK/stores" --port 0 --max-connections $((CLIENTS + 50)) > "$WORK/serve.out" 2> "$WORK/serve.log" &
SERVE_PID=$!
for _ in $(seq 1 100); do grep -q "^token:" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/serve.out" | head -1)
TOKEN=$(sed -n 's/^token: //p' "$WORK/serve.out")
[ -n "$PORT" ] && [ -n "$TOKEN" ] || { cat "$WORK/serve.log" >&2; fail "ferry serve did not start"; }
BASE="http://127.0.0.1:$PORT/v1/stores/load"

# Seed the store with 1,000 records in one push (which also creates it).
python3 - "$WORK/seed.json" "$WORK/pushes.jsonl" <<'PY'
import hashlib, json, sys, time, uuid
# Every pushed change carries its digest, chained to its origin's previous one (docs/PROTOCOL.md).
def signed(change, parent):
    change["parent"] = parent
    canonical = json.dumps(change, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    change["digest"] = hashlib.sha256(canonical.encode()).hexdigest()
    return change
origin = str(uuid.uuid4())
now = int(time.time() * 1000)
changes, parent = [], "0" * 64
for i in range(1000):
    change = signed({"origin": origin, "counter": i + 1, "hlc": f"{now}.{i}", "op": "put", "entity": "Item", "id": f"item-{i}",
                     "doc": {"name": f"item {i}", "price": i % 100}, "vv": {origin: i + 1}}, parent)
    parent = change["digest"]
    changes.append(change)
json.dump({"changes": changes}, open(sys.argv[1], "w"))
# The pushes wrk sends: each the first change of an origin of its own, since a thread's
# connections answer out of order and an origin's changes must arrive in order.
with open(sys.argv[2], "w") as pushes:
    for i in range(40000):
        o = str(uuid.uuid4())
        change = signed({"origin": o, "counter": 1, "hlc": f"{now}.0", "op": "put", "entity": "Load", "id": f"l{i}",
                         "doc": {"n": i}, "vv": {o: 1}}, "0" * 64)
        pushes.write(json.dumps({"changes": [change]}, separators=(",", ":")) + "\n")
PY
curl -sS --fail-with-body -H "Authorization: Bearer $TOKEN" -X POST --data-binary "@$WORK/seed.json" "$BASE/push" > /dev/null \
    || fail "seeding the store"

rss() { awk '/^VmRSS:/ { printf "%.1f MB", $2 / 1024 }' "/proc/$SERVE_PID/status"; }
RSS_BEFORE=$(rss)
log "server pid $SERVE_PID on :$PORT, RSS before: $RSS_BEFORE; $CLIENTS clients for ${SECONDS_TO_RUN}s"
FERRY_TOKEN="$TOKEN" FERRY_STORE=load FERRY_PUSHES="$WORK/pushes.jsonl" FERRY_THREADS=2 wrk -t2 -c"$CLIENTS" -d"${SECONDS_TO_RUN}s" --timeout 10s --latency \
    -s scripts/load-test.lua "http://127.0.0.1:$PORT" > "$WORK/wrk.out" 2>&1 || { cat "$WORK/wrk.out"; fail "wrk failed"; }
RSS_AFTER=$(rss)
RSS_PEAK=$(awk '/^VmHWM:/ { printf "%.1f MB", $2 / 1024 }' "/proc/$SERVE_PID/status")
kill -TERM "$SERVE_PID"
wait "$SERVE_PID" && STOP=0 || STOP=$?
SERVE_PID=""

cat "$WORK/wrk.out"
REQUESTS=$(sed -n 's/^requests //p' "$WORK/wrk.out")
ERRORS=$(sed -n 's/^errors //p' "$WORK/wrk.out")
P50=$(sed -n 's/^latency_p50_ms //p' "$WORK/wrk.out")
P99=$(sed -n 's/^latency_p99_ms //p' "$WORK/wrk.out")
RATE=$(sed -n 's/^Requests\/sec: *//p' "$WORK/wrk.out")
PUSHES=$(grep -c "POST /v1/stores/load/push 200" "$WORK/serve.log" || true)
echo "---"
echo "clients:        $CLIENTS for ${SECONDS_TO_RUN} s"
echo "requests:       $REQUESTS ($RATE/s), pushes applied: $PUSHES"
echo "errors:         $ERRORS"
echo "latency:        p50 $P50 ms, p99 $P99 ms"
echo "server memory:  RSS before $RSS_BEFORE, after $RSS_AFTER (peak $RSS_PEAK)"
echo "server stop:    exit $STOP after SIGTERM"
[ "$ERRORS" = "connect=0 read=0 write=0 status=0 timeout=0" ] || fail "errors during the run"
grep -q "Non-2xx" "$WORK/wrk.out" && fail "non-2xx answers"
[ "$STOP" = 0 ] || fail "ferry serve did not exit 0 on SIGTERM"
log "passed"
