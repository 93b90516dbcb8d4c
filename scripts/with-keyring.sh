#!/bin/sh
# Run a command with a real, unlocked Secret Service (gnome-keyring) on a private D-Bus session.
#
#   scripts/with-keyring.sh /work/venv/bin/python -m pytest -m keyring tests/e2e/test_keyring_real.py
#
# What it does (recipe from shared/ENVIRONMENT.md):
# - dbus-run-session gives the command its own session bus (DBUS_SESSION_BUS_ADDRESS), gone at exit;
# - gnome-keyring-daemon --unlock --components=secrets starts the Secret Service on that bus and
#   creates/unlocks a "login" keyring with a throw-away password read from stdin (without the
#   password every access fails with "Prompt dismissed");
# - the keyring files live in a fresh temporary XDG_DATA_HOME given only to the daemon, so an old
#   login.keyring with another password cannot cause KeyringLocked, and nothing is left behind;
# - DESKTOP_AGENT_EXPECT_KEYRING=1 tells the keyring tests that a Secret Service MUST be reachable:
#   they fail instead of skipping; DESKTOP_AGENT_TEST_KEYRING_PASSWORD is the throw-away password of
#   this run's keyring (random, never used for anything else) so a test that locks it can unlock it.
# Needs: apt-get install -y --no-install-recommends gnome-keyring dbus-daemon dbus-bin
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi
for tool in dbus-run-session gnome-keyring-daemon; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "$0: $tool not found; install it with:" >&2
        echo "  apt-get install -y --no-install-recommends gnome-keyring dbus-daemon dbus-bin" >&2
        exit 2
    fi
done

keyring_home=$(mktemp -d "${TMPDIR:-/tmp}/desktop-agent-keyring.XXXXXX")
runtime_dir=$(mktemp -d "${TMPDIR:-/tmp}/desktop-agent-runtime.XXXXXX")
chmod 700 "$keyring_home" "$runtime_dir"
cleanup() { rm -rf "$keyring_home" "$runtime_dir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

export DESKTOP_AGENT_EXPECT_KEYRING=1
DESKTOP_AGENT_TEST_KEYRING_PASSWORD=$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')
export DESKTOP_AGENT_TEST_KEYRING_PASSWORD
export KEYRING_HOME_FOR_DAEMON="$keyring_home"
export XDG_RUNTIME_DIR="$runtime_dir"

status=0
dbus-run-session -- sh -c '
    printf %s "$DESKTOP_AGENT_TEST_KEYRING_PASSWORD" |
        XDG_DATA_HOME="$KEYRING_HOME_FOR_DAEMON" gnome-keyring-daemon --unlock --components=secrets >/dev/null || {
        echo "with-keyring.sh: gnome-keyring-daemon did not start" >&2
        exit 3
    }
    unset KEYRING_HOME_FOR_DAEMON
    exec "$@"
' with-keyring "$@" || status=$?
exit "$status"
