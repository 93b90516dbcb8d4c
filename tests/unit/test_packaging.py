"""The shipped tools load in an installed app, not only from a checkout (issue 2 §5)."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (whl,) = out.glob("desktop_agent-*.whl")
    return whl


def test_wheel_contains_shipped_tools_and_resources(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    shipped = [n for n in names if n.startswith("desktop_agent/shipped_tools/") and n.endswith(".py")]
    assert shipped, names
    assert any(n.startswith("desktop_agent/resources/") for n in names)


def test_wheel_marks_the_package_typed(wheel):
    """Tool authors' type checkers read the hints of `from desktop_agent import tool, ToolError` (PEP 561)."""
    assert "desktop_agent/py.typed" in zipfile.ZipFile(wheel).namelist()


def test_installed_wheel_lists_shipped_tools(wheel, tmp_path):
    """Install the wheel into a separate folder (deps from this venv) and run `desktop-agent tools`
    from outside the checkout, so the repo's tools/ folder cannot be the source."""
    target = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    env = {**os.environ, "PYTHONPATH": str(target), "DESKTOP_AGENT_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [sys.executable, "-c", "import desktop_agent, sys; print(desktop_agent.__file__);"
         "from desktop_agent.app import main; sys.exit(main(['tools']))"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    first, *lines = proc.stdout.splitlines()
    assert first.startswith(str(target))
    listed = {line.split()[0] for line in lines}
    assert {"today", "day_of_week", "say_hello", "get_current_weather", "calculator"} <= listed
    assert all("[shipped]" in line for line in lines if line.split()[0] in {"today", "calculator"})


def test_installed_wheel_speaks_chinese(wheel, tmp_path):
    """The built translation is inside the wheel, and an app installed from it (not the checkout) loads it."""
    names = zipfile.ZipFile(wheel).namelist()
    assert "desktop_agent/translations/desktop_agent_zh_CN.qm" in names
    target = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    env = {**os.environ, "PYTHONPATH": str(target), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-c", "from PySide6.QtCore import QCoreApplication; app = QCoreApplication([]); "
         "from desktop_agent.ui import i18n; print(i18n.qm_file('zh_CN')); print(i18n.install('zh_CN', app)); "
         "print(i18n.translate('Compose', 'Send'))"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    where, language, send = proc.stdout.splitlines()
    assert where.startswith(str(target)) and language == "zh_CN" and send == "发送"
