#!/usr/bin/env bash
# The whole test suite, from a fresh machine:
#   1. system packages (when run as root and missing): a real Secret Service (gnome-keyring, D-Bus),
#      Xvfb and the xcb libraries for real-window screenshots, a CJK font;
#   2. a virtual environment (.venv) with the app and its test dependencies;
#   3. ruff and mypy (any finding fails the run);
#   4. the small local model and its llama.cpp server (scripts/local-model.sh, a built wheel is reused);
#   5. the MCP reference server from npm (tests/mcp_servers/package.json and its lock file, `npm ci`);
#   6. pytest, inside a D-Bus session with an unlocked gnome-keyring (scripts/with-keyring.sh).
# Extra arguments go to pytest, e.g. `scripts/test.sh tests/unit -x`.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(gnome-keyring dbus-daemon dbus-bin dbus-x11 xvfb xauth libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0
  libxkbcommon-x11-0 libxcb-shape0 libxcb-render-util0 libxcb-image0 libegl1 libgl1 libfontconfig1 libxkbcommon0
  libdbus-1-3 fonts-wqy-microhei fonts-dejavu-core desktop-file-utils appstream man-db at-spi2-core)
missing=()
for p in "${APT_PACKAGES[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "== missing system packages (run as root or: sudo apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi

PY=${PYTHON:-python3}
VENV=${VENV:-.venv}
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
echo "== installing the app and test dependencies into $VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e ".[dev]"

echo "== lint and types"
"$VENV/bin/ruff" check desktop_agent tools tests bench scripts packaging
"$VENV/bin/mypy"

echo "== installing the local test model and server"
start=$(date +%s)
PYTHON="$VENV/bin/python" bash scripts/local-model.sh install
echo "== local model ready in $(( $(date +%s) - start )) s"

echo "== installing the MCP test servers (npm)"
MCP_DIR=tests/mcp_servers
MCP_STAMP="$MCP_DIR/node_modules/.installed-package-lock.json"  # the lock file the last `npm ci` installed
if [ -x "$MCP_DIR/node_modules/.bin/mcp-server-everything" ] && cmp -s "$MCP_DIR/package-lock.json" "$MCP_STAMP"; then
  echo "== MCP test servers are up to date"
elif command -v npm >/dev/null 2>&1; then
  npm ci --prefix "$MCP_DIR" --no-audit --no-fund
  cp "$MCP_DIR/package-lock.json" "$MCP_STAMP"
else  # the run expects every test tool (DESKTOP_AGENT_EXPECT_TOOLS=1 below): say what is missing now
  echo "== npm is missing: the MCP reference server (@modelcontextprotocol/server-everything) cannot be" \
    "installed; install Node.js 20+ with npm" >&2
  exit 1
fi

export DESKTOP_AGENT_EXPECT_MODEL=1 DESKTOP_AGENT_EXPECT_KEYRING=1 DESKTOP_AGENT_EXPECT_TOOLS=1
only_options=1
for arg in "$@"; do case "$arg" in -*) ;; *) only_options=0 ;; esac; done
if [ "$only_options" = 1 ]; then  # the whole suite: first the MCP starts with a desktop launcher's short PATH
  echo "== MCP servers started as from a desktop menu (PATH=/usr/bin:/bin)"
  PATH=/usr/bin:/bin "$VENV/bin/python" -m pytest "$@" tests/contract/test_mcp_everything.py \
    tests/contract/test_mcp_servers.py tests/contract/test_mcp_desktop_launch.py
fi
echo "== running the tests"
exec bash scripts/with-keyring.sh "$VENV/bin/python" -m pytest "$@"
