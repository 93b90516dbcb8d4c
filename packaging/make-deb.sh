#!/usr/bin/env bash
# Make the Debian package from the one-folder build (packaging/dist/desktop-agent, see build.sh), offline:
#   packaging/dist/desktop-agent_<version>-1_<arch>.deb
#
# Layout: the build in /opt/desktop-agent, /usr/bin/desktop-agent (a symlink to it), the menu entry in
# /usr/share/applications, the icon in the hicolor theme's sizes (rendered from the SVG with Qt), the
# AppStream metainfo in /usr/share/metainfo, the man page, copyright and changelog.Debian.gz. The package's
# own files are in packaging/deb/. PYTHON: an interpreter with PySide6 (renders the icons; build.sh's).
# DEB_COMPRESS=xz|gzip|zstd (default gzip: the fast one; xz is ≈ 4× slower for ≈ 25 % less).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
BUNDLE=packaging/dist/desktop-agent
DEB_DIR=packaging/deb
STAGE=packaging/build/deb-root
fail() { echo "make-deb: $*" >&2; exit 1; }

[ -x "$BUNDLE/desktop-agent" ] || fail "no build in $BUNDLE: run packaging/build.sh first"
command -v dpkg-deb >/dev/null || fail "dpkg-deb is missing (a Debian or Ubuntu system is needed)"
for tool in strip chrpath; do
  command -v "$tool" >/dev/null || fail "$tool is missing: apt-get install binutils chrpath"
done

version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' desktop_agent/__init__.py)
[ -n "$version" ] || fail "no __version__ in desktop_agent/__init__.py"
deb_version="$version-1"
changelog_version=$(sed -n '1s/^desktop-agent (\([^)]*\)).*/\1/p' "$DEB_DIR/changelog")
[ "$changelog_version" = "$deb_version" ] || \
  fail "packaging/deb/changelog starts with version '$changelog_version', the app is $deb_version: add an entry"
arch=$(dpkg --print-architecture)
glibc=$(dpkg-query -W -f='${Version}' libc6 2>/dev/null | sed 's/-.*//') || true
glibc=${glibc:-$(ldd --version | sed -n '1s/.* \([0-9][0-9.]*\)$/\1/p')}
out="packaging/dist/desktop-agent_${deb_version}_${arch}.deb"
start=$(date +%s.%N)

rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
  "$STAGE/usr/share/metainfo" "$STAGE/usr/share/doc/desktop-agent" "$STAGE/usr/share/man/man1" \
  "$STAGE/usr/share/lintian/overrides"

# the build, with the permissions a package has: folders and the launcher 0755, everything else 0644
cp -a "$BUNDLE" "$STAGE/opt/desktop-agent"
find "$STAGE/opt/desktop-agent" -name __pycache__ -prune -exec rm -rf {} +
find "$STAGE/opt/desktop-agent" -type d -exec chmod 0755 {} +
find "$STAGE/opt/desktop-agent" -type f -exec chmod 0644 {} +
chmod 0755 "$STAGE/opt/desktop-agent/desktop-agent"
# Shared libraries: debug symbols stripped (≈ a third of the size); a search path pointing into the build
# machine (the interpreter's own lib folder, e.g. /root/.pyenv/…/lib) removed: on the user's machine it is
# at best missing, at worst someone else's folder. $ORIGIN paths (PySide6's own) are kept. Never the
# launcher: PyInstaller appends the app's archive to that executable, strip would cut it off.
libs=()
while IFS= read -r -d '' lib; do libs+=("$lib"); done < \
  <(find "$STAGE/opt/desktop-agent/_internal" -type f \( -name '*.so' -o -name '*.so.*' \) -print0)
strip --strip-unneeded "${libs[@]}"
for lib in "${libs[@]}"; do
  path=$(chrpath -l "$lib" 2>/dev/null | sed -n 's/.*R\(UN\)\{0,1\}PATH=//p' || true)  # exit 2: no path
  case "$path" in "" | *'$ORIGIN'*) ;; *) chrpath -d "$lib" >/dev/null ;; esac
done
ln -s /opt/desktop-agent/desktop-agent "$STAGE/usr/bin/desktop-agent"

# desktop integration: the same files `desktop-agent --install-desktop-entry` writes for one user
install -m 0644 resources/desktop-agent.desktop "$STAGE/usr/share/applications/desktop-agent.desktop"
install -m 0644 resources/io.github.desktop_agent.metainfo.xml "$STAGE/usr/share/metainfo/"
PYTHONPATH="$PWD" QT_QPA_PLATFORM=offscreen "$PYTHON" -c '
import sys
from pathlib import Path
from desktop_agent.cli.desktop_entry import write_icons
write_icons(Path(sys.argv[1]), Path(sys.argv[2]))
' "$STAGE/usr/share/icons/hicolor" resources/icons/desktop-agent.svg

install -m 0644 "$DEB_DIR/copyright" "$STAGE/usr/share/doc/desktop-agent/copyright"
gzip -9n < "$DEB_DIR/changelog" > "$STAGE/usr/share/doc/desktop-agent/changelog.Debian.gz"
gzip -9n < "$DEB_DIR/desktop-agent.1" > "$STAGE/usr/share/man/man1/desktop-agent.1.gz"
install -m 0644 "$DEB_DIR/lintian-overrides" "$STAGE/usr/share/lintian/overrides/desktop-agent"
find "$STAGE/usr" -type d -exec chmod 0755 {} +
find "$STAGE/usr" -type f -exec chmod 0644 {} +

# control files
installed_size=$(du -sk --apparent-size --exclude=DEBIAN "$STAGE" | cut -f1)
sed -e "s/@VERSION@/$deb_version/" -e "s/@ARCH@/$arch/" -e "s/@INSTALLED_SIZE@/$installed_size/" \
  -e "s/@GLIBC@/$glibc/" "$DEB_DIR/control.in" > "$STAGE/DEBIAN/control"
(cd "$STAGE" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
  > "$STAGE/DEBIAN/md5sums"
chmod 0644 "$STAGE/DEBIAN/control" "$STAGE/DEBIAN/md5sums"

# Reproducible timestamps: every file's mtime is the changelog's date.
SOURCE_DATE_EPOCH=$(date -d "$(sed -n 's/^ -- .*>  //p' "$DEB_DIR/changelog" | head -n1)" +%s)
export SOURCE_DATE_EPOCH
find "$STAGE" -newermt "@$SOURCE_DATE_EPOCH" -print0 | xargs -0r touch -h -d "@$SOURCE_DATE_EPOCH"

rm -f packaging/dist/desktop-agent_*.deb
dpkg-deb --root-owner-group -Z"${DEB_COMPRESS:-gzip}" --build "$STAGE" "$out" >/dev/null
end=$(date +%s.%N)
printf '== built %s in %.1f s: %s, %s files\n' "$out" "$(awk "BEGIN { print $end - $start }")" \
  "$(du -h "$out" | cut -f1)" "$(wc -l < "$STAGE/DEBIAN/md5sums")"
