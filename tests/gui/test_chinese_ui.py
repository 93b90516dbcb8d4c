"""The window in Simplified Chinese (issue 25): built under the zh_CN translation, every text a user sees or a
screen reader says — labels, buttons, menus, actions, tooltips, placeholders, window titles, accessible names,
tab and column headers — of the main window with a chat (a tool call, an approval card, an error card), the
history panel, the tool sidebar and every Settings page is in Chinese (only genuine non-words are left: model
names, URLs, JSON, shortcuts); and concrete labels read as a Chinese user expects."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import OPENAI_PRESETS, Settings
from desktop_agent.ui import i18n
from tests.helpers.gui import free_port, wait_idle, waiting_card
from tests.helpers.i18n_walk import untranslated
from tests.helpers.keyrings import DictKeyring
from tests.helpers.replies import text_lines, tool_call_lines

#: what the scripted chats put on screen besides the UI's own texts: the tools' and models' names
NAMES = ("launch", "calculator", "today", "expression", "llama3.2")


@pytest.fixture
def zh():
    """The zh_CN translation installed, as the app does at start-up; English again afterwards."""
    assert i18n.install("zh_CN", QApplication.instance()) == "zh_CN"
    yield
    i18n.uninstall()


@pytest.fixture
def approving_tools(tmp_path):
    d = tmp_path / "ask_tools"
    d.mkdir()
    (d / "asking.py").write_text(
        "from desktop_agent import tool\n\n"
        "@tool(requires_approval=True)\n"
        "def launch(target: str) -> str:\n"
        '    """发射某物。"""\n'
        '    return "ok"\n', encoding="utf-8")
    return d


def test_the_main_window_with_a_tool_call_and_an_approval_card_is_all_chinese(
        zh, qtbot, make_window, ollama_server, approving_tools):
    settings = Settings(backend="ollama", ollama_host=ollama_server.url, ollama_model="llama3.2",
                        tools_dirs=[str(approving_tools)])
    w = make_window(settings)
    ollama_server.script(tool_call_lines("calculator", {"expression": "6*7"}), text_lines(["四十二。"]))
    w.send("六乘以七是多少?")
    wait_idle(qtbot, w)
    ollama_server.script(tool_call_lines("launch", {"target": "月亮"}), text_lines(["好的。"]))
    w.send("发射")
    card = waiting_card(qtbot, w)
    left = untranslated([w, card], NAMES)
    assert not left, "English left in the Chinese window:\n" + "\n".join(left)
    card.deny.click()
    wait_idle(qtbot, w)


def test_an_error_card_is_chinese(zh, qtbot, make_window):
    w = make_window(Settings(backend="ollama", ollama_host=f"http://127.0.0.1:{free_port()}",
                             ollama_model="llama3.2"))
    w.send("你好")
    wait_idle(qtbot, w)
    from desktop_agent.ui.chat.cards import ErrorCard

    cards = w.chat.findChildren(ErrorCard)
    assert cards, "no error card"
    left = untranslated(cards, [*NAMES, "Connection", "refused"])  # the system's own reason, in brackets
    assert not left, "English left in the error card:\n" + "\n".join(left)
    assert cards[-1].title.text() == "无法连接 Ollama"


def test_every_settings_page_is_chinese(zh, qtbot):
    from desktop_agent.ui.settings.dialog import SettingsDialog

    dialog = SettingsDialog(Settings(), SecretStore(keyring_backend=DictKeyring()))
    qtbot.addWidget(dialog)
    dialog.show()
    try:
        left = untranslated([dialog], NAMES, names=OPENAI_PRESETS)  # product names: DeepSeek, LM Studio…
        assert not left, "English left in Settings:\n" + "\n".join(left)
    finally:
        dialog.shutdown()
        dialog.close()


def test_concrete_labels_read_in_chinese(zh, qtbot, make_window):
    """The send button, the menus, the Settings tabs and the language choice, as a Chinese user reads them."""
    from desktop_agent.ui.settings.dialog import SettingsDialog

    w = make_window(Settings(ollama_model="llama3.2"))
    assert w.composer.button.text().strip() == "发送"
    menus = [a.text() for a in w.menuBar().actions()]
    assert menus == ["文件(&F)", "对话(&C)", "视图(&V)", "帮助(&H)"]
    dialog = SettingsDialog(Settings(), SecretStore(keyring_backend=DictKeyring()))
    qtbot.addWidget(dialog)
    try:
        names = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
        assert names == ["Ollama", "OpenAI 兼容", "生成", "工具", "外观", "MCP 服务器", "桌面", "预设"]
        page = dialog.appearance_page
        assert [page.language.itemText(i) for i in range(page.language.count())] == ["跟随系统", "English", "简体中文"]
    finally:
        dialog.shutdown()
        dialog.close()


_START = r'''
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from desktop_agent.core import paths
from desktop_agent.ui import theme
from desktop_agent.ui.application import run_gui

language = sys.argv[1]
paths.settings_file().parent.mkdir(parents=True, exist_ok=True)
paths.settings_file().write_text(json.dumps({"version": 2, "appearance": {"language": language}}))
app = theme.new_application(["desktop-agent"])

def look():
    from desktop_agent.ui.main_window import MainWindow
    (w,) = [x for x in app.topLevelWidgets() if isinstance(x, MainWindow)]
    print("|".join(a.text() for a in w.menuBar().actions()))
    print(w.composer.button.text().strip())
    w.close()

QTimer.singleShot(1500, look)
sys.exit(run_gui(["desktop-agent"]))
'''


@pytest.mark.parametrize(("setting", "lang", "menus", "send"), [
    ("system", "zh_CN.UTF-8", "文件(&F)|对话(&C)|视图(&V)|帮助(&H)", "发送"),
    ("zh_CN", "C.UTF-8", "文件(&F)|对话(&C)|视图(&V)|帮助(&H)", "发送"),
    ("en", "zh_CN.UTF-8", "&File|&Chat|&View|&Help", "Send"),
    ("system", "de_DE.UTF-8", "&File|&Chat|&View|&Help", "Send"),
])
def test_the_app_starts_in_the_language_of_its_setting(tmp_path, setting, lang, menus, send):
    """The real start-up (run_gui, the first frame from the settings file's glance): the translator is installed
    before the window is built, from Settings → Appearance → Language or, by default, the system's locale."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(LANG=lang, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(root), DESKTOP_AGENT_HOME=str(tmp_path / "home"),
               OLLAMA_HOST="127.0.0.1:9")
    proc = subprocess.run([sys.executable, "-c", _START, setting], env=env, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-2:] == [menus, send], proc.stdout


