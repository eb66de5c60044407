#!/usr/bin/env bash
# Runs a command against a private Secret Service: a fresh D-Bus session bus (dbus-run-session)
# with gnome-keyring-daemon holding an unlocked login keyring, all in a temporary HOME, so the
# real user's keyring is never touched. Cleans up after itself and exits with the command's status.
#
#   tests/keyring/with-keyring.sh [--no-keyring] <command> [arguments...]
#
#   --no-keyring   a session bus with no keychain on it and none that can be started
#
# The command sees SWITCHBOARD_TEST_KEYRING=unlocked (or none), which the keychain test requires
# before it writes anything.
set -euo pipefail

mode=unlocked
if [[ ${1:-} == --no-keyring ]]; then
    mode=none
    shift
fi
if [[ $# -eq 0 ]]; then
    echo "usage: $0 [--no-keyring] <command> [arguments...]" >&2
    exit 2
fi

if [[ -z ${SWITCHBOARD_KEYRING_INSIDE:-} ]]; then
    for tool in dbus-run-session dbus-send gnome-keyring-daemon; do
        if ! command -v "$tool" >/dev/null; then
            echo "with-keyring.sh: $tool is missing; run scripts/install-deps.sh --test" >&2
            exit 1
        fi
    done
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/switchboard-keyring.XXXXXX")
    trap 'rm -rf "$scratch"' EXIT
    # Killed (a test timeout, Ctrl-C): still clean up.
    trap 'exit 143' TERM INT HUP
    # Everything the bus, the keyring daemon and the command might write goes under $scratch; set
    # before the bus starts so services it activates inherit it too.
    export HOME=$scratch/home
    export XDG_DATA_HOME=$HOME/.local/share XDG_CONFIG_HOME=$HOME/.config XDG_CACHE_HOME=$HOME/.cache
    export XDG_RUNTIME_DIR=$scratch/run
    mkdir -p -m 700 "$HOME" "$XDG_RUNTIME_DIR"
    unset DBUS_SESSION_BUS_ADDRESS DISPLAY WAYLAND_DISPLAY GNOME_KEYRING_CONTROL SSH_AUTH_SOCK
    bus_config=()
    if [[ $mode == none ]]; then
        # The standard session configuration would let the bus start gnome-keyring on demand.
        cat >"$scratch/session.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$scratch</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
        bus_config=(--config-file="$scratch/session.conf")
    fi
    status=0
    SWITCHBOARD_KEYRING_INSIDE=$mode dbus-run-session "${bus_config[@]}" -- "$0" "$@" || status=$?
    exit "$status"
fi

# Inside the private bus.
mode=$SWITCHBOARD_KEYRING_INSIDE
unset SWITCHBOARD_KEYRING_INSIDE
export SWITCHBOARD_TEST_KEYRING=$mode
if [[ $mode == none ]]; then
    exec "$@"
fi

owner_pid() {
    dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null |
        awk '{print $2}'
}

# --unlock creates the login keyring with the password on stdin (it is the first keyring, so it
# becomes the default collection) and unlocks it; --start then prints the variables clients need.
printf '%s' switchboard-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null
while IFS= read -r line; do
    [[ $line == *=* ]] && export "${line?}"
done < <(gnome-keyring-daemon --start --components=secrets)

daemon=
for _ in $(seq 50); do
    daemon=$(owner_pid)
    [[ -n $daemon ]] && break
    sleep 0.1
done
if [[ -z $daemon ]]; then
    echo "with-keyring.sh: gnome-keyring-daemon did not take org.freedesktop.secrets on the private bus" >&2
    exit 1
fi
# The daemon does not always leave with the bus: stop it ourselves, also when killed.
trap 'kill "$daemon" 2>/dev/null || true' EXIT
trap 'exit 143' TERM INT HUP

status=0
"$@" || status=$?
exit "$status"
