"""``desktop-agent --install-desktop-entry`` / ``--uninstall-desktop-entry``: the launcher for ``pip install`` users.

Install writes, into the user's data folder (``$XDG_DATA_HOME``, default ``~/.local/share``):

- ``applications/desktop-agent.desktop``: ``resources/desktop-agent.desktop`` with ``Exec=`` and ``TryExec=``
  the absolute path of this installation's launcher (a virtual environment's ``bin`` is rarely on the
  desktop session's ``PATH``; ``TryExec`` hides the entry once that launcher is uninstalled);
- ``icons/hicolor/NxN/apps/desktop-agent.png`` in :data:`ICON_SIZES`, rendered from the SVG with Qt, and
  ``icons/hicolor/scalable/apps/desktop-agent.svg``.

Then it refreshes the desktop's caches where they exist: ``update-desktop-database`` and
``gtk-update-icon-cache`` run when installed and when the folder already has its cache (a cache this
command would create is one it would leave behind; desktops find new entries and icons without one).
A missing tool is never an error.

Uninstall removes those same files, and the folders among theirs that are left empty: exactly what
install wrote. The Debian package installs the same files system-wide (``packaging/make-deb.sh`` calls
:func:`write_icons`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

APP_ID = "desktop-agent"  # the .desktop file's name (the desktop id the app announces) and the icon's name
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
_EXEC_RESERVED = set(' \t\n"\'\\><~|&;$*?#()`')


def resources_dir() -> Path:
    """``resources/`` of this installation (the wheel's ``desktop_agent/resources``, or the checkout's)."""
    from desktop_agent.ui.icons import icons_dir

    return icons_dir().parent


def data_home() -> Path:
    """``$XDG_DATA_HOME`` (an absolute path, as the XDG spec requires), else ``~/.local/share``."""
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if value and os.path.isabs(value) else Path.home() / ".local" / "share"


def launcher_command() -> list[str]:
    """The command that starts this installation, with absolute paths: the frozen app itself, the
    ``desktop-agent`` script this process was started as (or beside this Python), else
    ``python -m desktop_agent``."""
    if getattr(sys, "frozen", False):
        return [os.path.abspath(sys.executable)]
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).name == APP_ID and os.path.isfile(argv0):
        return [os.path.abspath(argv0)]
    beside = Path(sys.executable).parent / APP_ID
    if beside.is_file():
        return [os.path.abspath(beside)]
    return [os.path.abspath(sys.executable), "-m", "desktop_agent"]


def _exec_quote(arg: str) -> str:
    """One argument of an ``Exec`` value, quoted as the Desktop Entry Specification says (reserved characters
    inside double quotes, with ``"`` `` ` `` ``$`` ``\\`` backslash-escaped; ``%`` doubled), then escaped as
    a string value (backslashes doubled)."""
    arg = arg.replace("%", "%%")
    if any(ch in _EXEC_RESERVED for ch in arg):
        inner = "".join("\\" + ch if ch in '"`$\\' else ch for ch in arg)
        arg = f'"{inner}"'
    return arg.replace("\\", "\\\\")


def desktop_entry_text(command: list[str], template: str) -> str:
    """``template`` (the shipped ``.desktop`` file) with ``Exec`` and ``TryExec`` set to ``command``."""
    exec_value = " ".join(_exec_quote(part) for part in command)
    lines, in_main = [], False
    for line in template.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_main = stripped == "[Desktop Entry]"
        if in_main and stripped.startswith("TryExec="):
            continue
        if in_main and stripped.startswith("Exec="):
            lines.append("TryExec=" + command[0].replace("\\", "\\\\"))  # a path, not quoted
            line = f"Exec={exec_value}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def write_icons(hicolor: Path, svg: Path | None = None) -> list[Path]:
    """Render the app icon (``resources/icons/desktop-agent.svg``) into the hicolor theme folder ``hicolor``:
    a PNG in each of :data:`ICON_SIZES` and the SVG itself as ``scalable``. Returns the files written.
    Needs no QGuiApplication (QImage and QSvgRenderer paint without a display)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    svg = svg or resources_dir() / "icons" / f"{APP_ID}.svg"
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise OSError(f"cannot read the icon {svg}")
    written = []
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        path = hicolor / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(path)):  # the format from the suffix
            raise OSError(f"cannot write {path}")
        written.append(path)
    scalable = hicolor / "scalable" / "apps" / f"{APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(svg, scalable)
    written.append(scalable)
    return written


