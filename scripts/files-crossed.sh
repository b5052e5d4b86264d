#!/usr/bin/env bash
# How many source files one sync runs code in, for a folder, an S3 hub and a PocketBase peer
# (issue 53's "files a sync crosses"): an incremental sync of one edit, after a first full
# sync, measured by the coverage of a build made with --enable-code-coverage.
#
#   swift build --product ferry --enable-code-coverage --scratch-path /tmp/cov
#   scripts/files-crossed.sh /tmp/cov/debug
#
# Prints, per kind, the files with at least one line run under Sources/, and those of them in
# the sync wing (Sync/, Peers/, Net/, Serve/, and before issue 53 Transports/ and Backends/; and
# the CLI's sync, hub and backend files); --list shows
# them. Needs weed and pocketbase from scripts/install-test-tools.sh.
set -euo pipefail
bin=${1:?usage: files-crossed.sh BUILD_DIR [--list]}
list=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
tools=$root/.build/test-tools/bin
llvm=$(dirname "$(readlink -f "$(command -v swift)")")
work=$(mktemp -d /tmp/files-crossed.XXXXXX)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 1 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "files-crossed: $1 never answered" >&2; exit 1; }

# Setup runs write their profiles here, and are not counted.
export LLVM_PROFILE_FILE=$work/setup/%p.profraw
ferry() { "$bin/ferry" "$@"; }

# Counts the files the measured command ran code in.
measure() {
    local kind=$1; shift
    LLVM_PROFILE_FILE=$work/$kind/%p.profraw "$@" > /dev/null
    "$llvm/llvm-profdata" merge -sparse "$work/$kind"/*.profraw -o "$work/$kind.profdata"
    "$llvm/llvm-cov" export -summary-only -instr-profile "$work/$kind.profdata" "$bin/ferry" -object "$bin/ferry-remote" \
        | python3 -c '
import json, sys, re
files = sorted({f["filename"].split("/Sources/", 1)[1] for d in json.load(sys.stdin)["data"] for f in d["files"]
                if "/Sources/" in f["filename"] and f["summary"]["lines"]["covered"] > 0})
wing = [f for f in files if re.match(r"Ferry/(Sync|Peers|Transports|Serve|Net|Hub|Backends?)/", f)
        or re.match(r"FerryCommandLine/.*(Sync|Hub|Backend|Peer)[A-Za-z+]*\.swift$", f)]
print(f"{sys.argv[1]:<10} {len(files):>4} files under Sources/, {len(wing):>3} of them in the sync wing")
if sys.argv[2] == "--list":
    for f in files: print("   ", f)
' "$kind" "$list"
}

# Two store folders.
ferry init "$work/a" --name a > /dev/null
ferry init "$work/b" --name b > /dev/null
for i in $(seq 1 20); do ferry put "$work/a" Note "n$i" --json "{\"title\": \"note $i\"}" > /dev/null; done
ferry sync "$work/a" "$work/b" > /dev/null
ferry put "$work/a" Note n1 --json '{"title": "edited"}' > /dev/null
measure folder "$bin/ferry" sync "$work/a" "$work/b"

# An S3 hub on SeaweedFS.
s3port=$(free_port)
printf '{"identities":[{"name":"me","credentials":[{"accessKey":"dev","secretKey":"dev-secret"}],"actions":["Admin","Read","Write","List"]}]}' > "$work/s3.json"
(cd "$work" && exec "$tools/weed" mini -dir="$work/weed" -s3.port="$s3port" -s3.config="$work/s3.json" -bucket=hub > "$work/weed.log" 2>&1) &
pids+=($!)
export AWS_ACCESS_KEY_ID=dev AWS_SECRET_ACCESS_KEY=dev-secret AWS_ENDPOINT_URL_S3=http://127.0.0.1:$s3port AWS_REGION=us-east-1
for _ in $(seq 1 600); do ferry hub init s3://hub/notes > /dev/null 2>&1 && break; sleep 0.1; done
ferry sync "$work/a" s3://hub/notes > /dev/null
ferry put "$work/a" Note n2 --json '{"title": "edited"}' > /dev/null
measure s3 "$bin/ferry" sync "$work/a" s3://hub/notes

# A PocketBase.
pbport=$(free_port)
"$tools/pocketbase" superuser upsert admin@example.com admin-password-1 --dir "$work/pb" > /dev/null
"$tools/pocketbase" serve --http "127.0.0.1:$pbport" --dir "$work/pb" > "$work/pb.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$pbport/api/health"
export POCKETBASE_SUPERUSER_EMAIL=admin@example.com POCKETBASE_SUPERUSER_PASSWORD=admin-password-1
export POCKETBASE_EMAIL=phone@example.com POCKETBASE_PASSWORD=phone-password-1
ferry backend setup "pocketbase+http://127.0.0.1:$pbport" --entities Note --from "$work/a" --create-user > /dev/null
ferry sync "$work/a" "pocketbase+http://127.0.0.1:$pbport" --entities Note > /dev/null
ferry put "$work/a" Note n3 --json '{"title": "edited"}' > /dev/null
measure pocketbase "$bin/ferry" sync "$work/a" "pocketbase+http://127.0.0.1:$pbport" --entities Note
