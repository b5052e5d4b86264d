#!/usr/bin/env bash
# Runs a real sync through nginx as a TLS-terminating reverse proxy in front of `ferry serve`,
# all on loopback, with its own prefix and config in a temporary folder (no system service).
#
#   scripts/nginx-sync-test.sh            # builds ferry (debug) unless FERRY_BIN is set
#
# Installs nginx from Debian's packages when it is missing (needs root, as on CI).
# What it checks:
#   1. a sync through nginx (plain HTTP on a loopback port, proxied to ferry serve),
#      using the very location block docs/DEPLOY.md shows;
#   2. the same protocol over HTTPS through nginx with curl --cacert (the TLS half): info,
#      a change stream, a push;
#   3. a sync over HTTPS with URLSession trusting the test certificate through
#      URLSessionCertificateAuthorityInfoFile, reported but not required (swift-corelibs-foundation
#      reads that variable only on some platforms);
#   4. with FERRY_NGINX_TRUST_TEST_CERTIFICATE=1, as root (.ci/run sets it): the certificate in
#      the system's trust store for the run, a sync over HTTPS, and a `--watch` that follows the
#      change feed over HTTPS, brings a change, and sleeps while the feed is quiet.
# Exits non-zero on any failure of 1, 2 or 4.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'nginx-sync-test: %s\n' "$*" >&2; }
fail() {
    log "FAILED: $*"
    # What the two servers said, for whoever reads the CI log.
    for file in "${WORK:-}/nginx/logs/error.log" "${WORK:-}/serve.log"; do
        [ -f "$file" ] && { log "--- tail of $file"; tail -n 15 "$file" >&2; }
    done
    exit 1
}

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    log "installing nginx from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq nginx-light >/dev/null 2>&1 || apt-get install -y -qq nginx >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
command -v openssl >/dev/null || fail "openssl is needed to make the test certificate"
command -v curl >/dev/null || fail "curl is needed"

if [ -n "${FERRY_BIN:-}" ]; then
    FERRY="$FERRY_BIN"
else
    log "building ferry"
    swift build --product ferry >/dev/null
    FERRY="$(swift build --show-bin-path)/ferry"
fi
[ -x "$FERRY" ] || fail "no ferry binary at $FERRY"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ferry-nginx.XXXXXX")
SERVE_PID=""
WATCH_PID=""
TRUSTED_CERTIFICATE=""
cleanup() {
    if [ -n "$WATCH_PID" ]; then kill -TERM "$WATCH_PID" 2>/dev/null || true; wait "$WATCH_PID" 2>/dev/null || true; fi
    if [ -n "$TRUSTED_CERTIFICATE" ]; then rm -f "$TRUSTED_CERTIFICATE"; update-ca-certificates --fresh >/dev/null 2>&1 || true; fi
    if [ -f "$WORK/nginx/nginx.pid" ]; then "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -s stop 2>/dev/null || true; fi
    if [ -n "$SERVE_PID" ]; then kill -TERM "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# 1. ferry serve on loopback, with a tokens file.
mkdir -p "$WORK/stores" "$WORK/nginx/logs" "$WORK/nginx/tmp"
# nginx buffers request bodies to disk (docs/DEPLOY.md), from workers that drop root: they must
# reach its temporary folder.
chmod 755 "$WORK" "$WORK/nginx"
chmod 777 "$WORK/nginx/tmp"
TOKEN=$(openssl rand -hex 32)
printf '{"tokens": [{"token": "%s", "stores": ["*"], "access": "read-write"}]}\n' "$TOKEN" > "$WORK/tokens.json"
FERRY_PORT=$(free_port)
"$FERRY" serve "$WORK/stores" --port "$FERRY_PORT" --tokens "$WORK/tokens.json" > "$WORK/serve.out" 2> "$WORK/serve.log" &
SERVE_PID=$!
for _ in $(seq 1 100); do grep -q "serving" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
grep -q "serving" "$WORK/serve.out" || { cat "$WORK/serve.log" >&2; fail "ferry serve did not start"; }

# 2. A self-signed certificate for 127.0.0.1 / localhost.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$WORK/nginx/key.pem" -out "$WORK/nginx/cert.pem" >/dev/null 2>&1 \
    || fail "openssl could not make a certificate"

# 3. nginx with its own prefix: TLS on one loopback port, plain HTTP on another, both proxied.
HTTPS_PORT=$(free_port)
HTTP_PORT=$(free_port)
LOCATION=$(sed -n '/# BEGIN ferry location/,/# END ferry location/p' docs/DEPLOY.md | sed "s/127.0.0.1:8080/127.0.0.1:$FERRY_PORT/")
[ -n "$LOCATION" ] || fail "docs/DEPLOY.md has no ferry location block"
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 256; }
http {
    access_log $WORK/nginx/logs/access.log;
    client_body_temp_path $WORK/nginx/tmp/body;
    proxy_temp_path $WORK/nginx/tmp/proxy;
    fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
    uwsgi_temp_path $WORK/nginx/tmp/uwsgi;
    scgi_temp_path $WORK/nginx/tmp/scgi;
    server {
        listen 127.0.0.1:$HTTPS_PORT ssl;
        server_name localhost;
        ssl_certificate $WORK/nginx/cert.pem;
        ssl_certificate_key $WORK/nginx/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
$LOCATION
    }
    server {
        listen 127.0.0.1:$HTTP_PORT;
        server_name localhost;
$LOCATION
    }
}
CONF
"$NGINX" -t -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" >/dev/null 2>&1 \
    || { "$NGINX" -t -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" || true; fail "nginx rejected the configuration"; }
