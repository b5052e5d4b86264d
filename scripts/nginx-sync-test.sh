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
#      reads that variable only on some platforms).
# Exits non-zero on any failure of 1 or 2.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'nginx-sync-test: %s\n' "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

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
cleanup() {
    if [ -f "$WORK/nginx/nginx.pid" ]; then "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -s stop 2>/dev/null || true; fi
    if [ -n "$SERVE_PID" ]; then kill -TERM "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# 1. ferry serve on loopback, with a tokens file.
mkdir -p "$WORK/stores" "$WORK/nginx/logs" "$WORK/nginx/tmp"
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
ORIGIN=$(python3 -c 'import uuid; print(uuid.uuid4())')
NOW=$(($(date +%s) * 1000))
BODY="{\"changes\":[{\"origin\":\"$ORIGIN\",\"counter\":1,\"hlc\":\"$NOW.0\",\"op\":\"put\",\"entity\":\"Note\",\"id\":\"via-tls\",\"doc\":{\"title\":\"pushed over TLS\"},\"vv\":{\"$ORIGIN\":1}}]}"
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
log "passed"
