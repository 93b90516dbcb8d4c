#!/usr/bin/env bash
# The Debian package, end to end, as root on a Debian/Ubuntu machine (CI runs it from .ci/run):
#   1. installs what it needs (apt: lintian, binutils, chrpath, desktop-file-utils, appstream; PyInstaller
#      into $PYTHON's environment through build.sh);
#   2. builds the app and the .deb (packaging/build.sh) and runs lintian on it (fails on any error; it runs
#      beside steps 3–4 and is waited for before step 5);
#   3. installs the package's dependencies, lists the file system, then `apt-get install ./desktop-agent_*.deb`;
#   4. as a user with a fresh HOME: `desktop-agent --version`, `desktop-agent tools`, the window offscreen
#      until it is shown (the build's grab hook, packaging/entry.py), which then quits with code 0, and
#      `--install-desktop-entry` / `--uninstall-desktop-entry`;
#   5. `apt-get remove`, then `apt-get purge`: no file of the package is left, and the file system lists the
#      same as before the install (the user's data is in the fresh HOME, outside the comparison).
# Any failing step stops the check with exit 1 and says which. Usage: packaging/deb-check.sh [--no-build]
# (--no-build: use the .deb already in packaging/dist). PYTHON: as for build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

passed=0
T0=$(date +%s.%N)
step_start=$T0
say() { printf '== deb-check: %s\n' "$*"; }
fail() { printf '\n== deb-check FAILED: %s\n' "$*" >&2; exit 1; }
ok() {
  local now; now=$(date +%s.%N)
  passed=$((passed + 1))
  printf 'ok   %-62s %6.1f s\n' "$1" "$(awk "BEGIN { print $now - $step_start }")"
  step_start=$now
}
elapsed() { awk "BEGIN { printf \"%.0f\", $(date +%s.%N) - $T0 }"; }

build=1
case "${1:-}" in
  "") ;;
  --no-build) build=0 ;;
  -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
  *) echo "usage: $0 [--no-build]" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || fail "needs root (it installs and removes a system package); run it in a throwaway machine or container"
command -v apt-get >/dev/null && command -v dpkg >/dev/null || fail "needs a Debian or Ubuntu system (apt-get, dpkg)"