def entry_files(home: Path) -> list[Path]:
    """Every file install writes under the data folder ``home``."""
    hicolor = home / "icons" / "hicolor"
    files = [home / "applications" / f"{APP_ID}.desktop"]
    files += [hicolor / f"{size}x{size}" / "apps" / f"{APP_ID}.png" for size in ICON_SIZES]
    files.append(hicolor / "scalable" / "apps" / f"{APP_ID}.svg")
    return files


def _refresh_caches(home: Path) -> list[str]:
    """Run the cache tools that exist, on the folders that already have a cache; the commands run."""
    ran = []
    jobs = (
        ("update-desktop-database", home / "applications", "mimeinfo.cache", ["-q"]),
        ("gtk-update-icon-cache", home / "icons" / "hicolor", "icon-theme.cache", ["-q", "-f", "-t"]),
    )
    for tool, folder, cache, options in jobs:
        path = shutil.which(tool)
        if not path or not (folder / cache).is_file():
            continue
        try:
            subprocess.run([path, *options, str(folder)], capture_output=True, timeout=60, check=False)
            ran.append(tool)
        except (OSError, subprocess.SubprocessError):
            continue  # a cache that could not be refreshed is rebuilt by the desktop's next update
    return ran


#: the key our entry carries: uninstall removes only an entry (and its icons) that has it, install replaces only one
MARKER = "X-Desktop-Agent-Installed=--install-desktop-entry"


class NotOurs(OSError):
    """A desktop entry of that name is there that ``--install-desktop-entry`` did not write (the user's own)."""


def _ours(desktop: Path) -> bool:
    try:
        return MARKER in desktop.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False


def install(home: Path | None = None, command: list[str] | None = None) -> list[Path]:
    """Write the ``.desktop`` file and the icons into ``home`` (default :func:`data_home`); the files written.
    Raises :class:`NotOurs` when an entry of that name is there that this command did not write."""
    home = home or data_home()
    template = (resources_dir() / f"{APP_ID}.desktop").read_text(encoding="utf-8")
    desktop = home / "applications" / f"{APP_ID}.desktop"
    if (desktop.exists() or desktop.is_symlink()) and not _ours(desktop):
        raise NotOurs(f"{desktop} is there and was not written by desktop-agent: move it away to install ours")
    desktop.parent.mkdir(parents=True, exist_ok=True)
    text = desktop_entry_text(command or launcher_command(), template)
    text = text.replace("[Desktop Entry]\n", f"[Desktop Entry]\n{MARKER}\n", 1)
    desktop.unlink(missing_ok=True)  # (a symlink is replaced, not written through)
    desktop.write_text(text, encoding="utf-8")
    written = [desktop, *write_icons(home / "icons" / "hicolor")]
    _refresh_caches(home)
    return written


def _prune_empty(folders: Iterable[Path], home: Path) -> None:
    """Remove each folder (deepest first) that is empty, up to but not including ``home``."""
    candidates: set[Path] = set()
    for folder in folders:
        while folder != home and home in folder.parents:
            candidates.add(folder)
            folder = folder.parent
    for folder in sorted(candidates, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()  # only when empty
        except OSError:
            continue


def uninstall(home: Path | None = None) -> list[Path]:
    """Remove what :func:`install` wrote into ``home``; the files removed."""
    home = home or data_home()
    removed: list[Path] = []
    if not _ours(home / "applications" / f"{APP_ID}.desktop"):  # none, or the user's own: nothing of ours
        return removed
    for path in entry_files(home):
        if path.is_file() or path.is_symlink():
            path.unlink()
            removed.append(path)
    _prune_empty((path.parent for path in entry_files(home)), home)
    _refresh_caches(home)
    return removed


def run_desktop_entry(remove: bool, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The command-line flags: returns the exit code (0, or 1 with the reason on ``err``)."""
    out, err = out or sys.stdout, err or sys.stderr
    home = data_home()
    try:
        if remove:
            files = uninstall(home)
            out.write(f"removed {len(files)} files from {home}\n" if files
                      else f"no desktop entry written by desktop-agent in {home}\n")
            return 0
        files = install(home)
    except OSError as exc:
        err.write(f"desktop-agent: the desktop entry could not be {'removed' if remove else 'written'}: {exc}\n")
        return 1
    out.write(f"wrote {files[0]}\n  and the icon in {len(files) - 1} sizes under {home / 'icons' / 'hicolor'}\n")
    out.write(f"  it starts: {' '.join(launcher_command())}\n")
    return 0