"$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" || fail "nginx did not start"
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$HTTP_PORT/ferry/v1" && break; sleep 0.1; done
log "ferry serve on :$FERRY_PORT, nginx https on :$HTTPS_PORT and http on :$HTTP_PORT"

# 4. Two local stores; sync both through nginx over HTTP.
export FERRY_TOKEN="$TOKEN"
"$FERRY" init "$WORK/laptop" >/dev/null
"$FERRY" init "$WORK/phone" >/dev/null
"$FERRY" put "$WORK/laptop" Note n1 --json '{"title": "written on the laptop"}' >/dev/null
"$FERRY" put "$WORK/phone" Note n2 --json '{"title": "written on the phone"}' >/dev/null
PEER="http://127.0.0.1:$HTTP_PORT/ferry/alice"
"$FERRY" sync "$WORK/laptop" "$PEER" --json > "$WORK/s1.json" || fail "laptop sync through nginx"
"$FERRY" sync "$WORK/phone" "$PEER" --json > "$WORK/s2.json" || fail "phone sync through nginx"
"$FERRY" sync "$WORK/laptop" "$PEER" --json > "$WORK/s3.json" || fail "second laptop sync through nginx"
grep -q '"plan":"full-push"' "$WORK/s1.json" || fail "first sync was not a full push: $(cat "$WORK/s1.json")"
grep -q '"plan":"reconcile"' "$WORK/s2.json" || fail "phone sync was not a reconcile: $(cat "$WORK/s2.json")"
"$FERRY" get "$WORK/laptop" Note n2 | grep -q "written on the phone" || fail "the laptop did not receive the phone's note"
"$FERRY" get "$WORK/phone" Note n1 | grep -q "written on the laptop" || fail "the phone did not receive the laptop's note"
log "sync through nginx (http): ok"