def test_the_language_choice_is_a_setting_saved_with_the_others(qtbot, tmp_path):
    """Settings → Appearance → Language: follow the system by default; a choice goes into appearance.language
    (the settings model and file the window starts from) and says that it shows after a restart."""
    import json

    from desktop_agent.core.settings_glance import glance
    from desktop_agent.ui.settings.dialog import SettingsDialog

    dialog = SettingsDialog(Settings(), SecretStore(keyring_backend=DictKeyring()))
    qtbot.addWidget(dialog)
    try:
        page = dialog.appearance_page
        assert page.language_choice() == "system" and page.restart_note.isHidden()
        page.language.setCurrentIndex(page.language.findData("zh_CN"))
        assert page.values()["appearance.language"] == "zh_CN"
        assert not page.restart_note.isHidden() and page.restart_note.text()
        saved = Settings().updated(page.values())
        assert saved.appearance.language == "zh_CN"
        path = tmp_path / "settings.json"
        path.write_text(json.dumps(saved.model_dump(mode="json")), encoding="utf-8")
        seen = glance(path)
        assert seen is not None and seen.appearance.language == "zh_CN"
    finally:
        dialog.shutdown()
        dialog.close()


def test_the_dialogs_are_chinese(zh, qtbot):
    """The MCP server editor (both kinds of server) and the unexpected-error dialog."""
    from desktop_agent.ui.errors import UnexpectedErrorDialog
    from desktop_agent.ui.settings.mcp_server_editor import McpServerEditor

    editor = McpServerEditor(None, set(), set())
    crash = UnexpectedErrorDialog("ValueError: boom", "Traceback …", "/tmp/desktop-agent.log")
    for dialog in (editor, crash):
        qtbot.addWidget(dialog)
        dialog.show()
    left = untranslated([editor, crash], ["boom", "ValueError", "Traceback"])
    assert not left, "English left in the dialogs:\n" + "\n".join(left)
    assert editor.windowTitle() == "添加 MCP 服务器" and crash.windowTitle() == "意外错误"
    for dialog in (editor, crash):
        dialog.close()
