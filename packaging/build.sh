#!/usr/bin/env bash
# Build the one-folder app with PyInstaller: packaging/dist/desktop-agent/desktop-agent, and from it the
# Debian package packaging/dist/desktop-agent_<version>-1_<arch>.deb (packaging/make-deb.sh; both git-ignored).
#
#   packaging/build.sh            build both (installs PyInstaller into the Python's environment if missing)
#   packaging/build.sh --no-deb   the one-folder build only (also where dpkg-deb is missing)
#   packaging/build.sh --check    build both, then smoke-test the built app (packaging/smoke.py)
#   packaging/build.sh --check-only   smoke-test an existing build
#   packaging/deb-check.sh        (root) build, lintian, install the .deb, start it, remove it: see that file
#
# PYTHON: the interpreter whose environment has the app's dependencies (default: .venv/bin/python if it
# exists, else python3). PyInstaller is a build tool, not a dependency of the app.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
build=1 check=0 deb=1
case "${1:-}" in
  "") ;;
  --no-deb) deb=0 ;;
  --check) check=1 ;;
  --check-only) build=0 check=1 deb=0 ;;
  -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
  *) echo "usage: $0 [--no-deb|--check|--check-only]" >&2; exit 2 ;;
esac

if [ "$build" = 1 ]; then
  if ! "$PYTHON" -m PyInstaller --version >/dev/null 2>&1; then
    echo "== installing PyInstaller into $("$PYTHON" -c 'import sys; print(sys.prefix)')"
    "$PYTHON" -m pip install -q "pyinstaller>=6.10"
  fi
  echo "== PyInstaller $("$PYTHON" -m PyInstaller --version), $("$PYTHON" -V)"
  start=$(date +%s.%N)
  "$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath packaging/dist --workpath packaging/build packaging/desktop-agent.spec
  end=$(date +%s.%N)
  size=$(du -sh packaging/dist/desktop-agent | cut -f1)
  files=$(find packaging/dist/desktop-agent -type f | wc -l)
  printf '== built packaging/dist/desktop-agent in %.1f s: %s, %s files\n' "$(awk "BEGIN { print $end - $start }")" "$size" "$files"
fi

if [ "$deb" = 1 ]; then
  if command -v dpkg-deb >/dev/null; then
    PYTHON="$PYTHON" bash packaging/make-deb.sh
  else
    echo "== no dpkg-deb here: the Debian package is not built (packaging/build.sh --no-deb to say so)"
  fi
fi

if [ "$check" = 1 ]; then
  "$PYTHON" packaging/smoke.py
fi
