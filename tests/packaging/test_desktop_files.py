"""Desktop integration files in ``resources/``: the ``.desktop`` entry, the AppStream metainfo and the icons.

- ``desktop-file-validate`` (Debian package ``desktop-file-utils``) checks each ``resources/*.desktop``
  against the Desktop Entry Specification (freedesktop.org); errors and warnings fail, hints do not.
- ``appstreamcli validate --no-net`` (Debian package ``appstream``) checks each
  ``resources/*.metainfo.xml`` against the AppStream specification; it fails on errors and warnings
  (its default), infos and pedantic hints do not.

When a validator binary is missing the test is skipped, unless ``DESKTOP_AGENT_EXPECT_TOOLS`` is set
(``scripts/test.sh`` sets it and installs both packages): then it fails, so CI cannot go green by
silently skipping. The other checks need no external tool: every icon the ``.desktop`` file names exists
in ``resources``, every SVG in ``resources/icons`` is well-formed XML with an ``<svg>`` root, and the files
agree with each other and with the project (command name, desktop id, version).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "resources"
ICONS = RESOURCES / "icons"
SVG_NS = "{http://www.w3.org/2000/svg}"
APT_PACKAGE = {"desktop-file-validate": "desktop-file-utils", "appstreamcli": "appstream", "man": "man-db",
               "xvfb-run": "xvfb", "dbus-run-session": "dbus-daemon"}


def require_tool(name: str) -> str:
    """The path of the tool ``name``; skip when it is missing, fail instead when
    ``DESKTOP_AGENT_EXPECT_TOOLS`` is set."""
    path = shutil.which(name)
    if path:
        return path
    why = f"{name} not found (apt-get install {APT_PACKAGE[name]})"
    if os.environ.get("DESKTOP_AGENT_EXPECT_TOOLS"):
        pytest.fail(f"{why}, and DESKTOP_AGENT_EXPECT_TOOLS is set")
    pytest.skip(why)


def desktop_files() -> list[Path]:
    return sorted(RESOURCES.glob("*.desktop"))


def metainfo_files() -> list[Path]:
    return sorted(RESOURCES.glob("*.metainfo.xml"))


def parse_desktop(path: Path) -> dict[str, dict[str, str]]:
    """``{group: {key: value}}`` of a Desktop Entry file (keys keep their ``[locale]`` suffix)."""
    groups: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = groups.setdefault(line[1:-1], {})
        elif "=" in line and current is not None:
            key, value = line.split("=", 1)
            current[key.strip()] = value.strip()
    return groups


def gui_scripts() -> set[str]:
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = data.get("project", {})
    return set(project.get("gui-scripts", {})) | set(project.get("scripts", {}))


def test_resources_have_desktop_entry_and_metainfo():
    assert desktop_files(), f"no *.desktop file in {RESOURCES}"
    assert metainfo_files(), f"no *.metainfo.xml file in {RESOURCES}"


def test_desktop_files_pass_desktop_file_validate():
    tool = require_tool("desktop-file-validate")
    files = desktop_files()
    assert files, f"no *.desktop file in {RESOURCES}"
    problems = []
    for path in files:
        proc = subprocess.run([tool, str(path)], capture_output=True, text=True, timeout=30)
        report = (proc.stdout + proc.stderr).strip()
        serious = [ln for ln in report.splitlines() if re.search(r": (error|warning): ", ln)]
        if proc.returncode != 0 or serious:
            problems.append(f"{path.name} (exit {proc.returncode}):\n{report}")
    assert not problems, "\n".join(problems)


def test_metainfo_passes_appstreamcli_validate():
    tool = require_tool("appstreamcli")
    files = metainfo_files()
    assert files, f"no *.metainfo.xml file in {RESOURCES}"
    problems = []
    for path in files:
        proc = subprocess.run([tool, "validate", "--no-net", str(path)], capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            problems.append(f"{path.name} (exit {proc.returncode}):\n{(proc.stdout + proc.stderr).strip()}")
    assert not problems, "\n".join(problems)


def _icon_file(name: str) -> Path | None:
    """Where an ``Icon=`` value is found in resources: ``icons/NAME.svg|png``, ``NAME.svg|png`` or a
    hicolor theme layout (``icons/hicolor/*/apps/NAME.*``)."""
    if "/" in name:
        return None  # a path, not an icon name: it could never be right once installed
    stem = Path(name).stem if Path(name).suffix in (".svg", ".png") else name
    for folder in (ICONS, RESOURCES):
        for ext in (".svg", ".png"):
            if (folder / f"{stem}{ext}").is_file():
                return folder / f"{stem}{ext}"
    found = sorted(ICONS.glob(f"hicolor/*/apps/{stem}.*"))
    return found[0] if found else None


def test_every_icon_named_by_desktop_files_exists():
    files = desktop_files()
    assert files, f"no *.desktop file in {RESOURCES}"
    missing, named = [], []
    for path in files:
        for group, entries in parse_desktop(path).items():
            for key, value in entries.items():
                if key == "Icon" or key.startswith("Icon["):
                    named.append(value)
                    if _icon_file(value) is None:
                        missing.append(f"{path.name} [{group}] {key}={value}")
        assert "Icon" in parse_desktop(path).get("Desktop Entry", {}), f"{path.name} names no Icon"
    assert not missing, "icons named but not found in resources/: " + "; ".join(missing)
    assert named


def test_every_svg_icon_is_well_formed():
    svgs = sorted(ICONS.rglob("*.svg"))
    assert svgs, f"no SVG in {ICONS}"
    problems = []
    for path in svgs:
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as exc:
            problems.append(f"{path.relative_to(RESOURCES)}: not well-formed XML ({exc})")
            continue
        if root.tag not in (f"{SVG_NS}svg", "svg"):
            problems.append(f"{path.relative_to(RESOURCES)}: root element is <{root.tag}>, not <svg>")
        elif not (root.get("viewBox") or (root.get("width") and root.get("height"))):
            problems.append(f"{path.relative_to(RESOURCES)}: no viewBox nor width/height: cannot be scaled")
    assert not problems, "\n".join(problems)


def test_desktop_entry_matches_the_project():
    """Exec runs the installed command; the file name is the desktop id the app announces (Qt's
    ``setDesktopFileName``: the Wayland app id, which docks use to find the icon and name)."""
    scripts = gui_scripts()
    for path in desktop_files():
        entry = parse_desktop(path).get("Desktop Entry", {})
        command = entry.get("Exec", "").split()
        assert command and command[0] in scripts, f"{path.name}: Exec={entry.get('Exec')!r} is not one of {scripts}"
    from desktop_agent.ui.main_window import APP_NAME  # run_gui(): app.setDesktopFileName(APP_NAME)

    assert (RESOURCES / f"{APP_NAME}.desktop").is_file(), f"the app announces desktop id {APP_NAME!r}"


def test_metainfo_matches_the_project():
    """Component id = file name, the launchable names a .desktop file we ship, the binary is our
    command, and the newest release is the package version (bump both together)."""
    from desktop_agent import __version__

    scripts = gui_scripts()
    shipped_desktop = {p.name for p in desktop_files()}
    for path in metainfo_files():
        root = ET.parse(path).getroot()
        cid = (root.findtext("id") or "").strip()
        assert path.name == f"{cid}.metainfo.xml", f"{path.name}: component id is {cid!r}"
        launchables = [el.text.strip() for el in root.findall("launchable") if el.get("type") == "desktop-id"]
        assert launchables, f"{path.name}: no <launchable type='desktop-id'>"
        assert set(launchables) <= shipped_desktop, f"{path.name}: {launchables} not all in resources/"
        binaries = {el.text.strip() for el in root.findall("provides/binary")}
        assert binaries <= scripts, f"{path.name}: <provides><binary> {binaries} not in {scripts}"
        releases = [el.get("version") for el in root.findall("releases/release")]
        assert releases, f"{path.name}: no <release>"
        assert releases[0] == __version__, f"{path.name}: newest release {releases[0]} ≠ package {__version__}"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
