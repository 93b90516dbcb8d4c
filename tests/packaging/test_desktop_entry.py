"""``desktop-agent --install-desktop-entry`` / ``--uninstall-desktop-entry`` (desktop_agent/cli/desktop_entry.py).

The command line runs as a real subprocess (the ``desktop-agent`` script of this environment, as a pip user
has it), with a temporary ``XDG_DATA_HOME`` and ``HOME``: the entry it writes passes ``desktop-file-validate``
and starts this installation by an absolute path, the icons are real PNGs of each hicolor size, and
uninstalling leaves the data folder as it was, other apps' files included.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.cli import desktop_entry
from tests.packaging.test_desktop_files import ROOT, parse_desktop, require_tool

SCRIPT = Path(sys.executable).parent / "desktop-agent"  # what `pip install` put beside this Python


def run_cli(*args: str, data: Path, tmp_path: Path, path: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "DESKTOP_AGENT_", "QT_"))}
    env.update(XDG_DATA_HOME=str(data), HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT))
    if path is not None:
        env["PATH"] = path
    command = [str(SCRIPT)] if SCRIPT.is_file() else [sys.executable, "-m", "desktop_agent"]
    return subprocess.run([*command, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its content (None for a folder)."""
    return {str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes()) for p in sorted(folder.rglob("*"))}


def exec_command(entry: dict[str, str]) -> list[str]:
    """The ``Exec`` value as arguments (the spec's quoting is a subset of the shell's, once the string
    escapes are undone)."""
    return shlex.split(entry["Exec"].replace("\\\\", "\\"))