export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -y -q -o DPkg::Lock::Timeout=300)
WORK=$(mktemp -d /tmp/deb-check.XXXXXX)
installed_by_us=0
lintian_pid=
# dpkg's state of the package: "ii" installed, "rc" removed with config files left, "" or "un" unknown
state() { dpkg-query -W -f='${db:Status-Abbrev}' desktop-agent 2>/dev/null | tr -d ' ' || true; }
known() { case "$(state)" in "" | un*) return 1 ;; *) return 0 ;; esac; }
cleanup() {
  local rc=$?
  if [ -n "$lintian_pid" ]; then kill "$lintian_pid" 2>/dev/null || true; wait "$lintian_pid" 2>/dev/null || true; fi
  if [ "$installed_by_us" = 1 ] && known; then
    echo "== deb-check: purging the package after the failure" >&2
    "${APT[@]}" purge desktop-agent >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT

# ---- 1. tools ------------------------------------------------------------------------------------------
TOOLS=(lintian binutils chrpath desktop-file-utils appstream)
missing=()
for p in "${TOOLS[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  "${APT[@]}" -qq update >/dev/null
  "${APT[@]}" -qq install --no-install-recommends "${missing[@]}" >/dev/null || fail "apt-get install ${missing[*]}"
fi
ok "tools: ${TOOLS[*]}"

# ---- 2. build, lintian -----------------------------------------------------------------------------------
if [ "$build" = 1 ]; then
  bash packaging/build.sh > "$WORK/build.log" 2>&1 || { tail -n 40 "$WORK/build.log" >&2; fail "packaging/build.sh"; }
  grep '^== built' "$WORK/build.log" || true
fi
debs=(packaging/dist/desktop-agent_*.deb)
[ -f "${debs[0]}" ] || fail "no packaging/dist/desktop-agent_*.deb (run packaging/build.sh)"
[ ${#debs[@]} = 1 ] || fail "more than one .deb in packaging/dist: ${debs[*]}"
DEB="$ROOT/${debs[0]}"
ok "built $(basename "$DEB") ($(du -h "$DEB" | cut -f1))"

# lintian (≈ 30–60 s) runs beside the install and the runs below; its verdict is awaited before the removal
lintian --fail-on error --info "$DEB" > "$WORK/lintian.txt" 2>&1 &
lintian_pid=$!
lintian_start=$(date +%s.%N)

# ---- 3. install ------------------------------------------------------------------------------------------
if known; then
  fail "desktop-agent is already installed ($(state)): 'apt-get purge desktop-agent' first (the check compares a clean system)"
fi
# the dependencies (and what apt installs as recommended) first, so that the file-system comparison sees only
# the package's own files
deps=$(dpkg-deb -f "$DEB" Depends Recommends | sed 's/^[A-Za-z-]*: //' | tr ',\n' '\n\n' \
  | sed 's/|.*//; s/(.*)//; s/ //g' | grep -v '^$' | tr '\n' ' ')
# shellcheck disable=SC2086
"${APT[@]}" -qq install --no-install-recommends $deps >/dev/null 2>"$WORK/apt.err" \
  || { "${APT[@]}" -qq update >/dev/null && "${APT[@]}" -qq install --no-install-recommends $deps >/dev/null; } \
  || { cat "$WORK/apt.err" >&2; fail "installing the dependencies: $deps"; }
ok "dependencies installed ($(echo "$deps" | wc -w) packages)"

# Where a package and its triggers write. Left out: dpkg's and apt's own records, caches and logs (they
# change with any install), /tmp and the fresh HOME (the user's data).
snapshot() {
  find /opt /usr /etc /var /srv -xdev \
    \( -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache -o -path /var/log -o -path /var/tmp \
       -o -path /var/backups -o -path /var/lib/systemd -o -path /var/mail \) -prune -o -print 2>/dev/null \
    | LC_ALL=C sort
}
snapshot > "$WORK/before.txt"
"${APT[@]}" install "$DEB" > "$WORK/install.log" 2>&1 || { cat "$WORK/install.log" >&2; fail "apt-get install $DEB"; }
installed_by_us=1
[ "$(state)" = ii ] || fail "dpkg does not list desktop-agent as installed ($(state))"
dpkg -L desktop-agent | LC_ALL=C sort > "$WORK/package-files.txt"
[ "$(readlink -f /usr/bin/desktop-agent)" = /opt/desktop-agent/desktop-agent ] || fail "/usr/bin/desktop-agent does not lead to /opt/desktop-agent/desktop-agent"
ok "apt-get install ./$(basename "$DEB") ($(wc -l < "$WORK/package-files.txt") paths)"

desktop-file-validate /usr/share/applications/desktop-agent.desktop || fail "desktop-file-validate (installed entry)"
appstreamcli validate --no-net --no-color /usr/share/metainfo/io.github.desktop_agent.metainfo.xml > "$WORK/appstream.txt" 2>&1 \
  || { cat "$WORK/appstream.txt" >&2; fail "appstreamcli validate (installed metainfo)"; }
for size in 16x16 32x32 48x48 128x128 256x256 scalable; do
  ls /usr/share/icons/hicolor/$size/apps/desktop-agent.* >/dev/null 2>&1 || fail "no $size icon in the hicolor theme"
done
ok "installed desktop entry, metainfo and icons validate"

# ---- 4. run it, as a user would --------------------------------------------------------------------------
USER_HOME="$WORK/home"
mkdir -p "$USER_HOME" "$WORK/runtime"
chmod 0700 "$WORK/runtime"
as_user() {  # a clean environment: a fresh HOME (default XDG folders under it), offscreen Qt, from /
  (cd / && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$USER_HOME" XDG_RUNTIME_DIR="$WORK/runtime" \
    LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen "$@")
}
version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' desktop_agent/__init__.py)
out=$(as_user timeout 60 desktop-agent --version 2>&1) || fail "desktop-agent --version: $out"
[ "$out" = "desktop-agent $version" ] || fail "desktop-agent --version printed '$out', expected 'desktop-agent $version'"
ok "desktop-agent --version: $out"

as_user timeout 120 desktop-agent tools > "$WORK/tools.out" 2> "$WORK/tools.err" \
  || { cat "$WORK/tools.out" "$WORK/tools.err" >&2; fail "desktop-agent tools"; }
shipped=$(grep -c '\[shipped\]' "$WORK/tools.out" || true)
[ "$shipped" -ge 1 ] || { cat "$WORK/tools.out" >&2; fail "desktop-agent tools lists no shipped tool"; }
ok "desktop-agent tools: $shipped shipped tools"

GRAB="$WORK/window.png"
as_user DESKTOP_AGENT_SMOKE_GRAB="$GRAB" DESKTOP_AGENT_SMOKE_MS=1500 timeout 120 /usr/bin/desktop-agent \
  > "$WORK/window.out" 2> "$WORK/window.err" || {
  rc=$?; cat "$WORK/window.out" "$WORK/window.err" >&2; fail "the window (exit $rc; 3: no main window shown, 124: timed out)"; }
[ -s "$GRAB" ] || fail "the window quit but no grab of it was saved"
if grep -E 'Traceback|Error|CRITICAL' "$WORK/window.err" >&2; then fail "the window wrote errors on stderr"; fi
if grep -rlE 'Traceback|ModuleNotFoundError|ImportError|CRITICAL' "$USER_HOME" --include='*.log*' >&2; then
  fail "the window's log has errors"
fi
[ -d "$USER_HOME/.config/desktop-agent" ] || [ -d "$USER_HOME/.local/share/desktop-agent" ] \
  || fail "the window kept nothing in the user's folders (did it start with the default settings?)"
[ -z "${DEB_CHECK_GRAB:-}" ] || cp "$GRAB" "$DEB_CHECK_GRAB"
ok "the window shown offscreen, grabbed ($(du -h "$GRAB" | cut -f1)) and quit with code 0"

as_user timeout 60 desktop-agent --install-desktop-entry > "$WORK/entry.out" 2>&1 \
  || { cat "$WORK/entry.out" >&2; fail "desktop-agent --install-desktop-entry"; }
ENTRY="$USER_HOME/.local/share/applications/desktop-agent.desktop"
desktop-file-validate "$ENTRY" || fail "desktop-file-validate (the entry --install-desktop-entry wrote)"
grep -qx 'Exec=/opt/desktop-agent/desktop-agent' "$ENTRY" || { cat "$ENTRY" >&2; fail "the user's entry does not start /opt/desktop-agent/desktop-agent"; }
[ -f "$USER_HOME/.local/share/icons/hicolor/256x256/apps/desktop-agent.png" ] || fail "--install-desktop-entry wrote no 256x256 icon"
as_user timeout 60 desktop-agent --uninstall-desktop-entry > "$WORK/entry.out" 2>&1 \
  || { cat "$WORK/entry.out" >&2; fail "desktop-agent --uninstall-desktop-entry"; }
[ ! -e "$ENTRY" ] && [ ! -e "$USER_HOME/.local/share/icons/hicolor" ] || fail "--uninstall-desktop-entry left files"
ok "desktop-agent --install-desktop-entry, then --uninstall-desktop-entry"

step_start=$lintian_start
if ! wait "$lintian_pid"; then lintian_pid=; cat "$WORK/lintian.txt" >&2; fail "lintian reports errors"; fi
lintian_pid=
grep -E '^[EW]: ' "$WORK/lintian.txt" | sed 's/^/     /' || true
ok "lintian: no error, $(grep -c '^W: ' "$WORK/lintian.txt" || true) warnings (overrides: packaging/deb/lintian-overrides)"
step_start=$(date +%s.%N)

# ---- 5. remove, purge: nothing left ---------------------------------------------------------------------
"${APT[@]}" remove desktop-agent > "$WORK/remove.log" 2>&1 || { cat "$WORK/remove.log" >&2; fail "apt-get remove desktop-agent"; }
left=()
while IFS= read -r path; do
  [ "$path" = /. ] && continue
  [ -e "$path" ] || [ -L "$path" ] || continue
  [ -d "$path" ] && [ ! -L "$path" ] && grep -qxF "$path" "$WORK/before.txt" && continue  # a shared folder (/usr/bin)
  left+=("$path")
done < "$WORK/package-files.txt"
[ ${#left[@]} = 0 ] || { printf '     left: %s\n' "${left[@]}" >&2; fail "apt-get remove left ${#left[@]} of the package's paths"; }
ok "apt-get remove: none of the package's paths is left"

# The package has no conffiles and no maintainer scripts, so `remove` already forgot it (dpkg lists it as
# not installed, apt no longer knows the name): then dpkg's purge is the one that can run, and is a no-op.
if [ "$(state)" = rc ]; then
  purge=(apt-get -y -q -o DPkg::Lock::Timeout=300 purge desktop-agent)
else
  purge=(dpkg --purge desktop-agent)
fi
"${purge[@]}" > "$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log" >&2; fail "${purge[*]}"; }
installed_by_us=0
if known; then fail "dpkg still lists desktop-agent ($(state))"; fi
snapshot > "$WORK/after.txt"
if ! diff "$WORK/before.txt" "$WORK/after.txt" > "$WORK/fs.diff"; then
  sed 's/^/     /' "$WORK/fs.diff" >&2
  fail "the file system differs after install + purge (> added, < removed)"
fi
ok "${purge[*]}: the file system lists as before ($(wc -l < "$WORK/before.txt") paths compared)"

echo "== deb-check: done in $(elapsed) s"
echo "deb-check: $passed passed, 0 failed"
