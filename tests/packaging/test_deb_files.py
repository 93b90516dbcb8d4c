"""The Debian package's own files (``packaging/deb/``), checked without building anything.

The package itself is built, checked with lintian, installed, started and removed by
``packaging/deb-check.sh`` (CI's last step, as root): these checks catch the slips that would only show
there, a few minutes later — a changelog not bumped with the app, a dependency of the Qt xcb plugin
missing from ``Depends``, an override without its reason, a man page that no longer lists a command.
"""

from __future__ import annotations

import re
import shutil
import subprocess

from desktop_agent import __version__
from tests.packaging.test_desktop_files import ROOT, require_tool

DEB = ROOT / "packaging" / "deb"


def control_fields() -> dict[str, str]:
    fields: dict[str, str] = {}
    key = ""
    for line in (DEB / "control.in").read_text(encoding="utf-8").splitlines():
        if line.startswith(" ") and key:
            fields[key] += "\n" + line
        else:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def test_changelog_names_the_app_version_and_is_well_formed():
    text = (DEB / "changelog").read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first == f"desktop-agent ({__version__}-1) unstable; urgency=medium", (
        f"packaging/deb/changelog starts with {first!r}: add an entry for {__version__}-1"
    )
    trailer = re.search(r"^ -- .+ <[^>]+>  \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$", text, re.M)
    assert trailer, "the entry's trailer line is not ' -- Name <mail>  RFC 2822 date'"
    if shutil.which("dpkg-parsechangelog"):
        proc = subprocess.run(["dpkg-parsechangelog", "-l", str(DEB / "changelog"), "-S", "Version"],
                              capture_output=True, text=True, timeout=30)
        assert proc.stdout.strip() == f"{__version__}-1", proc.stderr


def test_control_template_has_the_fields_a_binary_package_needs():
    fields = control_fields()
    for key in ("Package", "Version", "Architecture", "Maintainer", "Installed-Size", "Depends", "Section",
                "Priority", "Description"):
        assert key in fields, f"control.in has no {key}"
    assert fields["Package"] == "desktop-agent"
    for key in ("Version", "Architecture", "Installed-Size"):
        assert fields[key].startswith("@"), f"{key} is filled in by make-deb.sh"
    assert "\n" not in fields["Depends"], "lintian: multiline-field Depends"
    summary, *body = fields["Description"].split("\n")
    assert len(summary) <= 80 and body, "a short synopsis and a long description"


def test_depends_covers_the_libraries_the_qt_xcb_plugin_needs():
    """The xcb libraries scripts/test.sh installs for a real window are the ones the package must pull in."""
    depends = {re.sub(r"\s*\(.*\)", "", d).strip() for d in control_fields()["Depends"].split(",")}
    test_sh = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    wanted = set(re.findall(r"\b(libxcb-[\w-]+|libxkbcommon[\w-]*|libegl1|libgl1|libfontconfig1|libdbus-1-3)\b",
                            test_sh))
    assert wanted, "scripts/test.sh lists no xcb library any more: update this test"
    assert wanted <= depends, f"missing from Depends: {sorted(wanted - depends)}"
    assert any(d.startswith("libc6") for d in depends)


def test_every_lintian_override_says_why():
    lines = (DEB / "lintian-overrides").read_text(encoding="utf-8").splitlines()
    overrides = [i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")]
    assert overrides
    for i in overrides:
        assert lines[i].startswith("desktop-agent: "), lines[i]
        assert i > 0 and lines[i - 1].startswith("#"), f"no reason given above {lines[i]!r}"


def test_man_page_lists_every_command():
    from desktop_agent.app import build_parser

    page = (DEB / "desktop-agent.1").read_text(encoding="utf-8")
    assert f'"desktop-agent {__version__}"' in page, "the man page's header names another version"
    # the commands, as `desktop-agent --help` lists them under COMMAND
    commands = re.findall(r"^    (\w+)  ", build_parser().format_help(), re.M)
    assert {"chat", "tools"} <= set(commands), commands
    missing = [name for name in commands if f".B {name}\n" not in page]
    assert not missing, f"commands missing from packaging/deb/desktop-agent.1: {missing}"
    options = set(re.findall(r"(--[\w-]+)", build_parser().format_usage())) - {"--help"}
    assert options, "no option in the usage line"
    missing = [option for option in sorted(options) if option.replace("-", "\\-") not in page]
    assert not missing, f"options missing from packaging/deb/desktop-agent.1: {missing}"


def test_man_page_renders_without_warnings(tmp_path):
    man = require_tool("man")  # (skips without it — fails where the run expects every tool)
    proc = subprocess.run([man, "--warnings", "-l", str(DEB / "desktop-agent.1")], capture_output=True,
                          text=True, timeout=60, env={"MANWIDTH": "80", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    assert proc.returncode == 0 and "desktop-agent" in proc.stdout
    assert not proc.stderr.strip(), proc.stderr