# 5. The protocol over TLS, verified against the test certificate.
H="Authorization: Bearer $TOKEN"
BASE="https://127.0.0.1:$HTTPS_PORT/ferry/v1/stores/alice"
curl -sS --fail-with-body --cacert "$WORK/nginx/cert.pem" -H "$H" "$BASE" | grep -q '"protocol":1' || fail "info over https"
curl -sS --fail-with-body --cacert "$WORK/nginx/cert.pem" -H "$H" "$BASE/snapshot" | grep -q '"end":true' || fail "snapshot over https"
# A change written by hand, with the digest every pushed change carries (docs/PROTOCOL.md):
# SHA-256 of its canonical JSON with "parent" (zeros for an origin's first change).
BODY=$(python3 - <<'PY'
import hashlib, json, time, uuid
origin = str(uuid.uuid4())
change = {"counter": 1, "doc": {"title": "pushed over TLS"}, "entity": "Note", "hlc": "%d.0" % (time.time() * 1000),
          "id": "via-tls", "op": "put", "origin": origin, "parent": "0" * 64, "vv": {origin: 1}}
canonical = json.dumps(change, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
change["digest"] = hashlib.sha256(canonical.encode()).hexdigest()
print(json.dumps({"changes": [change]}, separators=(",", ":")))
PY
)
curl -sS --fail-with-body --cacert "$WORK/nginx/cert.pem" -H "$H" -X POST --data "$BODY" "$BASE/push" | grep -q '"applied":1' \
    || fail "push over https"
if curl -s -o /dev/null "https://127.0.0.1:$HTTPS_PORT/ferry/v1" 2>/dev/null; then fail "curl trusted the self-signed certificate without --cacert"; fi
"$FERRY" sync "$WORK/laptop" "$PEER" --json > /dev/null || fail "sync after the TLS push"
"$FERRY" get "$WORK/laptop" Note via-tls | grep -q "pushed over TLS" || fail "the change pushed over TLS did not arrive"
log "protocol over https with the test certificate (curl --cacert): ok"

# 6. Optional: URLSession over https trusting the test certificate.
if URLSessionCertificateAuthorityInfoFile="$WORK/nginx/cert.pem" \
    "$FERRY" sync "$WORK/phone" "https://127.0.0.1:$HTTPS_PORT/ferry/alice" > "$WORK/tls-sync.out" 2>&1; then
    log "sync over https with URLSession: ok"
else
    log "sync over https with URLSession: not possible with this Foundation ($(tail -1 "$WORK/tls-sync.out"))"
fi
grep -q "POST /v1/stores/alice/push 2" "$WORK/serve.log" || fail "ferry serve logged no push"

# 6b. A `--watch` over https follows the change feed through nginx, and sleeps while it is
#     quiet (on Linux, ferry reads an https feed with libcurl's blocking interface: URLSession's
#     streaming kept a core busy). The client must trust the test certificate, and on Linux
#     only the system's trust store can make it: with FERRY_NGINX_TRUST_TEST_CERTIFICATE=1, as
#     root (as .ci/run does), the certificate is added for the run and removed after it.
if [ "${FERRY_NGINX_TRUST_TEST_CERTIFICATE:-}" = 1 ]; then
    [ "$(id -u)" = 0 ] || fail "FERRY_NGINX_TRUST_TEST_CERTIFICATE=1 needs root, to add the test certificate to the system's trust store"
    if ! command -v update-ca-certificates >/dev/null; then
        log "installing ca-certificates from Debian's packages"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ca-certificates >/dev/null 2>&1 || true
    fi
    command -v update-ca-certificates >/dev/null || fail "update-ca-certificates (Debian's ca-certificates) is needed"
    TRUSTED_CERTIFICATE="/usr/local/share/ca-certificates/ferry-nginx-test-$$.crt"
    cp "$WORK/nginx/cert.pem" "$TRUSTED_CERTIFICATE"
    update-ca-certificates >/dev/null 2>&1 || fail "update-ca-certificates could not add the test certificate"
    "$FERRY" sync "$WORK/phone" "https://127.0.0.1:$HTTPS_PORT/ferry/alice" > "$WORK/tls-sync2.out" 2>&1 \
        || fail "sync over https with the test certificate trusted: $(cat "$WORK/tls-sync2.out")"
    "$FERRY" init "$WORK/tablet" >/dev/null
    "$FERRY" sync "$WORK/tablet" "https://127.0.0.1:$HTTPS_PORT/ferry/alice" --watch --interval 3600 \
        > "$WORK/watch.out" 2> "$WORK/watch.err" &
    WATCH_PID=$!
    for _ in $(seq 1 600); do grep -q "pulled" "$WORK/watch.out" 2>/dev/null && break; sleep 0.1; done
    grep -q "pulled" "$WORK/watch.out" || fail "the https --watch did not sync: $(cat "$WORK/watch.err")"
    # CPU clock ticks (user + system) of the watching process so far.
    ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$WATCH_PID/stat"; }
    BEFORE=$(ticks)
    # A change pushed over plain http reaches the tablet through the https feed (the watch's
    # interval is an hour: only the feed can bring it in time).
    "$FERRY" put "$WORK/laptop" Note via-feed --json '{"title": "through the https feed"}' >/dev/null
    "$FERRY" sync "$WORK/laptop" "$PEER" >/dev/null || fail "laptop push for the https feed"
    for _ in $(seq 1 600); do "$FERRY" get "$WORK/tablet" Note via-feed >/dev/null 2>&1 && break; sleep 0.1; done
    "$FERRY" get "$WORK/tablet" Note via-feed 2>/dev/null | grep -q "through the https feed" \
        || fail "the change did not come through the https feed: $(tail -5 "$WORK/watch.err")"
    # Five quiet seconds: a follower that spins uses about 500 ticks in them, a sleeping one a few.
    sleep 5
    USED=$(( $(ticks) - BEFORE ))
    kill -TERM "$WATCH_PID"; wait "$WATCH_PID" 2>/dev/null || true
    WATCH_PID=""
    [ "$USED" -lt 150 ] || fail "the https --watch used $USED CPU ticks in about 6 s of a quiet feed"
    log "--watch over https follows the feed (a change arrived, $USED CPU ticks over the quiet): ok"
else
    log "--watch over https: skipped (FERRY_NGINX_TRUST_TEST_CERTIFICATE=1, as root, trusts the test certificate for the run)"
fi

# 7. Large records through nginx and its client_max_body_size (docs/DEPLOY.md): 5,000 records
#    of 15 KB (75 MB) and one of 20 MB, pushed by one store and pulled by another.
python3 - "$WORK/big.json" <<'PY'
import json, sys
items = [{"id": "r%d" % i, "body": ("%d" % (i % 10)) * 15000} for i in range(5000)]
items.append({"id": "huge", "body": "x" * 20_000_000})
json.dump(items, open(sys.argv[1], "w"))
PY
"$FERRY" init "$WORK/big-laptop" >/dev/null
"$FERRY" import "$WORK/big-laptop" Blob "$WORK/big.json" >/dev/null || fail "importing the large records"
"$FERRY" sync "$WORK/big-laptop" "http://127.0.0.1:$HTTP_PORT/ferry/big" > "$WORK/big-push.out" 2>&1 \
    || fail "pushing large records through nginx: $(cat "$WORK/big-push.out")"
"$FERRY" init "$WORK/big-phone" >/dev/null
"$FERRY" sync "$WORK/big-phone" "http://127.0.0.1:$HTTP_PORT/ferry/big" > "$WORK/big-pull.out" 2>&1 \
    || fail "pulling large records through nginx: $(cat "$WORK/big-pull.out")"
[ "$("$FERRY" list "$WORK/big-phone" Blob | wc -l)" = 5001 ] || fail "the phone did not get every large record"
"$FERRY" get "$WORK/big-phone" Blob huge --compact | python3 -c 'import json,sys; assert len(json.load(sys.stdin)["body"]) == 20_000_000' \
    || fail "the 20 MB record did not arrive whole"
log "5,000 records of 15 KB and one of 20 MB through nginx: ok"
log "passed"