def test_install_writes_a_valid_entry_that_starts_this_installation(tmp_path):
    assert SCRIPT.is_file(), f"no desktop-agent script beside {sys.executable}: is the package installed (pip)?"
    data = tmp_path / "data"
    proc = run_cli("--install-desktop-entry", data=data, tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    desktop = data / "applications" / "desktop-agent.desktop"
    assert str(desktop) in proc.stdout

    validator = require_tool("desktop-file-validate")
    check = subprocess.run([validator, str(desktop)], capture_output=True, text=True, timeout=30)
    assert check.returncode == 0 and ": error: " not in check.stdout + check.stderr, check.stdout + check.stderr

    entry = parse_desktop(desktop)["Desktop Entry"]
    command = exec_command(entry)
    assert command == [str(SCRIPT)], entry["Exec"]
    assert os.path.isabs(command[0]) and os.access(command[0], os.X_OK)
    assert entry["TryExec"] == str(SCRIPT)
    assert entry["Icon"] == "desktop-agent"
    # the rest is the shipped entry's, and the key that marks it as ours (uninstall removes only ours)
    shipped = parse_desktop(ROOT / "resources" / "desktop-agent.desktop")["Desktop Entry"]
    assert entry["X-Desktop-Agent-Installed"] == "--install-desktop-entry"
    assert {k: v for k, v in entry.items() if k not in ("Exec", "TryExec", "X-Desktop-Agent-Installed")} == {
        k: v for k, v in shipped.items() if k != "Exec"
    }

    # the command the entry runs really starts this installation
    version = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    from desktop_agent import __version__

    assert version.stdout.strip() == f"desktop-agent {__version__}", version.stderr


def test_install_writes_the_icon_in_every_hicolor_size(tmp_path):
    from PySide6.QtGui import QImage

    data = tmp_path / "data"
    proc = run_cli("--install-desktop-entry", data=data, tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    hicolor = data / "icons" / "hicolor"
    for size in desktop_entry.ICON_SIZES:
        image = QImage(str(hicolor / f"{size}x{size}" / "apps" / "desktop-agent.png"))
        assert not image.isNull(), f"{size}x{size}: not a readable PNG"
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel()
        centre = image.pixelColor(size // 2, size // 2)
        corner = image.pixelColor(0, 0)
        assert centre.alpha() == 255 and corner.alpha() < 255, f"{size}x{size}: the icon is not drawn"
    svg = hicolor / "scalable" / "apps" / "desktop-agent.svg"
    assert svg.read_bytes() == (ROOT / "resources" / "icons" / "desktop-agent.svg").read_bytes()


def test_uninstall_removes_exactly_what_install_wrote(tmp_path):
    data = tmp_path / "data"
    # another app's entry and icons, and a cache the desktop made: all must stay as they are
    (data / "applications").mkdir(parents=True)
    (data / "applications" / "other.desktop").write_text("[Desktop Entry]\nType=Application\nName=Other\nExec=other\n")
    (data / "icons" / "hicolor" / "48x48" / "apps").mkdir(parents=True)
    (data / "icons" / "hicolor" / "48x48" / "apps" / "other.png").write_bytes(b"\x89PNG other")
    (data / "desktop-agent").mkdir()
    (data / "desktop-agent" / "conversations.sqlite3").write_bytes(b"the user's chats")
    before = tree(data)

    assert run_cli("--install-desktop-entry", data=data, tmp_path=tmp_path).returncode == 0
    written = set(tree(data)) - set(before)
    assert "applications/desktop-agent.desktop" in written
    assert "icons/hicolor/256x256/apps/desktop-agent.png" in written

    proc = run_cli("--uninstall-desktop-entry", data=data, tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "removed 11 files" in proc.stdout
    assert tree(data) == before

    # a second uninstall finds nothing and says so
    again = run_cli("--uninstall-desktop-entry", data=data, tmp_path=tmp_path)
    assert again.returncode == 0 and "no desktop entry" in again.stdout


def test_uninstall_from_an_empty_data_folder_leaves_it_empty(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    assert run_cli("--install-desktop-entry", data=data, tmp_path=tmp_path).returncode == 0
    assert run_cli("--uninstall-desktop-entry", data=data, tmp_path=tmp_path).returncode == 0
    assert tree(data) == {}


def test_existing_caches_are_refreshed_and_missing_tools_are_no_error(tmp_path):
    """An ``applications/mimeinfo.cache`` already there is rebuilt by update-desktop-database (when the tool
    exists); with no cache tool on PATH the install still succeeds."""
    data = tmp_path / "data"
    (data / "applications").mkdir(parents=True)
    cache = data / "applications" / "mimeinfo.cache"
    cache.write_text("stale\n")
    assert run_cli("--install-desktop-entry", data=data, tmp_path=tmp_path).returncode == 0
    if os.environ.get("DESKTOP_AGENT_EXPECT_TOOLS") or desktop_entry.shutil.which("update-desktop-database"):
        require_tool("desktop-file-validate")  # update-desktop-database ships in the same package
        assert cache.read_text().startswith("[MIME Cache]"), "the existing cache was not refreshed"
    assert run_cli("--uninstall-desktop-entry", data=data, tmp_path=tmp_path).returncode == 0
    assert cache.is_file(), "a cache the command did not create was removed"

    bare = tmp_path / "bare"
    proc = run_cli("--install-desktop-entry", data=bare, tmp_path=tmp_path, path=str(tmp_path / "no-tools"))
    assert proc.returncode == 0, proc.stderr
    assert (bare / "applications" / "desktop-agent.desktop").is_file()


@pytest.mark.parametrize("launcher", ["/opt/My Apps/desktop-agent", "/home/zoë/100% \"ai\"/bin/desktop-agent"])
def test_an_unusual_launcher_path_is_quoted_as_the_spec_says(tmp_path, launcher):
    written = desktop_entry.install(tmp_path / "data", command=[launcher, "-m", "x"])
    desktop = written[0]
    validator = require_tool("desktop-file-validate")
    check = subprocess.run([validator, str(desktop)], capture_output=True, text=True, timeout=30)
    assert check.returncode == 0 and ": error: " not in check.stdout + check.stderr, check.stdout + check.stderr
    entry = parse_desktop(desktop)["Desktop Entry"]
    assert exec_command({"Exec": entry["Exec"].replace("%%", "%")}) == [launcher, "-m", "x"]


def test_the_command_fails_clearly_when_the_folder_cannot_be_written(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "applications").write_text("a file where the folder should be")
    proc = run_cli("--install-desktop-entry", data=data, tmp_path=tmp_path)
    assert proc.returncode == 1
    assert "desktop entry could not be written" in proc.stderr and "Traceback" not in proc.stderr


def test_the_flags_take_no_command(tmp_path):
    proc = run_cli("--install-desktop-entry", "tools", data=tmp_path / "data", tmp_path=tmp_path)
    assert proc.returncode == 2 and "take no command" in proc.stderr
    assert not (tmp_path / "data").exists()


def test_the_users_own_entry_is_neither_removed_nor_replaced(tmp_path):
    """From the breaker: uninstall removed an entry and icon it had not written, and install wrote over a
    hand-made entry (and through a symlink)."""
    data = tmp_path / "data"
    own = data / "applications" / "desktop-agent.desktop"
    own.parent.mkdir(parents=True)
    own.write_text("[Desktop Entry]\nType=Application\nName=My own\nExec=/opt/mine/desktop-agent --my-flags\n")
    icon = data / "icons" / "hicolor" / "48x48" / "apps" / "desktop-agent.png"
    icon.parent.mkdir(parents=True)
    icon.write_bytes(b"\x89PNG mine")
    before = tree(data)

    gone = run_cli("--uninstall-desktop-entry", data=data, tmp_path=tmp_path)
    assert gone.returncode == 0 and "no desktop entry written by desktop-agent" in gone.stdout
    refused = run_cli("--install-desktop-entry", data=data, tmp_path=tmp_path)
    assert refused.returncode == 1 and "was not written by desktop-agent" in refused.stderr
    assert tree(data) == before

    # our own entry behind a symlink is replaced by a file, the symlink's target left alone
    own.unlink()
    target = tmp_path / "elsewhere.desktop"
    assert run_cli("--install-desktop-entry", data=data, tmp_path=tmp_path).returncode == 0
    target.write_text(own.read_text(encoding="utf-8"), encoding="utf-8")
    own.unlink()
    own.symlink_to(target)
    assert run_cli("--install-desktop-entry", data=data, tmp_path=tmp_path).returncode == 0
    assert not own.is_symlink() and desktop_entry.MARKER in own.read_text(encoding="utf-8")
