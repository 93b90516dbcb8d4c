"""Settings → MCP servers against real servers: the PyPI ``mcp-server-time`` over stdio, a command that does not
exist and a program that exits at once; real widgets, an in-test keyring (tests/helpers/keyrings.py), the settings file
read back from disk."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import threading
from pathlib import Path

import keyring
import keyring.core
import pytest
from PySide6.QtCore import Qt

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.mcp.manager import McpCallFailed
from desktop_agent.core.secrets import SERVICE, SecretStore
from desktop_agent.core.settings import McpServerSettings, Settings
from desktop_agent.ui.settings.dialog import MCP_TAB, TOOLS_TAB, SettingsDialog
from desktop_agent.ui.settings.tool_list import SOURCE_COL
from tests.helpers.keyrings import DictKeyring
from tests.helpers.processes import children_running as _children_running

TIME_SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))
#: a server that writes a line to stderr and exits before it answers initialize
EXITS_AT_ONCE = McpServerSettings(name="crash", command=sys.executable,
                                  args=["-c", "import sys; print('crash: no config file', file=sys.stderr); "
                                              "sys.exit(3)"])
MISSING = McpServerSettings(name="missing", command="/nonexistent/mcp-server-nothing")
TIME = McpServerSettings(name="time", command=TIME_SERVER)
TOKEN = "ghp-secret-token-0123456789"
WAIT_MS = 60_000

pytestmark = pytest.mark.usefixtures("clean_keyring_state")


def with_servers(*servers: McpServerSettings) -> Settings:
    return Settings().updated({"mcp.servers": [s.model_dump() for s in servers]})


@pytest.fixture
def keyring_backend() -> DictKeyring:
    return DictKeyring()


@pytest.fixture
def store(keyring_backend) -> SecretStore:
    return SecretStore(keyring_backend=keyring_backend)


@pytest.fixture
def assemblies(store):
    made: list[Assembly] = []

    def make() -> Assembly:
        assembly = Assembly(secrets=store)
        made.append(assembly)
        return assembly

    yield make
    for assembly in made:
        assembly.close()


@pytest.fixture
def dialogs(qtbot, store, tmp_path, assemblies):
    """Settings dialogs on an assembly that is closed at the end (its tool list starts the servers it lists)."""
    made: list[SettingsDialog] = []

    def make(settings: Settings, assembly: Assembly | None = None) -> SettingsDialog:
        dialog = SettingsDialog(settings, store, assembly=assembly or assemblies(), auto_refresh=False,
                                settings_path=tmp_path / "settings.json")
        qtbot.addWidget(dialog)
        made.append(dialog)
        dialog.show()
        dialog.tabs.setCurrentIndex(MCP_TAB)
        return dialog

    yield make
    for dialog in made:
        dialog.shutdown()
        dialog.close()


def saved_file(tmp_path: Path) -> tuple[str, Settings]:
    path = tmp_path / "settings.json"
    settings, warnings = Settings.load(path)
    assert not warnings
    return path.read_text(encoding="utf-8"), settings


def save(qtbot, dialog: SettingsDialog) -> Settings:
    assert dialog.save_button.isEnabled(), dialog.status_label.text()
    dialog.save_button.click()
    qtbot.waitUntil(lambda: dialog.saved_settings is not None, timeout=10_000)
    return dialog.saved_settings


@pytest.fixture(autouse=True)
def no_server_left():
    """Every test stops the servers it started (no orphan processes)."""
    yield
    assert not _children_running("mcp-server-time")


def test_page_shows_ready_and_failed_servers_live_and_the_tools_join_the_tools_page(qtbot, assemblies, dialogs):
    settings = with_servers(TIME, MISSING, EXITS_AT_ONCE,
                            McpServerSettings(name="off", command="true", enabled=False))
    assembly = assemblies()
    dialog = dialogs(settings, assembly)
    page = dialog.mcp_page
    assert page.status_text("time") == "not started yet"  # the window starts them after it shows
    assert page.status_text("off") == "disabled"
    # the servers start now, on another thread: the page follows their states as they change
    threading.Thread(target=assembly.mcp, args=(settings,), daemon=True).start()
    qtbot.waitUntil(lambda: page.status_text("time") == "ready (2 tools)", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: page.status_text("crash").startswith("failed"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: page.status_text("missing").startswith("failed"), timeout=WAIT_MS)
    assert page.status_text("missing") == "failed — the command was not found (/nonexistent/mcp-server-nothing)"
    assert page.status_text("off") == "disabled"

    page.select("crash")  # its last stderr lines are shown
    assert page.output.isVisible()
    assert "crash: no config file" in page.output.toPlainText()
    assert page.status_line.text().startswith("✗ Failed: it exited before it was ready")
    page.select("time")
    assert not page.output.isVisible()
    assert "get_current_time" in page.status_line.text()
    dialog.grab().save(str(Path(os.environ.get("SCREENSHOT_DIR", "/tmp")) / "mcp-page.png"))

    # Settings → Tools → Installed tools lists the server's tools with the server as their source
    dialog.tabs.setCurrentIndex(TOOLS_TAB)
    tool_list = dialog.tools_page.tool_list
    qtbot.waitUntil(lambda: tool_list.item("time__get_current_time") is not None, timeout=WAIT_MS)
    item = tool_list.item("time__get_current_time")
    assert item is not None and item.text(SOURCE_COL) == "MCP server time"


def test_restart_brings_a_killed_server_back(qtbot, assemblies, dialogs):
    settings = with_servers(TIME)
    assembly = assemblies()
    manager = assembly.mcp(settings)
    assert manager is not None
    dialog = dialogs(settings, assembly)
    page = dialog.mcp_page
    qtbot.waitUntil(lambda: page.status_text("time") == "ready (2 tools)", timeout=WAIT_MS)
    pids = _children_running("mcp-server-time")
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    with pytest.raises(McpCallFailed):
        manager.call("time", "get_current_time", {"timezone": "UTC"})
    qtbot.waitUntil(lambda: page.status_text("time").startswith("failed"), timeout=WAIT_MS)
    page.select("time")
    assert page.restart_button.isEnabled()
    page.restart_button.click()
    qtbot.waitUntil(lambda: page.status_text("time") == "ready (2 tools)", timeout=WAIT_MS)
    result = manager.call("time", "get_current_time", {"timezone": "UTC"})
    assert not result.is_error
    assert _children_running("mcp-server-time")
    page.set_server_enabled("time", False)  # unticked: it runs until the settings are saved
    assert page.status_text("time") == "disabled — Save to stop it"
    assert not page.restart_button.isEnabled()


def fill(editor, name: str, command: str = "", args: str = "", url: str = "") -> None:
    editor.name.setText(name)
    if url:
        editor.remote_radio.setChecked(True)
        editor.url.setText(url)
    else:
        editor.stdio_radio.setChecked(True)
        editor.command.setText(command)
        editor.args.setText(args)


def test_add_edit_remove_persist_to_the_settings_file(qtbot, dialogs, tmp_path):
    dialog = dialogs(Settings())
    page = dialog.mcp_page
    editor = page.editor()
    fill(editor, "files", "npx", "-y '@modelcontextprotocol/server-filesystem' '/home/me/My Documents'")
    editor.accept()
    page.add_server(editor)
    editor = page.editor()
    fill(editor, "web", url="https://example.com/mcp")
    editor.accept()
    page.add_server(editor)
    assert page.status_text("files") == "not started — Save to start it"
    save(qtbot, dialog)
    _text, saved = saved_file(tmp_path)
    files, web = saved.mcp.servers
    assert (files.name, files.command) == ("files", "npx")
    assert files.args == ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/My Documents"]
    assert (web.name, web.url, web.command) == ("web", "https://example.com/mcp", "")

    dialog = dialogs(saved)
    page = dialog.mcp_page
    page.select("files")
    editor = page.editor(page._server("files"))
    assert editor.args.text() == "-y @modelcontextprotocol/server-filesystem '/home/me/My Documents'"
    editor.cwd.setText("/tmp")
    editor.env.add_row("LOG_LEVEL", "debug")
    editor.accept()
    page.edit_server(editor)
    page.set_server_enabled("web", False)
    save(qtbot, dialog)
    _text, saved = saved_file(tmp_path)
    files, web = saved.mcp.servers
    assert files.cwd == "/tmp" and files.env == {"LOG_LEVEL": "debug"}
    assert not web.enabled

    dialog = dialogs(saved)
    page = dialog.mcp_page
    page.select("web")
    page.remove_button.click()
    save(qtbot, dialog)
    assert [s.name for s in saved_file(tmp_path)[1].mcp.servers] == ["files"]


def test_the_editor_says_what_is_wrong_next_to_the_field_and_keeps_nothing(qtbot, dialogs):
    dialog = dialogs(with_servers(TIME))
    page = dialog.mcp_page
    editor = page.editor()
    editor.show()
    fill(editor, "bad name!", "")
    editor.accept()
    assert editor.result_server is None and editor.isVisible()
    assert "letters, digits" in editor.name_error.text()
    assert editor.command_error.text() == "✗ Type the command that starts the server."
    fill(editor, "time", "true")
    editor.accept()
    assert editor.name_error.text() == "✗ There is already a server called time."
    fill(editor, "web", url="ftp:/nowhere")
    editor.accept()
    assert "is not a URL" in editor.url_error.text() and editor.result_server is None
    fill(editor, "run", "prog", args="'unclosed")
    editor.accept()
    assert "close every quote" in editor.args_error.text()
    fill(editor, "run", "prog")
    editor.env.add_row("", "value-without-a-name")
    editor.accept()
    assert editor.env_error.text() == "✗ Every row with a value needs a name."
    assert editor.result_server is None
    editor.reject()
    page.add_server(editor)
    assert [s.name for s in page.servers()] == ["time"]
    editor.grab().save(str(Path(os.environ.get("SCREENSHOT_DIR", "/tmp")) / "mcp-editor.png"))


def test_secret_rows_go_to_the_keyring_never_to_the_settings_file(qtbot, dialogs, tmp_path, keyring_backend):
    dialog = dialogs(Settings())
    page = dialog.mcp_page
    editor = page.editor()
    fill(editor, "gh", "github-mcp")
    row = editor.env.add_row("GITHUB_TOKEN", TOKEN, True)
    assert editor.env.row_widgets(row)[1].echoMode() == editor.env.row_widgets(row)[1].EchoMode.Password
    editor.env.add_row("GITHUB_HOST", "github.com")
    editor.accept()
    page.add_server(editor)
    page.select("gh")
    assert page.secret_list.item(0).text() == "GITHUB_TOKEN (environment variable): set (saved when you press Save)"
    save(qtbot, dialog)
    text, saved = saved_file(tmp_path)
    assert TOKEN not in text
    assert saved.mcp.servers[0].secret_env == ["GITHUB_TOKEN"] and saved.mcp.servers[0].env == {
        "GITHUB_HOST": "github.com"}
    assert keyring_backend.data[(SERVICE, "secret:mcp:gh:env:GITHUB_TOKEN")] == TOKEN

    # the page shows it set; renaming the server takes the secret along; replacing one writes the new value
    dialog = dialogs(saved)
    page = dialog.mcp_page
    page.select("gh")
    qtbot.waitUntil(lambda: page.secret_list.item(0).text() == "GITHUB_TOKEN (environment variable): set",
                    timeout=10_000)
    editor = page.editor(page._server("gh"))
    assert editor.env.row_widgets(1)[1].placeholderText() == "set — type a new value to replace it"
    editor.name.setText("github")
    editor.accept()
    page.edit_server(editor)
    save(qtbot, dialog)
    assert (SERVICE, "secret:mcp:gh:env:GITHUB_TOKEN") not in keyring_backend.data
    assert keyring_backend.data[(SERVICE, "secret:mcp:github:env:GITHUB_TOKEN")] == TOKEN

    dialog = dialogs(saved_file(tmp_path)[1])
    page = dialog.mcp_page
    page.select("github")
    page.secret_list.setCurrentRow(0)
    page.replace_secret("ghp-new-value")
    save(qtbot, dialog)
    assert keyring_backend.data[(SERVICE, "secret:mcp:github:env:GITHUB_TOKEN")] == "ghp-new-value"
    assert "ghp-new-value" not in saved_file(tmp_path)[0]

    # cleared: gone from the keyring, the name stays (not set)
    dialog = dialogs(saved_file(tmp_path)[1])
    page = dialog.mcp_page
    page.select("github")
    page.secret_list.setCurrentRow(0)
    page.clear_button.click()
    save(qtbot, dialog)
    assert (SERVICE, "secret:mcp:github:env:GITHUB_TOKEN") not in keyring_backend.data
    dialog = dialogs(saved_file(tmp_path)[1])
    page = dialog.mcp_page
    page.select("github")
    qtbot.waitUntil(lambda: page.secret_list.item(0).text().endswith(": not set"), timeout=10_000)

    # removing the server removes its secrets
    page.secret_list.setCurrentRow(0)
    page.replace_secret("ghp-again")
    save(qtbot, dialog)
    assert (SERVICE, "secret:mcp:github:env:GITHUB_TOKEN") in keyring_backend.data
    dialog = dialogs(saved_file(tmp_path)[1])
    page = dialog.mcp_page
    page.select("github")
    page.remove_server()
    save(qtbot, dialog)
    assert not [k for k in keyring_backend.data if "mcp:" in k[1]]


def claude_config(tmp_path: Path) -> Path:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": {
        "time": {"command": TIME_SERVER, "args": []},
        "github": {"command": "github-mcp-server", "args": ["stdio"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": TOKEN, "GITHUB_HOST": "github.com"}},
    }}), encoding="utf-8")
    return path


def test_import_of_a_claude_desktop_config_reports_it_and_keeps_the_token_in_the_keyring(
        qtbot, dialogs, tmp_path, keyring_backend):
    dialog = dialogs(with_servers(McpServerSettings(name="time", command="old-time-server")))
    page = dialog.mcp_page
    page.import_config(str(claude_config(tmp_path)))
    qtbot.waitUntil(lambda: "Press Save" in page.import_note.text(), timeout=10_000)
    note = page.import_note.text()
    assert "Replaced the existing server time (it was: old-time-server)." in note and "Added github." in note
    assert ("The environment variable GITHUB_PERSONAL_ACCESS_TOKEN of github goes to the system keyring when you "
            "press Save, not to the settings file.") in note
    assert not keyring_backend.data  # nothing is kept before Save
    assert [s.name for s in page.servers()] == ["time", "github"]
    page.select("github")
    assert page.secret_list.item(0).text().endswith("): set (saved when you press Save)")
    save(qtbot, dialog)
    assert keyring_backend.data[(SERVICE, "secret:mcp:github:env:GITHUB_PERSONAL_ACCESS_TOKEN")] == TOKEN
    text, saved = saved_file(tmp_path)
    assert TOKEN not in text
    assert saved.mcp.servers[0].command == TIME_SERVER
    assert saved.mcp.servers[1].env == {"GITHUB_HOST": "github.com"}


def test_cancel_after_an_import_keeps_nothing(qtbot, dialogs, tmp_path, keyring_backend):
    dialog = dialogs(Settings())
    page = dialog.mcp_page
    page.import_config(str(claude_config(tmp_path)))
    qtbot.waitUntil(lambda: "Press Save" in page.import_note.text(), timeout=10_000)
    dialog.grab().save(str(Path(os.environ.get("SCREENSHOT_DIR", "/tmp")) / "mcp-import.png"))
    dialog.reject()
    assert not keyring_backend.data
    assert not (tmp_path / "settings.json").exists()


def test_import_of_a_bad_file_says_why_and_changes_nothing(qtbot, dialogs, tmp_path):
    dialog = dialogs(with_servers(TIME))
    page = dialog.mcp_page
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    page.import_config(str(bad))
    qtbot.waitUntil(lambda: "Nothing was imported" in page.import_note.text(), timeout=10_000)
    assert "not JSON" in page.import_note.text()
    assert [s.name for s in page.servers()] == ["time"]


def test_without_a_keyring_the_import_says_session_only_and_what_to_do(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    keyring.core.init_backend()
    store = SecretStore()
    dialog = SettingsDialog(Settings(), store, auto_refresh=False, settings_path=tmp_path / "settings.json")
    qtbot.addWidget(dialog)
    dialog.show()
    try:
        page = dialog.mcp_page
        page.import_config(str(claude_config(tmp_path)))
        qtbot.waitUntil(lambda: "Press Save" in page.import_note.text(), timeout=10_000)
        assert "goes to this session only (there is no keyring) when you press Save" in page.import_note.text()
        assert "install and unlock a Secret Service keyring" in page.keyring_note.text()
        dialog.save_button.click()
        qtbot.waitUntil(lambda: dialog.saved_settings is not None, timeout=10_000)
        assert store.get_secret("mcp:github:env:GITHUB_PERSONAL_ACCESS_TOKEN") == TOKEN  # this session only
        assert TOKEN not in (tmp_path / "settings.json").read_text(encoding="utf-8")
        assert keyring.get_keyring().__class__.__module__ == "keyring.backends.fail"
    finally:
        dialog.shutdown()
        dialog.close()


def test_saving_from_the_window_starts_only_the_changed_servers_and_the_page_shows_them(qtbot, make_window,
                                                                                      store, ollama_server):
    settings = Settings(backend="ollama", ollama_host=ollama_server.url).updated(
        {"mcp.servers": [TIME.model_dump()]})
    w = make_window(settings, secrets=store)
    qtbot.waitUntil(lambda: w.assembly.current_mcp() is not None, timeout=10_000)
    first = w.assembly.current_mcp()
    w.open_settings()
    dialog = w.settings_dialog
    assert dialog is not None
    dialog.tabs.setCurrentIndex(MCP_TAB)
    page = dialog.mcp_page
    qtbot.waitUntil(lambda: page.status_text("time") == "ready (2 tools)", timeout=WAIT_MS)
    editor = page.editor()
    fill(editor, "crash", EXITS_AT_ONCE.command)
    editor.args.setText(" ".join(f"'{a}'" for a in EXITS_AT_ONCE.args))
    editor.accept()
    page.add_server(editor)
    assert page.status_text("crash") == "not started — Save to start it"
    time_pids = _children_running("mcp-server-time")
    dialog.save_button.click()
    qtbot.waitUntil(lambda: w.settings_dialog is None, timeout=10_000)
    qtbot.waitUntil(lambda: "crash" in [s.name for s in first.states()], timeout=10_000)
    # only the server added starts: the running one goes on (same manager, same process)
    assert w.assembly.current_mcp() is first and not first._closed
    assert len(time_pids) == 1 and _children_running("mcp-server-time") == time_pids
    # the status bar says so, and a click on it opens the MCP servers page, which shows the new servers
    qtbot.waitUntil(lambda: w.mcp_status.summary == "MCP: 1 of 2 servers failed", timeout=WAIT_MS)
    assert w.mcp_status.isVisible() and "crash: failed" in w.mcp_status.toolTip()
    qtbot.mouseClick(w.mcp_status, Qt.MouseButton.LeftButton)
    dialog = w.settings_dialog
    assert dialog is not None and dialog.tabs.currentIndex() == MCP_TAB
    page = dialog.mcp_page
    qtbot.waitUntil(lambda: page.status_text("time") == "ready (2 tools)", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: page.status_text("crash").startswith("failed"), timeout=WAIT_MS)
    dialog.reject()


def test_the_status_bar_hides_the_mcp_indicator_without_servers(make_window):
    w = make_window(Settings(), secrets=SecretStore(keyring_backend=DictKeyring()))
    w.mcp_status.refresh()
    assert not w.mcp_status.isVisible() and w.mcp_status.summary == ""


def test_without_a_keyring_saving_a_secret_row_says_session_only_and_keeps_it_out_of_the_file(
        qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    keyring.core.init_backend()
    store = SecretStore()
    dialog = SettingsDialog(Settings(), store, auto_refresh=False, settings_path=tmp_path / "settings.json")
    qtbot.addWidget(dialog)
    dialog.show()
    try:
        page = dialog.mcp_page
        editor = page.editor()
        fill(editor, "gh", "github-mcp")
        editor.env.add_row("GITHUB_TOKEN", TOKEN, True)
        editor.accept()
        page.add_server(editor)
        dialog.save_button.click()
        qtbot.waitUntil(lambda: dialog.saved_settings is not None, timeout=10_000)
        assert dialog.isVisible()  # stays open to say where the secret went
        assert "kept for this session only" in dialog.status_label.text()
        assert dialog.cancel_button.text() == "Close"
        text, saved = saved_file(tmp_path)
        assert TOKEN not in text and saved.mcp.servers[0].secret_env == ["GITHUB_TOKEN"]
        assert store.get_secret("mcp:gh:env:GITHUB_TOKEN") == TOKEN
        assert "install and unlock a Secret Service keyring" in page.keyring_note.text()
    finally:
        dialog.shutdown()
        dialog.close()


def test_replacing_a_running_servers_secret_restarts_it_with_the_new_value(qtbot, assemblies, dialogs, tmp_path):
    server = TIME.model_copy(update={"secret_env": ["TIME_TOKEN"]})
    settings = with_servers(server)
    assembly = assemblies()
    manager = assembly.mcp(settings)
    assert manager is not None
    dialog = dialogs(settings, assembly)
    page = dialog.mcp_page
    qtbot.waitUntil(lambda: page.status_text("time") == "ready (2 tools)", timeout=WAIT_MS)
    before = set(_children_running("mcp-server-time"))
    page.select("time")
    page.secret_list.setCurrentRow(0)
    page.replace_secret("token-2")
    save(qtbot, dialog)
    assert assembly.current_mcp() is manager  # the settings did not change: the same servers, this one restarted
    qtbot.waitUntil(lambda: manager.states()[0].state == "ready", timeout=WAIT_MS)
    after = set(_children_running("mcp-server-time"))
    assert after and not after & before
    pid = next(iter(after))
    environ = (Path("/proc") / str(pid) / "environ").read_bytes().split(b"\0")
    assert b"TIME_TOKEN=token-2" in environ


def test_a_secret_header_of_a_remote_server_goes_to_the_keyring(qtbot, dialogs, tmp_path, keyring_backend):
    dialog = dialogs(Settings())
    page = dialog.mcp_page
    editor = page.editor()
    fill(editor, "web", url="https://mcp.example.com/mcp")
    editor.headers.add_row("Authorization", f"Bearer {TOKEN}", True)
    editor.headers.add_row("X-Team", "blue")
    editor.accept()
    page.add_server(editor)
    save(qtbot, dialog)
    text, saved = saved_file(tmp_path)
    assert TOKEN not in text
    web = saved.mcp.servers[0]
    assert web.headers == {"X-Team": "blue"} and web.secret_headers == ["Authorization"]
    assert keyring_backend.data[(SERVICE, "secret:mcp:web:header:Authorization")] == f"Bearer {TOKEN}"
