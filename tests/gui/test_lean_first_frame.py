"""What the window's first frame does without: a style written in Python (plain Fusion, made by Qt; the
contrast style only with a dark palette, after the first frame), the tool sidebar's list and details (built
right after the first frame), a re-polish of the Send button that changes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.ui import theme
from desktop_agent.ui.compose import Composer
from desktop_agent.ui.contrast_style import ContrastStyle
from desktop_agent.ui.tool_sidebar import ToolSidebar

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def app_style(qapp, monkeypatch):
    """The test application, its style and palette put back afterwards."""
    monkeypatch.delenv("QT_STYLE_OVERRIDE", raising=False)
    monkeypatch.delenv("DESKTOP_AGENT_THEME", raising=False)
    name, palette, recorded = qapp.style().name(), qapp.palette(), theme._style_set
    yield qapp
    qapp.setStyle(name)
    qapp.setPalette(palette)
    theme._style_set = recorded


def test_a_light_palette_gets_plain_fusion_and_a_dark_one_the_contrast_style(app_style):
    app = app_style
    theme.apply(app, "light")
    assert not isinstance(app.style(), ContrastStyle) and app.style().name().lower() == "fusion"
    theme.apply(app, "dark")
    style = app.style()
    assert isinstance(style, ContrastStyle)
    theme.apply(app, "dark")  # unchanged: the style is not made again (a new one re-polishes every widget)
    assert app.style() is style
    theme.apply(app, "light")
    assert not isinstance(app.style(), ContrastStyle) and app.style().name().lower() == "fusion"
    assert app.palette().color(app.palette().ColorRole.Window).lightness() >= 128


def test_a_dark_palettes_contrast_style_can_wait_for_the_first_frame(app_style):
    app = app_style
    theme.apply(app, "dark", contrast_later=True)
    assert not isinstance(app.style(), ContrastStyle)
    assert app.palette().color(app.palette().ColorRole.Window).lightness() < 128  # the palette comes at once
    theme.apply_contrast(app)
    assert isinstance(app.style(), ContrastStyle)
    theme.apply(app, "dark", contrast_later=True)
    theme.apply(app, "light")  # the settings, loaded after the first frame, say light: nothing waits any more
    theme.apply_contrast(app)
    assert not isinstance(app.style(), ContrastStyle)


def test_a_style_the_user_chose_is_kept(app_style, monkeypatch):
    monkeypatch.setenv("QT_STYLE_OVERRIDE", "windows")
    before = app_style.style()
    theme.apply(app_style, "dark")
    assert app_style.style() is before
    assert theme.application_arguments(["desktop-agent"]) == ["desktop-agent"]


def test_the_application_is_made_with_fusion_unless_a_style_is_chosen(monkeypatch):
    monkeypatch.delenv("QT_STYLE_OVERRIDE", raising=False)
    assert theme.application_arguments(["desktop-agent"]) == ["desktop-agent", "-style", "Fusion"]
    assert theme.application_arguments(["desktop-agent", "-style", "kvantum"]) == ["desktop-agent", "-style",
                                                                                   "kvantum"]
    assert theme.application_arguments(["desktop-agent", "-style=windows"]) == ["desktop-agent", "-style=windows"]


def test_the_sidebar_builds_its_list_and_details_when_asked(qtbot):
    sidebar = ToolSidebar(details_later=True)
    qtbot.addWidget(sidebar)
    assert not hasattr(sidebar, "tree") and sidebar.stack.count() == 1
    assert sidebar.stack.currentWidget() is sidebar.empty
    sidebar.restyle()  # a palette change before the details exist
    sidebar.build_details()
    tree = sidebar.tree
    sidebar.build_details()
    assert sidebar.tree is tree and sidebar.stack.count() == 2
    sidebar.started("c1", "get_time", {"zone": "UTC"})
    assert sidebar.stack.currentWidget() is sidebar.split and tree.topLevelItemCount() == 1


def test_the_send_button_turns_into_stop_and_back(qtbot):
    """The button is re-polished only when it changes — and then its [stop="true"] style shows."""
    composer = Composer()
    qtbot.addWidget(composer)
    composer.setStyleSheet('QPushButton#sendButton { background: #00ff00; border: none; }'
                           'QPushButton#sendButton[stop="true"] { background: #ff0000; }')
    composer.show()
    qtbot.waitExposed(composer)

    def corner() -> str:
        return composer.button.grab().toImage().pixelColor(4, 4).name()

    assert corner() == "#00ff00"
    composer.set_busy(True)
    assert composer.button.text() == "Stop" and corner() == "#ff0000"
    composer.set_busy(False)
    assert composer.button.text() == "Send" and corner() == "#00ff00"


CHILD = """
import json, os, sys
import desktop_agent.ui.first_frame as first_frame
from PySide6.QtWidgets import QApplication

def noted(moment=None):
    app = QApplication.instance()
    window = [w for w in app.topLevelWidgets() if w.objectName() == "mainWindow"][0]
    print(json.dumps({"contrast style loaded": "desktop_agent.ui.contrast_style" in sys.modules,
                      "sidebar details": window.sidebar._details_built}), flush=True)
    print(json.dumps({"style": app.style().name().lower(), "python style": type(app.style()).__module__}), flush=True)
    os._exit(0)

first_frame.note_for_bench = noted
sys.argv = ["desktop-agent"]
from desktop_agent.app import main
main()
"""


@pytest.mark.parametrize("palette", ["light", "dark"])
def test_the_first_frame_is_painted_with_qts_own_fusion_and_the_empty_sidebar(tmp_path, palette):
    """``desktop-agent``: its first frame is painted by Qt's Fusion style, with no style written in Python (one
    would be called for every primitive painted) — with a dark palette too, whose contrast style comes right
    after the frame — and the tool sidebar's list and details come after it."""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen",
           "DESKTOP_AGENT_HOME": str(tmp_path), "DESKTOP_AGENT_THEME": palette,
           "DESKTOP_AGENT_BENCH_FIRST_PAINT": str(tmp_path / "painted")}
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    at_first_frame, style = (json.loads(line) for line in out.stdout.strip().splitlines()[-2:])
    assert at_first_frame == {"contrast style loaded": False, "sidebar details": False}
    assert style["style"] == "fusion" and not style["python style"].startswith("desktop_agent")
