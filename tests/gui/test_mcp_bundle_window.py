"""Installing an MCP bundle (.mcpb, built in the test from the manifest spec) in the window, through the real
dialog (offscreen): opened from File → Install MCP bundle…, dropped onto the window, or from Settings → MCP
servers → Install bundle…; the manifest is shown, the user_config form filled in, Install pressed — the server
starts and its tool runs; the secret is in the keyring (a backend in memory), not the settings file. A bundle that
cannot run here offers no Install; a zip-slip bundle says so and installs nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QLabel

from desktop_agent.core import paths
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from desktop_agent.ui import mcp_bundle
from desktop_agent.ui.mcp_bundle_dialog import BundleDialog
from tests.helpers import bundles
from tests.helpers.keyrings import DictKeyring

pytestmark = pytest.mark.usefixtures("clean_keyring_state")
KEY = "gk-typed-in-the-window-99"
SHOT = os.environ.get("DESKTOP_AGENT_BUNDLE_SHOT")  # where to save the dialog's picture (docs/screenshots)


@pytest.fixture
def keyring_backend() -> DictKeyring:
    return DictKeyring()


@pytest.fixture
def window(make_window, ollama_server, keyring_backend, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", bundles.python_on_path(tmp_path))
    settings = Settings(backend="ollama", ollama_host=ollama_server.url)
    return make_window(settings, secrets=SecretStore(keyring_backend=keyring_backend))


def _dialog(qtbot) -> BundleDialog:
    found: list[BundleDialog] = []

    def shown() -> bool:
        found[:] = [w for w in QApplication.topLevelWidgets() if isinstance(w, BundleDialog) and w.isVisible()]
        return bool(found)

    qtbot.waitUntil(shown, timeout=30_000)
    return found[-1]


def _install(qtbot, dialog: BundleDialog) -> None:
    dialog.inputs["api_key"].setText(KEY)
    dialog.inputs["greeting"].setText("Howdy")
    if SHOT:
        dialog.grab().save(SHOT)
    qtbot.mouseClick(dialog.install_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=30_000)


def _greet(qtbot, w) -> str:
    qtbot.waitUntil(lambda: w.assembly._mcp is not None and "greeter" in [c.name for c in w.assembly._mcp.configs],
                    timeout=30_000)
    manager = w.assembly._mcp
    qtbot.waitUntil(lambda: {s.name: s.state for s in manager.states()}.get("greeter") == "ready", timeout=60_000)
    assert "greeter__greet" in [t.name for t in w.assembly.available_tools(w.controller.settings)]
    return str(manager.call("greeter", "greet", {"name": "Ada"}))


def test_install_from_the_file_menu_shows_the_manifest_asks_and_the_tool_runs(window, qtbot, tmp_path,
                                                                                keyring_backend, monkeypatch):
    path = bundles.python_bundle(tmp_path)
    file_menu = window.menuBar().actions()[0].menu()
    action = next(a for a in file_menu.actions() if a.text() == "Install MCP &bundle…")
    monkeypatch.setattr(mcp_bundle.QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    action.trigger()
    dialog = _dialog(qtbot)
    texts = " | ".join(label.text() for label in dialog.findChildren(QLabel))
    for shown in ("<b>Greeter</b> 1.0.0", "Test Author", "Greets people by name.", "greet", "Python >=3.10",
                  "API key *", "Greeting", "kept in the system keyring"):
        assert shown in texts, shown
    assert dialog.inputs["api_key"].echoMode() == dialog.inputs["api_key"].EchoMode.Password
    assert dialog.inputs["greeting"].text() == "Hello"  # the manifest's default
    assert dialog.install_button.isEnabled()
    qtbot.mouseClick(dialog.install_button, Qt.MouseButton.LeftButton)  # the required key is empty
    qtbot.waitUntil(lambda: "fill in API key" in dialog.error.text(), timeout=30_000)
    assert dialog.isVisible() and not (paths.data_dir() / "mcp-bundles" / "greeter").exists()
    _install(qtbot, dialog)
    assert "Howdy, Ada!" in _greet(qtbot, window)
    saved = paths.settings_file().read_text(encoding="utf-8")
    assert KEY not in saved and '"greeter"' in saved
    assert KEY in keyring_backend.data.values()
    assert (paths.data_dir() / "mcp-bundles" / "greeter" / "1.0.0" / "server" / "main.py").is_file()


def _drop(target, path: Path) -> tuple[bool, bool]:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, drop)
    return enter.isAccepted(), drop.isAccepted()


def test_a_bundle_dropped_onto_the_input_opens_the_dialog_not_its_path_as_text(window, qtbot, tmp_path):
    path = bundles.python_bundle(tmp_path)
    entered, dropped = _drop(window.input, path)
    assert entered and dropped
    dialog = _dialog(qtbot)
    assert window.input.toPlainText() == ""
    assert not dialog.replaces.isVisible()
    _install(qtbot, dialog)
    assert "Howdy, Ada!" in _greet(qtbot, window)
    _drop(window.input, bundles.python_bundle(tmp_path, "1.1.0"))  # a newer version
    dialog = _dialog(qtbot)
    assert dialog.replaces.text().endswith("Replaces the installed version 1.0.0.")
    assert dialog.inputs["greeting"].text() == "Howdy" and dialog.inputs["api_key"].text() == ""  # as given before
    _install(qtbot, dialog)
    qtbot.waitUntil(lambda: not (paths.data_dir() / "mcp-bundles" / "greeter" / "1.0.0").exists(), timeout=30_000)
    assert (paths.data_dir() / "mcp-bundles" / "greeter" / "1.1.0").is_dir()


def test_a_bundle_that_cannot_run_here_offers_no_install(window, qtbot, tmp_path):
    too_new = bundles.node_manifest(compatibility={"runtimes": {"node": ">=99.0.0"}})
    path = bundles.build(tmp_path / "new.mcpb", too_new, {"server/index.js": bundles.NODE_SERVER})
    mcp_bundle.install_bundle(window, str(path))
    dialog = _dialog(qtbot)
    assert not dialog.install_button.isEnabled()
    assert "needs Node.js >=99.0.0" in dialog.problems.text() and dialog.problems.isVisible()
    dialog.reject()
    assert not (paths.data_dir() / "mcp-bundles").exists() or not any((paths.data_dir() / "mcp-bundles").iterdir())


def test_a_zip_slip_bundle_says_so_and_installs_nothing(window, qtbot, tmp_path, monkeypatch):
    path = bundles.build(tmp_path / "slip.mcpb", bundles.python_manifest(),
                         {"server/main.py": bundles.PY_SERVER, "../../evil.py": "x"})
    said: list[str] = []
    monkeypatch.setattr(mcp_bundle.QMessageBox, "warning", lambda _parent, _title, text: said.append(text))
    mcp_bundle.install_bundle(window, str(path))
    qtbot.waitUntil(lambda: bool(said), timeout=30_000)
    assert "zip-slip" in said[0] and "Nothing was installed." in said[0]
    assert not (paths.data_dir() / "mcp-bundles").exists() or not any((paths.data_dir() / "mcp-bundles").iterdir())
    assert "greeter" not in (paths.settings_file().read_text() if paths.settings_file().exists() else "")


def test_install_bundle_from_settings_lists_it_on_the_page(window, qtbot, tmp_path, monkeypatch):
    path = bundles.python_bundle(tmp_path)
    monkeypatch.setattr(mcp_bundle.QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    window.open_settings()
    qtbot.waitUntil(lambda: window.settings_dialog is not None, timeout=10_000)
    page = window.settings_dialog.mcp_page
    qtbot.mouseClick(page.bundle_button, Qt.MouseButton.LeftButton)
    _install(qtbot, _dialog(qtbot))
    qtbot.waitUntil(lambda: "greeter" in [s.name for s in page.servers()], timeout=10_000)
    assert page.selected_name() == "greeter"
    assert "Howdy, Ada!" in _greet(qtbot, window)
    dialog = window.settings_dialog
    dialog.reject()
    qtbot.waitUntil(lambda: window.settings_dialog is None, timeout=10_000)


def test_removing_an_installed_bundle_in_settings_deletes_its_files_and_secret(window, qtbot, tmp_path,
                                                                               keyring_backend):
    mcp_bundle.install_bundle(window, str(bundles.python_bundle(tmp_path)))
    _install(qtbot, _dialog(qtbot))
    home = paths.data_dir() / "mcp-bundles" / "greeter"
    assert home.is_dir() and KEY in keyring_backend.data.values()
    window.open_settings()
    qtbot.waitUntil(lambda: window.settings_dialog is not None, timeout=10_000)
    dialog = window.settings_dialog
    dialog.mcp_page.select("greeter")
    qtbot.mouseClick(dialog.mcp_page.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dialog.save_button.isEnabled, timeout=10_000)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not home.exists(), timeout=30_000)
    qtbot.waitUntil(lambda: KEY not in keyring_backend.data.values(), timeout=30_000)
    assert '"greeter"' not in paths.settings_file().read_text(encoding="utf-8")
