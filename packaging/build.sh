#!/usr/bin/env bash
# Build the one-folder app with PyInstaller: packaging/dist/desktop-agent/desktop-agent (git-ignored).
#
#   packaging/build.sh            build (installs PyInstaller into the Python's environment if missing)
#   packaging/build.sh --check    build, then smoke-test the built app (packaging/smoke.py)
#   packaging/build.sh --check-only   smoke-test an existing build
#
# PYTHON: the interpreter whose environment has the app's dependencies (default: .venv/bin/python if it
# exists, else python3). PyInstaller is a build tool, not a dependency of the app.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
build=1 check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  --check-only) build=0 check=1 ;;
  -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
  *) echo "usage: $0 [--check|--check-only]" >&2; exit 2 ;;
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

if [ "$check" = 1 ]; then
  "$PYTHON" packaging/smoke.py
fi
